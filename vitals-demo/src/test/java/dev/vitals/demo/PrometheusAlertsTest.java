package dev.vitals.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Vitals' alert rules (prometheus/vitals-rules.yaml) on a real Prometheus scraping the demo (a real
 * child process with --metrics-port) while faults run: the database cut off and back (a check
 * timing out, readiness flapping), exports that outlast the stall bound on 2 workers (a saturated,
 * stalled pool), then SIGTERM (a drain). Alerts are read from Prometheus' /api/v1/alerts until they
 * fire, then until they resolve. The rule file is scaled for a test: windows of minutes become
 * seconds and every {@code for} 1 s; Prometheus scrapes and evaluates every second.
 *
 * <p>Tag {@code prometheus} (excluded from the default build; .ci/run leg "prometheus"). Skipped
 * when no {@code prometheus} binary is on the PATH. Both processes are ended by PID.
 */
@Tag("prometheus")
class PrometheusAlertsTest {
    private static final Path RULES = Path.of("..", "prometheus", "vitals-rules.yaml");
    private static final Duration START = Duration.ofSeconds(60);
    private static final Duration FIRE = Duration.ofSeconds(60);
    private static final Duration RESOLVE = Duration.ofSeconds(120);
    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(5);

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final ObjectMapper json = new ObjectMapper();

    /** The rule file with every window and {@code for} shortened; fails if a pattern no longer matches. */
    static String scaled(String rules) {
        String s = replaceAll(rules, "\\[5m\\]", "[15s]");
        s = replaceAll(s, "\\[10m\\]", "[45s]"); // 3 cut-offs of a few seconds each fit, on a loaded machine too
        return replaceAll(s, "for: [0-9]+m", "for: 1s");
    }

    private static String replaceAll(String text, String regex, String replacement) {
        Matcher m = Pattern.compile(regex).matcher(text);
        assertThat(m.find()).as("the rule file has %s", regex).isTrue();
        return m.replaceAll(Matcher.quoteReplacement(replacement));
    }

    private static Path prometheusBinary() {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            Path p = Path.of(dir, "prometheus");
            if (!dir.isEmpty() && Files.isExecutable(p)) {
                return p;
            }
        }
        return null;
    }

    @Test
    void timeoutStallSaturationFlappingAndDrainAlertsFireAndResolve(@TempDir Path dir) throws Exception {
        Path prometheus = prometheusBinary();
        Assumptions.assumeTrue(prometheus != null,
                "no 'prometheus' binary on the PATH: install Debian's prometheus package (apt-get install -y prometheus) "
                        + "to run this test; .ci/run's leg 'prometheus' does");

        int dbPort = TestSupport.freePort();
        try (FaultProxy proxy = new FaultProxy(0, dbPort);
                DemoProcess demo = DemoProcess.start("--port", "0", "--probe-port", "0", "--metrics-port", "0",
                        "--db-port", Integer.toString(dbPort), "--db-url", "jdbc:h2:tcp://127.0.0.1:" + proxy.port() + "/mem:demo",
                        "--workers", "2", "--export-min-ms", "6000", "--export-max-ms", "6000", "--stall-after-ms", "2000",
                        "--check-interval-ms", "250", "--check-timeout-ms", "300", "--drain-ms", "15000")) {
            String ready = demo.awaitLine("vitals-demo ready:", START);
            int app = DemoProcess.intField(ready, "port");
            int probe = DemoProcess.intField(ready, "probe-port");
            int metrics = DemoProcess.intField(ready, "metrics-port");
            assertThat(get("http://127.0.0.1:" + metrics + "/metrics")).contains("vitals_check_timeouts_total{check=\"database\"}",
                    "vitals_pool_stalled_pools{pool=\"workers-progress\"}", "vitals_pool_saturation_ratio{pool=\"workers\"}",
                    "vitals_group_status{group=\"readiness\"}", "vitals_availability_draining_registries");

            Files.writeString(dir.resolve("rules.yaml"), scaled(Files.readString(RULES)));
            int port = TestSupport.freePort();
            Files.writeString(dir.resolve("prometheus.yml"), "global: {scrape_interval: 1s, scrape_timeout: 900ms, evaluation_interval: 1s}\n"
                    + "rule_files: [rules.yaml]\n"
                    + "scrape_configs:\n"
                    + "  - job_name: demo\n"
                    + "    static_configs:\n"
                    + "      - targets: ['127.0.0.1:" + metrics + "']\n"
                    + "        labels: {pod: demo-0, namespace: test}\n");
            Process prom = new ProcessBuilder(prometheus.toString(), "--config.file=" + dir.resolve("prometheus.yml"),
                    "--storage.tsdb.path=" + dir.resolve("data"), "--web.listen-address=127.0.0.1:" + port,
                    "--log.level=warn").redirectErrorStream(true).redirectOutput(dir.resolve("prometheus.log").toFile()).start();
            String api = "http://127.0.0.1:" + port;
            try {
                await().atMost(START).ignoreExceptions().until(() -> get(api + "/-/ready").contains("Ready"));
                await().atMost(START).ignoreExceptions().until(() -> get(api + "/api/v1/targets").contains("\"health\":\"up\""));
                assertThat(firing(api)).as("nothing fires on a healthy demo").isEmpty();

                // the database blackholed and back, three times: its check times out, readiness flaps
                await().atMost(START).until(() -> Http.get(probe, "/readyz", PROBE_TIMEOUT).is(200));
                long t0 = System.nanoTime();
                for (int i = 0; i < 3; i++) {
                    proxy.mode(FaultProxy.Mode.BLACKHOLE);
                    await().atMost(Duration.ofSeconds(30)).until(() -> Http.get(probe, "/readyz", PROBE_TIMEOUT).is(503));
                    await().pollDelay(Duration.ofMillis(2000)).until(() -> true); // two scrapes: Prometheus sees it
                    proxy.mode(FaultProxy.Mode.FORWARD);
                    await().atMost(Duration.ofSeconds(30)).until(() -> Http.get(probe, "/readyz", PROBE_TIMEOUT).is(200));
                    await().pollDelay(Duration.ofMillis(2000)).until(() -> true);
                }
                long flapped = System.nanoTime();
                System.out.printf("PrometheusAlertsTest: 3 database cut-offs took %.1f s%n", (flapped - t0) / 1e9);
                // four 6 s exports on 2 workers, stalled after 2 s: the pool saturates and stalls
                List<CompletableFuture<HttpResponse<String>>> exports = new ArrayList<>();
                for (int i = 0; i < 4; i++) {
                    exports.add(http.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app
                            + "/reports/export?costCenter=CC-" + i)).timeout(Duration.ofSeconds(60)).GET().build(),
                            HttpResponse.BodyHandlers.ofString()));
                }

                List<String> expected = List.of("VitalsCheckTimingOut", "VitalsReadinessFlapping", "VitalsPoolStalled",
                        "VitalsPoolSaturated");
                List<Map<String, String>> seen = new ArrayList<>();
                await().atMost(FIRE).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
                    List<Map<String, String>> now = firing(api);
                    seen.addAll(now);
                    assertThat(seen).extracting(a -> a.get("alertname")).containsAll(expected);
                });
                assertThat(seen).filteredOn(a -> a.get("alertname").equals("VitalsCheckTimingOut"))
                        .allSatisfy(a -> assertThat(a).containsEntry("check", "database").containsEntry("severity", "warning")
                                .containsEntry("pod", "demo-0"));
                assertThat(seen).filteredOn(a -> a.get("alertname").equals("VitalsPoolStalled"))
                        .allSatisfy(a -> assertThat(a).containsEntry("pool", "workers-progress").containsEntry("severity", "critical"));
                assertThat(seen).filteredOn(a -> a.get("alertname").equals("VitalsReadinessFlapping"))
                        .allSatisfy(a -> assertThat(a).containsEntry("group", "readiness"));
                assertThat(seen).extracting(a -> a.get("summary")).contains("Vitals check database is timing out on pod demo-0",
                        "Pool workers-progress has stalled on pod demo-0");

                System.out.printf("PrometheusAlertsTest: timeout, flapping, stall and saturation alerts firing %.1f s after the "
                        + "cut-offs%n", (System.nanoTime() - flapped) / 1e9);
                for (CompletableFuture<HttpResponse<String>> e : exports) {
                    assertThat(e.get(60, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
                }
                await().atMost(RESOLVE).pollInterval(Duration.ofMillis(500)).untilAsserted(() ->
                        assertThat(active(api)).as("every alert resolved").isEmpty());
                System.out.printf("PrometheusAlertsTest: all resolved %.1f s after the cut-offs%n", (System.nanoTime() - flapped) / 1e9);

                // SIGTERM: the drain (15 s) outlasts the scaled 'for', then the process exits and the series go stale
                demo.sigterm();
                demo.awaitLine("vitals-demo draining:", Duration.ofSeconds(10));
                await().atMost(FIRE).pollInterval(Duration.ofMillis(500)).untilAsserted(() ->
                        assertThat(firing(api)).extracting(a -> a.get("alertname")).contains("VitalsDrainStuck"));
                assertThat(demo.awaitExit(Duration.ofSeconds(60))).as("demo exited").isPresent();
                await().atMost(RESOLVE).pollInterval(Duration.ofMillis(500)).untilAsserted(() ->
                        assertThat(active(api)).extracting(a -> a.get("alertname")).doesNotContain("VitalsDrainStuck"));
            } catch (AssertionError | RuntimeException e) {
                throw new AssertionError(e.getMessage() + "\nprometheus log:\n" + Files.readString(dir.resolve("prometheus.log"))
                        + "\ndemo stderr (tail):\n" + tail(demo.stderrText()), e);
            } finally {
                prom.destroy();
                if (!prom.waitFor(20, TimeUnit.SECONDS)) {
                    prom.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            }
        }
    }

    private static String tail(String s) {
        return s.length() <= 4000 ? s : s.substring(s.length() - 4000);
    }

    private String get(String url) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IOException(url + ": " + r.statusCode() + " " + r.body());
        }
        return r.body();
    }

    /** @return every alert Prometheus holds (pending and firing), as its labels plus "state" and "summary" */
    private List<Map<String, String>> active(String api) throws IOException, InterruptedException {
        JsonNode root = json.readTree(get(api + "/api/v1/alerts"));
        assertThat(root.path("status").asText()).isEqualTo("success");
        List<Map<String, String>> out = new ArrayList<>();
        for (JsonNode a : root.path("data").path("alerts")) {
            Map<String, String> m = new TreeMap<>();
            a.path("labels").fields().forEachRemaining(f -> m.put(f.getKey(), f.getValue().asText()));
            m.put("state", a.path("state").asText());
            m.put("summary", a.path("annotations").path("summary").asText());
            out.add(m);
        }
        return out;
    }

    private List<Map<String, String>> firing(String api) throws IOException, InterruptedException {
        List<Map<String, String>> out = new ArrayList<>();
        for (Map<String, String> a : active(api)) {
            if ("firing".equals(a.get("state"))) {
                out.add(a);
            }
        }
        return out;
    }
}
