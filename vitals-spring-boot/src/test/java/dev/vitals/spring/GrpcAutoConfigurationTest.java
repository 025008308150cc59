package dev.vitals.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.vitals.grpc.GrpcHealthServer;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code vitals.grpc.port}: grpc.health.v1 on its own port, drained on context close. (Without
 * the property there is no server: every other test in this module runs that way.)
 */
class GrpcAutoConfigurationTest {

    @Test
    void servesTheGroupsAndDrainsEmptyFirstOnClose() throws Exception {
        ConfigurableApplicationContext ctx = TestApp.builder()
                .property("vitals.grpc.port=0")
                .property("vitals.grpc.address=127.0.0.1")
                .property("vitals.grpc.services.shop.Orders=liveness")
                .property("vitals.shutdown.drain-delay=1500ms")
                .run();
        GrpcHealthServer server = ctx.getBean(GrpcHealthServer.class);
        ManagedChannel ch = Grpc.newChannelBuilderForAddress("127.0.0.1", server.port(), InsecureChannelCredentials.create()).build();
        try {
            await().atMost(Duration.ofSeconds(20)).ignoreExceptions().until(() -> check(ch, "").equals("SERVING"));
            assertThat(check(ch, "liveness")).isEqualTo("SERVING");
            assertThat(check(ch, "shop.Orders")).isEqualTo("SERVING");
            assertThat(check(ch, "no.such.Service")).isEqualTo("NOT_FOUND");
            assertThat(dev.vitals.grpc.ListClient.list(ch)).as("List (gRFC A90): every service at once")
                    .containsKeys("", "liveness", "readiness", "startup", "shop.Orders")
                    .containsEntry("", "SERVING").containsEntry("shop.Orders", "SERVING");

            List<String> watched = new CopyOnWriteArrayList<>();
            CompletableFuture<String> end = new CompletableFuture<>();
            HealthGrpc.newStub(ch).watch(HealthCheckRequest.getDefaultInstance(), new StreamObserver<HealthCheckResponse>() {
                @Override
                public void onNext(HealthCheckResponse r) {
                    watched.add(r.getStatus().name());
                }

                @Override
                public void onError(Throwable t) {
                    end.complete(t instanceof StatusRuntimeException ? ((StatusRuntimeException) t).getStatus().getCode().name() : t.toString());
                }

                @Override
                public void onCompleted() {
                    end.complete("OK");
                }
            });
            await().atMost(Duration.ofSeconds(10)).until(() -> watched.contains("SERVING"));

            CompletableFuture<Void> closing = CompletableFuture.runAsync(ctx::close);
            await().atMost(Duration.ofSeconds(10)).until(() -> watched.contains("NOT_SERVING"));
            assertThat(closing).as("still draining").isNotDone();
            assertThat(check(ch, "liveness")).as("liveness serves while draining").isEqualTo("SERVING");
            closing.get(30, TimeUnit.SECONDS);
            assertThat(end.get(10, TimeUnit.SECONDS)).isEqualTo("UNAVAILABLE");
            assertThat(watched).containsExactly("SERVING", "NOT_SERVING");
            assertThat(server.isRunning()).isFalse();
        } finally {
            ch.shutdownNow();
            ctx.close();
        }
    }

    @Test
    void anUnknownGroupFailsStartupNamingTheProperty() {
        assertThatThrownBy(() -> TestApp.builder().property("vitals.grpc.port=0").property("vitals.grpc.address=127.0.0.1")
                .property("vitals.grpc.server-group=nope").run())
                .hasStackTraceContaining("vitals.grpc: serverGroup: no group 'nope'");
    }

    private static String check(ManagedChannel ch, String service) {
        try {
            return HealthGrpc.newBlockingStub(ch).withDeadlineAfter(10, TimeUnit.SECONDS)
                    .check(HealthCheckRequest.newBuilder().setService(service).build()).getStatus().name();
        } catch (StatusRuntimeException e) {
            return e.getStatus().getCode().name();
        }
    }
}
