package dev.vitals.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.vitals.Check;
import dev.vitals.Groups;
import dev.vitals.Health;
import dev.vitals.HealthRegistry;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The BindableService variant on an application's own grpc-java server (not isolated). */
class GrpcHealthServiceTest {

    @Test
    void servesOnTheApplicationsServerBehindItsInterceptors() throws Exception {
        try (HealthRegistry r = HealthRegistry.builder()
                .register(Check.builder("loop", Health::up).groups(Groups.LIVENESS).build()).build()) {
            r.start();
            GrpcHealthService health = GrpcHealthService.builder(r).service("shop.Orders", Groups.LIVENESS).build();
            AtomicInteger intercepted = new AtomicInteger();
            ServerInterceptor appInterceptor = new ServerInterceptor() {
                @Override
                public <Q, A> ServerCall.Listener<Q> interceptCall(ServerCall<Q, A> call, Metadata h, ServerCallHandler<Q, A> next) {
                    intercepted.incrementAndGet();
                    return next.startCall(call, h);
                }
            };
            Server app = NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                    .addService(ServerInterceptors.intercept(health, appInterceptor)).build().start();
            ManagedChannel ch = Clients.channel(app.getPort());
            try {
                assertThat(Clients.check(ch, "shop.Orders")).isEqualTo("SERVING");
                assertThat(Clients.check(ch, "")).isEqualTo("SERVING");
                assertThat(Clients.check(ch, "nope")).isEqualTo("NOT_FOUND");
                assertThat(intercepted.get()).as("the application's interceptors see every probe: not isolated").isEqualTo(3);

                Clients.Watcher w = Clients.Watcher.open(ch, "liveness");
                await().atMost(Duration.ofSeconds(20)).until(() -> w.last() == ServingStatus.SERVING);
                health.enterTerminalState();
                await().atMost(Duration.ofSeconds(20)).until(() -> w.last() == ServingStatus.NOT_SERVING);
                assertThat(Clients.check(ch, "liveness")).isEqualTo("NOT_SERVING");
                health.closeWatchStreams();
                assertThat(w.end.get(10, TimeUnit.SECONDS)).isEqualTo("UNAVAILABLE");
            } finally {
                ch.shutdownNow();
                app.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            }
        }
    }
}
