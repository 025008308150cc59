package dev.vitals.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import static org.awaitility.Awaitility.await;

import dev.vitals.Groups;
import dev.vitals.HealthRegistry;
import dev.vitals.Status;
import dev.vitals.micrometer.VitalsMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * DESIGN.md failure 1 on a real Tomcat capped at 40 workers: 50 slow requests (4 s each) take
 * every worker. Vitals' {@code /livez} on its own port keeps answering 200 at once; Spring's
 * {@code /actuator/health/liveness} on the application port waits in Tomcat's queue.
 */
class TomcatSaturationTest {
    /** How long each slow request holds its worker: long enough to stay saturated on a loaded 2-core machine. */
    private static final long HOLD_MS = 4_000;

    @Test
    void vitalsLivezAnswersWhileTomcatIsSaturatedAndActuatorLivenessDoesNot() throws Exception {
        try (ConfigurableApplicationContext ctx = TestApp.builder()
                .property("server.tomcat.threads.max=40")
                .property("server.tomcat.threads.min-spare=40")
                .run()) {
            int app = TestApp.port(ctx);
            int probes = TestApp.probePort(ctx);
            assertThat(TestApp.get(app, "/actuator/health/liveness", Duration.ofSeconds(10)).statusCode()).isEqualTo(200);

            List<CompletableFuture<HttpResponse<String>>> slow = new ArrayList<>();
            long t0 = System.nanoTime();
            for (int i = 0; i < 50; i++) {
                HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app + "/slow?ms=" + HOLD_MS + ""))
                        .timeout(Duration.ofSeconds(30)).build();
                slow.add(TestApp.HTTP.sendAsync(req, HttpResponse.BodyHandlers.ofString()));
            }
            // Wait until Tomcat's 40 workers are all busy (bounded: 5 s).
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(50))
                    .until(() -> tomcatBusy() >= 40);
            assertThat(tomcatBusy()).isEqualTo(40);

            // Kubelet's default 1 s timeout on the application port, sent now that every worker is
            // busy (it queues behind the 10 requests Tomcat could not take either)...
            long a0 = System.nanoTime();
            CompletableFuture<HttpResponse<String>> actuator = TestApp.HTTP.sendAsync(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app + "/actuator/health/liveness"))
                            .timeout(Duration.ofSeconds(1)).build(), HttpResponse.BodyHandlers.ofString());
            // ...while Vitals' /livez is probed on its own port during the saturation.
            int vitalsOk = 0;
            long vitalsSlowest = 0;
            while (System.nanoTime() - t0 < TimeUnit.MILLISECONDS.toNanos(HOLD_MS - 1_000)) {
                long p0 = System.nanoTime();
                HttpResponse<String> livez = TestApp.get(probes, "/livez", Duration.ofSeconds(2));
                vitalsSlowest = Math.max(vitalsSlowest, System.nanoTime() - p0);
                assertThat(livez.statusCode()).isEqualTo(200);
                vitalsOk++;
                Thread.sleep(100);
            }
            // Vitals saw it coming: the pool meters and the saturation check (sampled every 1 s).
            MeterRegistry meters = ctx.getBean(MeterRegistry.class);
            HealthRegistry registry = ctx.getBean(HealthRegistry.class);
            await().atMost(Duration.ofSeconds(3)).untilAsserted(() -> {
                assertThat(meters.get(VitalsMetrics.POOL_BUSY).tags("pool", "tomcat").gauge().value()).isEqualTo(40.0);
                assertThat(meters.get(VitalsMetrics.POOL_CAPACITY).tags("pool", "tomcat").gauge().value()).isEqualTo(40.0);
                assertThat(registry.report(Groups.READINESS).checks().get("tomcat-saturation").status()).isEqualTo(Status.DEGRADED);
            });
            // Saturated is not stalled: liveness stays UP.
            assertThat(registry.report(Groups.LIVENESS).checks().get("tomcat-progress").status()).isEqualTo(Status.UP);
            boolean actuatorAnswered;
            try {
                actuatorAnswered = actuator.get(10, TimeUnit.SECONDS).statusCode() == 200;
            } catch (java.util.concurrent.ExecutionException e) {
                assertThat(e.getCause()).isInstanceOf(java.net.http.HttpTimeoutException.class);
                actuatorAnswered = false;
            }
            long actuatorMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - a0);
            int actuatorFailures = actuatorAnswered ? 0 : 1;
            assertThat(tomcatBusy()).as("still saturated after the probes").isGreaterThanOrEqualTo(30);

            for (CompletableFuture<HttpResponse<String>> f : slow) {
                assertThat(f.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
            }
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                    assertThat(meters.get(VitalsMetrics.POOL_COMPLETED).tags("pool", "tomcat").functionCounter().count()).isGreaterThanOrEqualTo(50.0));
            System.out.printf("Tomcat 40 workers, 50 x " + HOLD_MS + " ms requests: Vitals /livez %d x 200, slowest %d ms; "
                            + "actuator liveness (1 s timeout) failed %d of 1 (outcome known after %d ms); all 50 done in %d ms%n",
                    vitalsOk, TimeUnit.NANOSECONDS.toMillis(vitalsSlowest), actuatorFailures, actuatorMillis,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
            assertThat(vitalsOk).isGreaterThanOrEqualTo(3);
            assertThat(actuatorFailures).as("actuator liveness on the saturated port").isEqualTo(1);
        }
    }

    /** Busy Tomcat worker threads, counted from the live threads' names and states. */
    private static long tomcatBusy() {
        return Thread.getAllStackTraces().entrySet().stream()
                .filter(e -> e.getKey().getName().startsWith("http-nio-") && e.getKey().getName().contains("-exec-"))
                .filter(e -> e.getKey().getState() == Thread.State.TIMED_WAITING
                        && java.util.Arrays.stream(e.getValue()).anyMatch(f -> f.getMethodName().equals("slow")))
                .count();
    }
}
