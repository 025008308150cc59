package dev.vitals.bench.suite;

import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A kubelet-like gRPC probe: {@code grpc.health.v1.Health/Check} on a fresh plaintext connection,
 * one deadline over the connection and the call, success only for {@code SERVING} (kubelet:
 * pkg/probe/grpc/grpc.go). Stateless; thread-safe.
 */
final class GrpcProbe {
    private GrpcProbe() {
    }

    /**
     * Checks {@code service} on 127.0.0.1:{@code port} within {@code timeout}. Never throws.
     *
     * @return the answer as an {@link HttpProbe.Result}: status 200 for {@code SERVING}, 503 for
     *     another serving status, -1 with the RPC's code (e.g. {@code timeout} for
     *     {@code DEADLINE_EXCEEDED}) when there was no answer
     */
    static HttpProbe.Result check(int port, String service, Duration timeout) {
        long t0 = System.nanoTime();
        ManagedChannel ch = Grpc.newChannelBuilderForAddress("127.0.0.1", port, InsecureChannelCredentials.create()).build();
        try {
            HealthCheckResponse r = HealthGrpc.newBlockingStub(ch).withDeadlineAfter(timeout.toNanos(), TimeUnit.NANOSECONDS)
                    .check(HealthCheckRequest.newBuilder().setService(service).build());
            double ms = (System.nanoTime() - t0) / 1e6;
            return r.getStatus() == HealthCheckResponse.ServingStatus.SERVING
                    ? new HttpProbe.Result(200, ms, "")
                    : new HttpProbe.Result(503, ms, r.getStatus().name());
        } catch (StatusRuntimeException e) {
            Status.Code code = e.getStatus().getCode();
            return new HttpProbe.Result(-1, (System.nanoTime() - t0) / 1e6, code == Status.Code.DEADLINE_EXCEEDED ? "timeout" : code.name());
        } catch (RuntimeException e) {
            return new HttpProbe.Result(-1, (System.nanoTime() - t0) / 1e6, e.getClass().getSimpleName() + ": " + e.getMessage());
        } finally {
            ch.shutdownNow();
        }
    }
}
