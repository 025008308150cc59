package dev.vitals.agent;

import static dev.vitals.agent.AgentProcess.get;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The demo's naive wiring (no probe code at all: {@code /healthz} on the application's worker
 * pool) with the agent attached, as real child JVMs on loopback.
 */
class AgentDemoIT {
    private static final Duration BOOT = Duration.ofSeconds(90);

    @Test
    void naiveDemoGetsIsolatedProbesAndReadinessFromItsOwnHealthz() throws Exception {
        try (AgentProcess demo = AgentProcess.demo("naive", "drain-delay=1s,details=always")) {
            int probes = demo.probePort();
            demo.demoPort();
            await().atMost(BOOT).until(() -> get(probes, "/readyz").status == 200);
            assertThat(get(probes, "/readyz?verbose").body).contains("[+]app ok", "readyz check passed");
            assertThat(get(probes, "/startupz").status).isEqualTo(200);
            AgentProcess.Answer live = get(probes, "/livez?verbose");
            assertThat(live.status).isEqualTo(200);
            assertThat(live.body).contains("[+]jvm ok", "[+]availability ok");
            // The jvm check runs every second: the application's ports show once it has run after they were found.
            await().atMost(Duration.ofSeconds(30)).until(() -> get(probes, "/health/liveness").body.contains("\"listener "));
            assertThat(get(probes, "/health/liveness").body).contains("\"deadlock\":\"UP\"", "\"workers\":\"UP\"");
            assertThat(get(probes, "/health/readiness").body).contains("/healthz");
            assertThat(demo.output()).contains("readiness from http://127.0.0.1:").doesNotContain("Exception");
            assertOnlyTheAgentsTwoThreads(demo);
        }
    }

    @Test
    void hungFrameworkCheckLeavesReadyzAnsweringFromMemory() throws Exception {
        try (AgentProcess demo = AgentProcess.demo("hung", "drain-delay=1s,details=always,readiness-timeout=500ms,readiness-interval=1s",
                "--hung-check")) {
            int probes = demo.probePort();
            demo.demoPort();
            // The endpoint found and its call timing out (on a loaded machine a detection call can
            // time out first: "looking for the health endpoint: timed out ...").
            await().atMost(BOOT).until(() -> get(probes, "/readyz?verbose").body.contains("[-]app failed: timed out after 500 ms"));
            assertAnsweredFromMemory(probes, "/readyz?verbose", 503, "[-]app failed: timed out after 500 ms");
            // One call in flight: later polls wait on the same connection.
            await().atMost(Duration.ofSeconds(30)).until(() -> get(probes, "/readyz?verbose").body.contains("one call in flight"));
            assertThat(get(probes, "/livez").status).isEqualTo(200);
            assertOnlyTheAgentsTwoThreads(demo);
        }
    }

    /**
     * Issue 37: the agent's threads are the floor, its probe loop and Vitals' scheduler, which
     * runs both checks (the readiness poll with non-blocking sockets, even while a call hangs): no
     * check thread. Its start-up thread has ended.
     */
    private static void assertOnlyTheAgentsTwoThreads(AgentProcess demo) {
        Assumptions.assumeTrue(java.nio.file.Files.isDirectory(java.nio.file.Paths.get("/proc/self/task")), "Linux: /proc");
        // comm keeps 15 characters: "vitals-schedule(r)"
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                assertThat(demo.threadNames("vitals-")).as("the agent's threads").containsExactly("vitals-probe-1", "vitals-schedule"));
    }

    @Test
    void slowFrameworkCheckLeavesReadyzAnsweringFromMemory() throws Exception {
        try (AgentProcess demo = AgentProcess.demo("slow", "drain-delay=1s,details=always,readiness-timeout=500ms,readiness-interval=1s",
                "--synthetic-checks", "1", "--synthetic-latency-ms", "3000")) {
            int probes = demo.probePort();
            demo.demoPort();
            // The endpoint found and its call timing out (on a loaded machine a detection call can
            // time out first: "looking for the health endpoint: timed out ...").
            await().atMost(BOOT).until(() -> get(probes, "/readyz?verbose").body.contains("[-]app failed: timed out after 500 ms"));
            assertAnsweredFromMemory(probes, "/readyz?verbose", 503, "[-]app failed: timed out after 500 ms");
            assertThat(get(probes, "/livez").status).isEqualTo(200);
        }
    }

    @Test
    void applicationDeadlockMakesLivezDown() throws Exception {
        try (AgentProcess demo = AgentProcess.demo("deadlock", "drain-delay=1s,details=always,deadlock-interval=1s", "--chaos")) {
            int probes = demo.probePort();
            int app = demo.demoPort();
            await().atMost(BOOT).until(() -> get(probes, "/livez").status == 200);
            AgentProcess.fireAndForget(app, "POST", "/chaos/deadlock-workers");
            await().atMost(Duration.ofSeconds(60)).until(() -> get(probes, "/livez").status == 503);
            // the two workers in the cycle, and any thread blocked behind them (a request or the agent's readiness poll
            // reaching the demo's locked code), which the JVM reports as deadlocked too: at least 2
            assertThat(get(probes, "/livez?verbose").body).containsPattern("\\[-\\]jvm failed: deadlock: [2-9] threads");
        }
    }

    @Test
    void stalledWorkerPoolWithWaitingWorkMakesLivezDownWhileCompletingWorkStaysUp() throws Exception {
        try (AgentProcess demo = AgentProcess.demo("stall", "drain-delay=1s,details=always,stall-after=4s",
                "--workers", "2", "--export-min-ms", "1000", "--export-max-ms", "1000")) {
            int probes = demo.probePort();
            int app = demo.demoPort();
            await().atMost(BOOT).until(() -> get(probes, "/livez").status == 200);
            // Saturated but completing: 2 workers, 1 s exports, 6 waiting at a time, for 8 s.
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(8);
            List<Integer> seen = Collections.synchronizedList(new ArrayList<>());
            while (System.nanoTime() < end) {
                for (int i = 0; i < 2; i++) {
                    AgentProcess.fireAndForget(app, "GET", "/reports/export?costCenter=CC-" + i);
                }
                seen.add(get(probes, "/livez").status);
                Thread.sleep(1000);
            }
            assertThat(seen).as("liveness while the pool is saturated but completing").containsOnly(200);
        }
        try (AgentProcess demo = AgentProcess.demo("stall2", "drain-delay=1s,details=always,stall-after=4s",
                "--workers", "2", "--export-min-ms", "600000", "--export-max-ms", "600000", "--stall-after-ms", "700000")) {
            int probes = demo.probePort();
            int app = demo.demoPort();
            await().atMost(BOOT).until(() -> get(probes, "/livez").status == 200);
            for (int i = 0; i < 4; i++) { // 2 running forever, 2 waiting
                AgentProcess.fireAndForget(app, "GET", "/reports/export?costCenter=CC-" + i);
            }
            await().atMost(Duration.ofSeconds(60)).until(() -> get(probes, "/livez").status == 503);
            assertThat(get(probes, "/livez?verbose").body)
                    .contains("[-]jvm failed: pool 'demo-worker-*': stalled: no task completed for");
        }
    }

    @Test
    void sigtermFailsReadinessFirstWhileLivenessStaysUp() throws Exception {
        try (AgentProcess demo = AgentProcess.demo("drain", "drain-delay=6s")) {
            int probes = demo.probePort();
            int app = demo.demoPort();
            await().atMost(BOOT).until(() -> get(probes, "/readyz").status == 200);
            demo.process.toHandle().destroy(); // SIGTERM
            await().atMost(Duration.ofSeconds(5)).until(() -> get(probes, "/readyz").status == 503);
            assertThat(get(probes, "/livez").status).isEqualTo(200);
            assertThat(get(app, "/orders/1").status).as("the application still serves while draining").isNotEqualTo(-1);
            assertThat(demo.process.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(demo.output()).contains("SIGTERM: readiness fails for 6000 ms before shutdown", "vitals-demo stopped");
        }
    }

    @Test
    void aSecondSigtermWhileDrainingShutsDownNowAndDrainsOnce() throws Exception {
        // A fresh user's finding: a second SIGTERM logged the drain and waited its delay again.
        try (AgentProcess demo = AgentProcess.demo("drain-twice", "drain-delay=60s")) {
            int probes = demo.probePort();
            await().atMost(BOOT).until(() -> get(probes, "/readyz").status == 200);
            demo.process.toHandle().destroy(); // SIGTERM
            await().atMost(Duration.ofSeconds(5)).until(() -> get(probes, "/readyz").status == 503);
            long t0 = System.nanoTime();
            demo.process.toHandle().destroy(); // SIGTERM again
            assertThat(demo.process.waitFor(30, TimeUnit.SECONDS)).as("stopped well before the 60 s drain").isTrue();
            assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0)).isLessThan(30);
            String out = demo.output();
            assertThat(out.split("SIGTERM: readiness fails for", -1)).as("one drain line").hasSize(2);
            assertThat(out).contains("SIGTERM again while draining: shutting down now", "vitals-demo stopped");
        }
    }

    @Test
    void badOptionStopsTheJvmWithOneLine() throws Exception {
        try (AgentProcess bad = AgentProcess.start("bad-option", "port=9090,readiness-timout=1s", List.of(), AgentProcess.DEMO,
                "--wiring", "naive", "--port", "0")) {
            assertThat(bad.process.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(bad.process.exitValue()).isEqualTo(2);
            assertThat(bad.output().strip()).startsWith("vitals-agent: unknown option 'readiness-timout' (agent arguments)")
                    .doesNotContain("\n").doesNotContain("vitals-demo");
        }
        try (AgentProcess bad = AgentProcess.start("bad-property", "", List.of("-Dvitals.agent.drain-delay=soon"), AgentProcess.DEMO,
                "--wiring", "naive", "--port", "0")) {
            assertThat(bad.process.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(bad.process.exitValue()).isEqualTo(2);
            assertThat(bad.output().strip()).isEqualTo("vitals-agent: option 'drain-delay' (system property "
                    + "vitals.agent.drain-delay): expected a duration such as 500ms, 2s or 1m, was 'soon'");
        }
    }

    /** 21 probes in a row: every one well under the framework's hang, the median under 50 ms. */
    private static void assertAnsweredFromMemory(int port, String path, int status, String bodyPart) {
        List<Long> times = new ArrayList<>();
        for (int i = 0; i < 21; i++) {
            AgentProcess.Answer a = get(port, path);
            assertThat(a.status).as(a.toString()).isEqualTo(status);
            assertThat(a.body).contains(bodyPart);
            times.add(a.millis);
        }
        Collections.sort(times);
        System.out.println(path + " answer times (ms, sorted): " + times);
        assertThat(times.get(10)).as("median of " + times).isLessThan(50);
        assertThat(times.get(20)).as("slowest of " + times).isLessThan(2000);
    }
}
