package dev.vitals.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.vitals.Groups;
import dev.vitals.HealthRegistry;
import dev.vitals.Status;
import dev.vitals.micrometer.VitalsMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.jetty.JettyWebServer;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The application on embedded Jetty (16 worker threads): its pool is watched like Tomcat's.
 * Twenty requests held 7 s, past {@code stall-after}, fill the pool and complete nothing
 * (liveness check {@code jetty-progress} DOWN "stalled"); once they finish, both checks are UP
 * and the completed count moved.
 */
class JettyPoolTest {
    private static final long HOLD_MS = 7_000;

    @Test
    void jettyPoolIsASaturationAndProgressSource() throws Exception {
        try (ConfigurableApplicationContext ctx = TestApp.builder().jetty()
                .property("server.jetty.threads.max=16")
                .property("server.jetty.threads.min=16")
                .property("vitals.web-server.stall-after=2s")
                .run()) {
            assertThat(((WebServerApplicationContext) ctx).getWebServer()).isInstanceOf(JettyWebServer.class);
            HealthRegistry registry = ctx.getBean(HealthRegistry.class);
            assertThat(registry.checks()).extracting(c -> c.name()).contains("jetty-saturation", "jetty-progress")
                    .doesNotContain("tomcat-saturation", "tomcat-progress");
            int app = TestApp.port(ctx);
            MeterRegistry meters = ctx.getBean(MeterRegistry.class);
            assertThat(TestApp.get(app, "/slow?ms=1", Duration.ofSeconds(10)).statusCode()).isEqualTo(200);
            await().atMost(Duration.ofSeconds(5)).until(() -> meters.get(VitalsMetrics.POOL_CAPACITY).tags("pool", "jetty").gauge().value() > 0);
            double capacity = meters.get(VitalsMetrics.POOL_CAPACITY).tags("pool", "jetty").gauge().value();
            System.out.println("Jetty pool capacity (max threads less acceptor/selector leases): " + capacity);
            assertThat(capacity).isBetween(8.0, 16.0);

            List<CompletableFuture<HttpResponse<String>>> slow = new ArrayList<>();
            long t0 = System.nanoTime();
            for (int i = 0; i < 20; i++) {
                HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app + "/slow?ms=" + HOLD_MS))
                        .timeout(Duration.ofSeconds(40)).build();
                slow.add(TestApp.HTTP.sendAsync(req, HttpResponse.BodyHandlers.ofString()));
            }
            // Liveness: requests active, none completing for stall-after. Saturation is reported as
            // seen but not required: Jetty's adaptive execution strategy may run a blocking request
            // on its selector thread (a leased thread, not counted), which then accepts no more
            // requests, so the pool can read below 90% while the server is full.
            await().atMost(Duration.ofSeconds(HOLD_MS / 1000 - 1)).pollInterval(Duration.ofMillis(100)).untilAsserted(() ->
                assertThat(registry.report(Groups.LIVENESS).checks().get("jetty-progress").status()).isEqualTo(Status.DOWN));
            long detectedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            double busy = meters.get(VitalsMetrics.POOL_BUSY).tags("pool", "jetty").gauge().value();
            Status saturation = registry.report(Groups.READINESS).checks().get("jetty-saturation").status();
            assertThat(busy).as("busy workers counted").isGreaterThan(0.0);
            assertThat(saturation).isIn(Status.UP, Status.DEGRADED);
            HttpResponse<String> livez = TestApp.get(TestApp.probePort(ctx), "/livez?verbose", Duration.ofSeconds(5));
            assertThat(livez.statusCode()).isEqualTo(503);
            assertThat(livez.body()).contains("[-]jetty-progress");

            for (CompletableFuture<HttpResponse<String>> f : slow) {
                assertThat(f.get(40, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
            }
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                assertThat(registry.report(Groups.LIVENESS).checks().get("jetty-progress").status()).isEqualTo(Status.UP);
                assertThat(registry.report(Groups.READINESS).checks().get("jetty-saturation").status()).isEqualTo(Status.UP);
                assertThat(meters.get(VitalsMetrics.POOL_COMPLETED).tags("pool", "jetty").functionCounter().count()).isGreaterThanOrEqualTo(21.0); // 20 slow + 1 warm-up
            });
            System.out.printf("Jetty 16 threads, 20 x %d ms requests: stalled detected after %d ms, busy %.0f of %.0f, jetty-saturation %s; "
                    + "recovered after all finished in %d ms%n", HOLD_MS, detectedMs, busy, capacity, saturation,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
        }
    }
}
