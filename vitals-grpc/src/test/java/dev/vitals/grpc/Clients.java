package dev.vitals.grpc;

import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.stub.StreamObserver;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/** grpc-java's own health client (grpc-services' generated stubs) on loopback. */
final class Clients {
    private Clients() {
    }

    static ManagedChannel channel(int port) {
        return Grpc.newChannelBuilderForAddress("127.0.0.1", port, InsecureChannelCredentials.create()).build();
    }

    /** One Check on a fresh connection, as kubelet does; the status, or the RPC error's code name. */
    static String probe(int port, String service) {
        ManagedChannel ch = channel(port);
        try {
            return check(ch, service);
        } finally {
            ch.shutdownNow();
        }
    }

    static String check(ManagedChannel ch, String service) {
        try {
            return HealthGrpc.newBlockingStub(ch).withDeadlineAfter(10, TimeUnit.SECONDS)
                    .check(HealthCheckRequest.newBuilder().setService(service).build()).getStatus().name();
        } catch (StatusRuntimeException e) {
            return e.getStatus().getCode().name();
        }
    }

    /** A Watch stream that records every status and how it ended. */
    static final class Watcher implements StreamObserver<HealthCheckResponse> {
        final List<ServingStatus> statuses = new CopyOnWriteArrayList<>();
        final CompletableFuture<String> end = new CompletableFuture<>();

        static Watcher open(ManagedChannel ch, String service) {
            Watcher w = new Watcher();
            HealthGrpc.newStub(ch).watch(HealthCheckRequest.newBuilder().setService(service).build(), w);
            return w;
        }

        ServingStatus last() {
            return statuses.isEmpty() ? null : statuses.get(statuses.size() - 1);
        }

        @Override
        public void onNext(HealthCheckResponse r) {
            statuses.add(r.getStatus());
        }

        @Override
        public void onError(Throwable t) {
            end.complete(t instanceof StatusRuntimeException ? ((StatusRuntimeException) t).getStatus().getCode().name() : t.toString());
        }

        @Override
        public void onCompleted() {
            end.complete("OK");
        }
    }
}
