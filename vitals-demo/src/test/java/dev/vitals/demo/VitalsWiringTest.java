package dev.vitals.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The Vitals wiring avoids the failures the naive wiring shows (in-process demo, real sockets, real H2 over TCP). */
class VitalsWiringTest {
    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(3);

    @Test
    void probesAnswerOnTheProbePortAndTheAppPortHasNoHealthEndpoint() throws Exception {
        try (DemoApp app = TestSupport.startInProcess("--export-min-ms", "50", "--export-max-ms", "100")) {
            int probe = app.probePort().getAsInt();
            assertThat(probe).isNotEqualTo(app.port());
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                assertThat(Http.get(probe, "/livez", PROBE_TIMEOUT).status).isEqualTo(200);
                assertThat(Http.get(probe, "/readyz", PROBE_TIMEOUT).status).isEqualTo(200);
                assertThat(Http.get(probe, "/startupz", PROBE_TIMEOUT).status).isEqualTo(200);
            });
            assertThat(Http.get(probe, "/livez?verbose", PROBE_TIMEOUT).body).contains("[+]deadlock ok", "[+]workers-progress ok",
                    "[+]scheduler-lag ok", "[+]app-listener ok", "[+]availability ok").doesNotContain("database");
            assertThat(Http.get(probe, "/readyz?verbose", PROBE_TIMEOUT).body).contains("[+]database ok", "[+]workers ok");
            assertThat(Http.get(app.port(), "/healthz", PROBE_TIMEOUT).status).isEqualTo(404);
            assertThat(Http.get(app.port(), "/orders/3", PROBE_TIMEOUT).status).isEqualTo(200);
            assertThat(app.readyLine()).matches("vitals-demo ready: wiring=vitals port=" + app.port() + " probe-port=" + probe
                    + " db-port=\\d+ workers=40 startup-ms=\\d+");
        }
    }

    // case C05 / C07: liveness needs no worker; saturation shows as DEGRADED information only
    @Test
    void livezStaysFastThroughFiftyExportsOnFortyWorkers() throws Exception {
        try (DemoApp app = TestSupport.startInProcess("--workers", "40", "--export-min-ms", "4000", "--export-max-ms", "8000")) {
            int probe = app.probePort().getAsInt();
            await().atMost(Duration.ofSeconds(10)).until(() -> Http.get(probe, "/readyz", PROBE_TIMEOUT).is(200));
            ExecutorService clients = Executors.newFixedThreadPool(50);
            try {
                List<Future<Http.Result>> exports = new ArrayList<>();
                for (int i = 0; i < 50; i++) {
                    String path = "/reports/export?costCenter=CC-" + (i + 1);
                    exports.add(clients.submit(() -> Http.get(app.port(), path, Duration.ofSeconds(60))));
                }
                await().atMost(Duration.ofSeconds(20)).until(() -> app.workers().getActiveCount() == 40
                        && app.workers().getQueue().size() >= 10);
                // readiness passes too: saturation is DEGRADED information, not a failure (read
                // while every worker is still busy: the saturation check samples on its interval)
                await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                    Http.Result ready = Http.get(probe, "/health/readiness", PROBE_TIMEOUT);
                    assertThat(ready.status).as("%s", ready).isEqualTo(200);
                    assertThat(ready.body).contains("\"workers\":{\"status\":\"DEGRADED\"");
                });

                // probe like kubelet every 250 ms for 5 s while every worker is busy and 10 exports wait
                long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                List<Http.Result> probes = new ArrayList<>();
                while (System.nanoTime() < end) {
                    probes.add(Http.get(probe, "/livez", PROBE_TIMEOUT));
                    Thread.sleep(250);
                }
                assertThat(probes).hasSizeGreaterThan(5).allSatisfy(r -> {
                    assertThat(r.status).as("%s", r).isEqualTo(200);
                    assertThat(r.elapsed).as("%s", r).isLessThan(Duration.ofSeconds(1));
                });

                Http.Result first = exports.get(0).get(30, TimeUnit.SECONDS);
                assertThat(first.status).as("first export: %s", first).isEqualTo(200);
            } finally {
                clients.shutdownNow();
            }
        }
    }

    // case C10: a database outage fails readiness only, never liveness
    @Test
    void databaseOutageFailsReadinessNotLivenessAndRecovers() throws Exception {
        int dbPort = TestSupport.freePort();
        try (FaultProxy proxy = new FaultProxy(0, dbPort)) {
            String name = TestSupport.uniqueDbName();
            try (DemoApp app = TestSupport.startInProcess("--db-port", Integer.toString(dbPort), "--db-name", name,
                    "--db-url", "jdbc:h2:tcp://127.0.0.1:" + proxy.port() + "/mem:" + name, "--check-interval-ms", "300")) {
                int probe = app.probePort().getAsInt();
                await().atMost(Duration.ofSeconds(10)).until(() -> Http.get(probe, "/readyz", PROBE_TIMEOUT).is(200));

                for (FaultProxy.Mode fault : new FaultProxy.Mode[] {FaultProxy.Mode.REJECT, FaultProxy.Mode.BLACKHOLE}) {
                    proxy.mode(fault);
                    await().atMost(Duration.ofSeconds(15)).untilAsserted(() ->
                            assertThat(Http.get(probe, "/readyz", PROBE_TIMEOUT).status).as("%s", fault).isEqualTo(503));
                    assertThat(Http.get(probe, "/readyz?verbose", PROBE_TIMEOUT).body).contains("[-]database failed: reason withheld");
                    for (int i = 0; i < 5; i++) {
                        Http.Result live = Http.get(probe, "/livez", PROBE_TIMEOUT);
                        assertThat(live.status).as("%s during %s", live, fault).isEqualTo(200);
                        Thread.sleep(200);
                    }
                    proxy.mode(FaultProxy.Mode.FORWARD);
                    await().atMost(Duration.ofSeconds(15)).untilAsserted(() ->
                            assertThat(Http.get(probe, "/readyz", PROBE_TIMEOUT).status).as("after %s", fault).isEqualTo(200));
                }
            }
        }
    }

    // case C01: on-demand checks run concurrently, so the report takes about the slowest, not the sum
    @Test
    void tenOnDemandChecksOfOneSecondAnswerInAboutOneSecond() throws Exception {
        try (DemoApp app = TestSupport.startInProcess("--synthetic-checks", "10", "--synthetic-latency-ms", "1000",
                "--check-mode", "on-demand", "--check-timeout-ms", "3000")) {
            int probe = app.probePort().getAsInt();
            await().atMost(Duration.ofSeconds(10)).until(() -> Http.get(probe, "/livez", PROBE_TIMEOUT).is(200));
            Thread.sleep(1_200); // past the 1 s result cache of the warm-up
            Http.Result r = Http.get(probe, "/health/readiness", Duration.ofSeconds(10));
            assertThat(r.status).as("%s", r).isEqualTo(200);
            assertThat(r.body).contains("\"synthetic-1\":{\"status\":\"UP\"", "\"synthetic-10\":{\"status\":\"UP\"");
            assertThat(r.elapsed).as("%s", r).isGreaterThanOrEqualTo(Duration.ofMillis(900)).isLessThan(Duration.ofMillis(4_000));
        }
    }
}
