package dev.vitals.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.vitals.Check;
import dev.vitals.Groups;
import dev.vitals.Health;
import dev.vitals.HealthRegistry;
import dev.vitals.Mode;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.ServerBuilder;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.services.HealthStatusManager;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@code grpc.health.v1.Health/List} (gRFC A90) through grpc-java with the updated proto. */
class ListTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    private final AtomicReference<Health> db = new AtomicReference<>(Health.up());
    private final List<AutoCloseable> closeAfter = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = closeAfter.size() - 1; i >= 0; i--) {
            closeAfter.get(i).close();
        }
    }

    private HealthRegistry registry(HealthRegistry.Builder b) {
        HealthRegistry r = b.build();
        closeAfter.add(r);
        r.start();
        return r;
    }

    private HealthRegistry registry() {
        return registry(HealthRegistry.builder().group("batch")
                .register(Check.builder("db", db::get).groups(Groups.READINESS).interval(Duration.ofMillis(50)).build())
                .register(Check.builder("loop", Health::up).groups(Groups.LIVENESS, "batch").build()));
    }

    private GrpcHealthServer start(GrpcHealthServer.Builder b) throws Exception {
        GrpcHealthServer s = b.port(0).bindAddress(InetAddress.getLoopbackAddress()).build().start();
        closeAfter.add(s);
        return s;
    }

    private ManagedChannel channel(int port) {
        ManagedChannel ch = Clients.channel(port);
        closeAfter.add(ch::shutdownNow);
        return ch;
    }

    @Test
    void listAnswersEveryServiceAsCheckDoes() throws Exception {
        HealthRegistry r = registry();
        GrpcHealthServer s = start(GrpcHealthServer.builder(r).service("shop.Orders", Groups.READINESS));
        ManagedChannel ch = channel(s.port());
        await().atMost(WAIT).until(() -> "SERVING".equals(ListClient.list(ch).get("readiness")));

        Map<String, String> listed = ListClient.list(ch);
        assertThat(listed).containsOnlyKeys(s.service().listedServices().keySet())
                .containsKeys("", "liveness", "readiness", "startup", "batch", "shop.Orders");
        for (Map.Entry<String, String> e : listed.entrySet()) {
            assertThat(e.getValue()).as("service '%s'", e.getKey()).isEqualTo("SERVING")
                    .isEqualTo(Clients.check(ch, e.getKey()));
        }

        db.set(Health.down("gone"));
        await().atMost(WAIT).until(() -> "NOT_SERVING".equals(ListClient.list(ch).get("readiness")));
        assertThat(ListClient.list(ch)).containsEntry("", "NOT_SERVING").containsEntry("shop.Orders", "NOT_SERVING")
                .containsEntry("liveness", "SERVING").containsEntry("batch", "SERVING");

        s.service().enterTerminalState();
        assertThat(ListClient.list(ch).values()).as("terminal: every service").containsOnly("NOT_SERVING");
    }

    @Test
    void theCapIsOneHundredServicesAndBeyondItResourceExhausted() throws Exception {
        HealthRegistry r = registry();
        // "" + liveness, readiness, startup, batch = the groups' names; aliases fill the rest
        int base = GrpcHealthService.builder(r).build().listedServices().size();
        GrpcHealthServer.Builder atCap = GrpcHealthServer.builder(r);
        for (int i = base; i < GrpcHealthService.LIST_LIMIT; i++) {
            atCap.service("svc." + i, "batch");
        }
        GrpcHealthServer full = start(atCap);
        Map<String, String> listed = ListClient.list(channel(full.port()));
        assertThat(listed).hasSize(100).containsEntry("svc.99", "SERVING");

        GrpcHealthServer over = start(atCap.service("svc.100", "batch"));
        ManagedChannel ch = channel(over.port());
        assertThatThrownBy(() -> ListClient.list(ch)).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
            assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
            assertThat(e.getStatus().getDescription()).contains("maximum capacity: 100").contains("101 services");
        });
        assertThat(Clients.check(ch, "svc.100")).as("Check still answers every name").isEqualTo("SERVING");
    }

    @Test
    void onDemandGroupsAreEvaluatedOnceAndAnsweredWhenDone() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        HealthRegistry r = registry(HealthRegistry.builder().group("batch")
                .register(Check.builder("slow", () -> {
                    release.await();
                    return Health.down("slow and down");
                }).groups("batch").mode(Mode.ON_DEMAND).timeout(Duration.ofSeconds(30)).build())
                .register(Check.builder("loop", Health::up).groups(Groups.LIVENESS).build()));
        GrpcHealthServer s = start(GrpcHealthServer.builder(r).service("a", "batch").service("b", "batch"));
        ManagedChannel ch = channel(s.port());
        java.util.concurrent.CompletableFuture<Object> answer =
                java.util.concurrent.CompletableFuture.supplyAsync(() -> ListClient.listOrCode(ch));
        await().during(Duration.ofMillis(300)).atMost(WAIT).until(() -> !answer.isDone());
        release.countDown();
        await().atMost(WAIT).until(answer::isDone);
        @SuppressWarnings("unchecked")
        Map<String, String> listed = (Map<String, String>) answer.get();
        assertThat(listed).containsEntry("batch", "NOT_SERVING").containsEntry("a", "NOT_SERVING")
                .containsEntry("b", "NOT_SERVING").containsEntry("liveness", "SERVING");
    }

    @Test
    void theOnePortServiceListsToo() throws Exception {
        HealthRegistry r = registry();
        GrpcHealthService health = GrpcHealthService.builder(r).build();
        Server app = ServerBuilder.forPort(0).addService(health).build().start();
        closeAfter.add(() -> app.shutdownNow().awaitTermination(10, java.util.concurrent.TimeUnit.SECONDS));
        ManagedChannel ch = channel(app.getPort());
        await().atMost(WAIT).until(() -> "SERVING".equals(ListClient.list(ch).get("")));
        assertThat(ListClient.list(ch)).containsOnlyKeys("", "liveness", "readiness", "startup", "batch");
    }

    @Test
    void grpcJavasHealthStatusManagerCannotList() throws Exception {
        HealthStatusManager manager = new HealthStatusManager();
        Server app = ServerBuilder.forPort(0).addService(manager.getHealthService()).build().start();
        closeAfter.add(() -> app.shutdownNow().awaitTermination(10, java.util.concurrent.TimeUnit.SECONDS));
        assertThat(ListClient.listOrCode(channel(app.getPort()))).isEqualTo("UNIMPLEMENTED");
    }
}
