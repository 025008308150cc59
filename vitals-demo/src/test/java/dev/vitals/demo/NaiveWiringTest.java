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

/** The naive wiring reproduces the failures of DESIGN.md section 1 (in-process demo, real sockets, real H2 over TCP). */
class NaiveWiringTest {
    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(3);

    @Test
    void routesAnswerWithTheDatabase() throws Exception {
        try (DemoApp app = TestSupport.startInProcess("--wiring", "naive", "--export-min-ms", "50", "--export-max-ms", "100")) {
            int port = app.port();
            assertThat(Http.get(port, "/healthz", PROBE_TIMEOUT).status).isEqualTo(200);
            Http.Result order = Http.get(port, "/orders/7", PROBE_TIMEOUT);
            assertThat(order.status).isEqualTo(200);
            assertThat(order.body).contains("\"id\":7", "\"customer\":\"customer-8\"");
            assertThat(Http.get(port, "/orders/100000", PROBE_TIMEOUT).status).isEqualTo(404);
            assertThat(Http.get(port, "/orders/abc", PROBE_TIMEOUT).status).isEqualTo(400);
            assertThat(Http.post(port, "/orders/7", PROBE_TIMEOUT).status).isEqualTo(405);

            Http.Result export = Http.post(port, "/reports/export?costCenter=CC-12", PROBE_TIMEOUT);
            assertThat(export.status).isEqualTo(200);
            assertThat(export.body).startsWith("costCenter,name,known,budgetCents,heldMs,checksum\nCC-12,Cost center 12,true,12000000,");
            assertThat(Http.get(port, "/reports/export?costCenter=nope", PROBE_TIMEOUT).body).contains("nope,unknown,false,0,");
            assertThat(Http.get(port, "/reports/export", PROBE_TIMEOUT).status).isEqualTo(400);
            assertThat(Http.get(port, "/reports/export?costCenter=a%20b", PROBE_TIMEOUT).status).isEqualTo(400);
            assertThat(Http.request("DELETE", port, "/reports/export?costCenter=CC-1", PROBE_TIMEOUT).status).isEqualTo(405);
            assertThat(Http.get(port, "/livez", PROBE_TIMEOUT).status).isEqualTo(404);
            // the chaos routes do not exist without --chaos
            assertThat(Http.post(port, "/chaos/deadlock-workers", PROBE_TIMEOUT).status).isEqualTo(404);
            assertThat(app.readyLine()).matches("vitals-demo ready: wiring=naive port=" + port
                    + " probe-port=none db-port=\\d+ workers=40 startup-ms=\\d+");
        }
    }

    @Test
    void exportHoldsAWorkerForASeededTimeWithinTheBounds() throws Exception {
        try (DemoApp app = TestSupport.startInProcess("--wiring", "naive", "--export-min-ms", "300", "--export-max-ms", "600")) {
            for (int i = 0; i < 3; i++) {
                Http.Result r = Http.get(app.port(), "/reports/export?costCenter=CC-1", Duration.ofSeconds(10));
                assertThat(r.status).isEqualTo(200);
                long heldMs = Long.parseLong(r.body.split("\n")[1].split(",")[4]);
                assertThat(heldMs).isBetween(300L, 2_000L); // upper bound generous: a loaded machine oversleeps
            }
        }
    }

    // case C05 / C07: the probe waits in the worker queue behind the burst, and times out
    @Test
    void healthzTimesOutWhileFiftyExportsHoldFortyWorkers() throws Exception {
        try (DemoApp app = TestSupport.startInProcess("--wiring", "naive", "--workers", "40", "--export-min-ms", "4000",
                "--export-max-ms", "8000")) {
            ExecutorService clients = Executors.newFixedThreadPool(50);
            try {
                List<Future<Http.Result>> exports = new ArrayList<>();
                for (int i = 0; i < 50; i++) {
                    String path = "/reports/export?costCenter=CC-" + (i + 1);
                    exports.add(clients.submit(() -> Http.get(app.port(), path, Duration.ofSeconds(60))));
                }
                await().atMost(Duration.ofSeconds(20)).until(() -> app.workers().getActiveCount() == 40
                        && app.workers().getQueue().size() >= 10);

                Http.Result probe = Http.get(app.port(), "/healthz", PROBE_TIMEOUT);
                assertThat(probe.timedOut).as("naive /healthz during the burst: %s", probe).isTrue();

                // the service was healthy all along: the exports complete
                Http.Result first = exports.get(0).get(30, TimeUnit.SECONDS);
                assertThat(first.status).as("first export: %s", first).isEqualTo(200);
            } finally {
                clients.shutdownNow();
            }
        }
    }

    // case C10: the database in the one probe turns a database outage into restarts
    @Test
    void healthzFailsWhenTheDatabaseIsUnreachableAndRecovers() throws Exception {
        int dbPort = TestSupport.freePort();
        try (FaultProxy proxy = new FaultProxy(0, dbPort)) {
            String name = TestSupport.uniqueDbName();
            try (DemoApp app = TestSupport.startInProcess("--wiring", "naive", "--db-port", Integer.toString(dbPort),
                    "--db-name", name, "--db-url", "jdbc:h2:tcp://127.0.0.1:" + proxy.port() + "/mem:" + name)) {
                assertThat(app.dbPort()).isEqualTo(dbPort);
                assertThat(Http.get(app.port(), "/healthz", PROBE_TIMEOUT).status).isEqualTo(200);

                proxy.mode(FaultProxy.Mode.REJECT);
                await().atMost(Duration.ofSeconds(15)).untilAsserted(() ->
                        assertThat(Http.get(app.port(), "/healthz", PROBE_TIMEOUT).status).isEqualTo(503));
                assertThat(Http.get(app.port(), "/orders/1", PROBE_TIMEOUT).status).isEqualTo(503);

                proxy.mode(FaultProxy.Mode.FORWARD);
                await().atMost(Duration.ofSeconds(15)).untilAsserted(() ->
                        assertThat(Http.get(app.port(), "/healthz", PROBE_TIMEOUT).status).isEqualTo(200));

                // a blackholed database (a peer that stops answering) is bounded too: 503, not a hung worker
                proxy.mode(FaultProxy.Mode.BLACKHOLE);
                await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
                    Http.Result r = Http.get(app.port(), "/healthz", Duration.ofSeconds(10));
                    assertThat(r.status).as("%s", r).isEqualTo(503);
                });
                proxy.mode(FaultProxy.Mode.FORWARD);
                await().atMost(Duration.ofSeconds(15)).untilAsserted(() ->
                        assertThat(Http.get(app.port(), "/healthz", PROBE_TIMEOUT).status).isEqualTo(200));
            }
        }
    }
}
