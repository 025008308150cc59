package dev.vitals.agent;

import static dev.vitals.agent.AgentProcess.get;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The demo's naive wiring with the agent attached, as real child JVMs on loopback, under the
 * application's faults: a deadlock and a stalled worker pool turn {@code /livez} DOWN, a pool that
 * is saturated but completing work does not. (Split from {@link AgentDemoIT}: failsafe runs the
 * two classes in two forks at once.)
 */
class AgentDemoFaultsIT {
    private static final Duration BOOT = Duration.ofSeconds(90);

    @Test
    void applicationDeadlockMakesLivezDown() throws Exception {
        try (AgentProcess demo = AgentProcess.demo("deadlock", "drain-delay=1s,details=always,deadlock-interval=1s", "--chaos")) {
            int probes = demo.probePort();
            int app = demo.demoPort();
            await().atMost(BOOT).until(() -> get(probes, "/livez").status == 200);
            AgentProcess.fireAndForget(app, "POST", "/chaos/deadlock-workers");
            await().atMost(Duration.ofSeconds(60)).until(() -> get(probes, "/livez").status == 503);
            assertThat(get(probes, "/livez?verbose").body).contains("[-]jvm failed: deadlock: 2 threads");
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
}
