package dev.vitals.kubesim.probe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.vitals.Check;
import dev.vitals.Groups;
import dev.vitals.Health;
import dev.vitals.HealthRegistry;
import dev.vitals.grpc.GrpcHealthServer;
import dev.vitals.kubesim.model.ProbeHandler;
import dev.vitals.kubesim.model.ProbeOutcome;
import dev.vitals.kubesim.model.ProbeResult;
import java.net.InetAddress;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The simulator's gRPC prober (kubelet's rules) against Vitals' gRPC health server on loopback. */
class GrpcProberAgainstVitalsTest {

    @Test
    void kubeletsGrpcProbeReadsVitalsGroups() throws Exception {
        AtomicReference<Health> db = new AtomicReference<>(Health.up());
        CountDownLatch never = new CountDownLatch(1);
        try (HealthRegistry r = HealthRegistry.builder()
                .register(Check.builder("db", db::get).groups(Groups.READINESS).interval(Duration.ofMillis(50)).build())
                .register(Check.builder("hung", () -> {
                    never.await();
                    return Health.up();
                }).groups("batch").timeout(Duration.ofMillis(100)).build())
                .group("batch")
                .build()) {
            r.start();
            GrpcHealthServer s = GrpcHealthServer.builder(r).port(0).bindAddress(InetAddress.getLoopbackAddress())
                    .service("shop.Orders", Groups.READINESS).build().start();
            try {
                int port = s.port();
                await().atMost(Duration.ofSeconds(20)).until(() -> probe(port, "").result() == ProbeResult.SUCCESS);
                assertThat(probe(port, "liveness").result()).isEqualTo(ProbeResult.SUCCESS);
                assertThat(probe(port, "shop.Orders").result()).isEqualTo(ProbeResult.SUCCESS);

                ProbeOutcome unknown = probe(port, "no.such.Service");
                assertThat(unknown.result()).isEqualTo(ProbeResult.FAILURE);
                assertThat(unknown.message()).contains("NOT_FOUND");

                db.set(Health.down("connection refused"));
                await().atMost(Duration.ofSeconds(20)).until(() -> probe(port, "readiness").result() == ProbeResult.FAILURE);
                assertThat(probe(port, "readiness").message()).isEqualTo("service unhealthy (responded with \"NOT_SERVING\")");
                assertThat(probe(port, "").result()).isEqualTo(ProbeResult.FAILURE);

                // a hung check: the group reads DOWN "timed out", and the probe is answered at once
                await().atMost(Duration.ofSeconds(20)).until(() -> probe(port, "batch").result() == ProbeResult.FAILURE);
                long t0 = System.nanoTime();
                assertThat(probe(port, "batch").result()).isEqualTo(ProbeResult.FAILURE);
                assertThat(Duration.ofNanos(System.nanoTime() - t0)).as("generous: a fresh connection per probe")
                        .isLessThan(Duration.ofSeconds(1));

                db.set(Health.up());
                await().atMost(Duration.ofSeconds(20)).until(() -> probe(port, "").result() == ProbeResult.SUCCESS);
                r.availability().drain(Duration.ofSeconds(30));
                assertThat(probe(port, "").result()).as("draining: readiness fails first").isEqualTo(ProbeResult.FAILURE);
                assertThat(probe(port, "liveness").result()).as("liveness serves while draining").isEqualTo(ProbeResult.SUCCESS);
            } finally {
                never.countDown();
                s.stop(Duration.ofSeconds(1));
            }
        }
    }

    private static ProbeOutcome probe(int port, String service) {
        return GrpcProber.check("127.0.0.1", new ProbeHandler.Grpc(port, service), 5, "kube-probe/1.33");
    }
}
