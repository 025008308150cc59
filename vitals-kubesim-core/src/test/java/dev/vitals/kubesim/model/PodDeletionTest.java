package dev.vitals.kubesim.model;

import static dev.vitals.kubesim.model.ProbeType.LIVENESS;
import static dev.vitals.kubesim.model.ProbeType.READINESS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.vitals.kubesim.Rig;
import dev.vitals.kubesim.Simulation;
import dev.vitals.kubesim.probe.ScriptedProbes;
import dev.vitals.kubesim.result.SimulationResult;
import dev.vitals.kubesim.scenario.Scenario;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Pod deletion (R53) as the kubelet does it: {@code SyncTerminatingPod} calls the prober
 * manager's {@code StopLivenessAndStartup} (kubernetes {@code pkg/kubelet/prober/prober_manager.go};
 * {@code prober_manager_test.go} covers it with the manager's worker bookkeeping), so probes
 * cannot kill during graceful shutdown, while readiness keeps probing and keeps setting Ready
 * until the container has stopped; nothing restarts.
 */
class PodDeletionTest {

    private static SimulationResult run(Rig rig, PodSpec pod, String scenario, ScriptedProbes.Script script)
            throws InterruptedException {
        rig.result = Simulation.builder(pod).time(rig.time).runtime(rig.container)
                .probeExecutor(new ScriptedProbes(rig.time, rig.container, script)).listener(rig.events::add)
                .scenario(Scenario.parse(scenario, "test")).duration(Duration.ofSeconds(15)).build().run();
        return rig.result;
    }

    /** prober_manager.go StopLivenessAndStartup: liveness stops at deletion, readiness runs until the exit. */
    @Test
    void proberManager_StopLivenessAndStartup_readinessContinuesUntilTheContainerExits() throws Exception {
        Rig rig = new Rig();
        rig.container.exitAfterTerm(Duration.ofSeconds(3));
        // liveness fails from 5 s on: without R53 it would kill (failureThreshold 1)
        SimulationResult r = run(rig, Rig.pod(Rig.probe(LIVENESS, 0, 1, 1), Rig.probe(READINESS, 0, 1, 1)).with(RestartPolicy.ALWAYS, 30),
                "actions:\n  - at: 5s\n    delete: true\n",
                (p, i, s, t) -> p.type() == LIVENESS && t >= 5 ? ScriptedProbes.fail() : ScriptedProbes.ok());
        assertThat(rig.typed(SimEvent.Type.KILL)).singleElement()
                .satisfies(k -> assertThat(k.detail()).contains("pod deleted").contains("SIGKILL after 30s"));
        assertThat(rig.times(SimEvent.Type.KILL)).containsExactly(5.0);
        assertThat(rig.probes(LIVENESS)).allSatisfy(e -> assertThat(e.at().toNanos() / 1e9).isLessThanOrEqualTo(5.0));
        assertThat(rig.probes(READINESS).stream().filter(e -> e.at().toNanos() / 1e9 > 5.0 && e.at().toNanos() / 1e9 < 8.0)).hasSizeGreaterThanOrEqualTo(2);
        assertThat(rig.times(SimEvent.Type.EXIT)).containsExactly(8.0);
        assertThat(rig.times(SimEvent.Type.NOT_READY)).containsExactly(8.0); // Ready until the container stopped
        assertThat(rig.times(SimEvent.Type.START)).hasSize(1); // not restarted, whatever the policy
        assertThat(r.restarts()).isZero();
        assertThat(rig.probes(READINESS)).allSatisfy(e -> assertThat(e.at().toNanos() / 1e9).isLessThanOrEqualTo(8.0));
    }

    /** Found by QA: simulate's default expectation "no kill by a probe" failed on a pod deletion's stop. */
    @Test
    void aDeletionIsNoKillByAProbeInTheDefaultVerdict() throws Exception {
        Rig rig = new Rig();
        rig.container.exitAfterTerm(Duration.ofSeconds(1));
        SimulationResult r = run(rig, Rig.pod(Rig.probe(LIVENESS, 0, 1, 3), Rig.probe(READINESS, 0, 1, 1)),
                "actions:\n  - at: 5s\n    delete: true\n", (p, i, s, t) -> ScriptedProbes.ok());
        assertThat(rig.typed(SimEvent.Type.KILL)).hasSize(1);
        assertThat(r.kills()).as("a deletion's stop is not a kill by a probe").isZero();
        assertThat(r.killsAt()).isEmpty();
        assertThat(dev.vitals.kubesim.report.Verdict.defaults(r, 5.0).get(0))
                .satisfies(c -> assertThat(c.passed()).as(c.actual()).isTrue());
    }

    /** R43 (1) and R44: a deletion grace period overrides the pod's, never below 2 s; SIGKILL ends a TERM-ignoring container. */
    @Test
    void deletionGracePeriodWinsButNeverBelowTwoSeconds() throws Exception {
        Rig rig = new Rig();
        rig.container.ignoreTerm();
        run(rig, Rig.pod(Rig.probe(READINESS, 0, 1, 1)), "actions:\n  - at: 4s\n    delete: 1s\n",
                (p, i, s, t) -> ScriptedProbes.ok());
        assertThat(rig.typed(SimEvent.Type.KILL)).singleElement()
                .satisfies(k -> assertThat(k.detail()).contains("SIGKILL after 2s"));
        assertThat(rig.typed(SimEvent.Type.EXIT)).singleElement().satisfies(e -> {
            assertThat(e.at().toNanos() / 1e9).isEqualTo(6.0);
            assertThat(e.detail()).contains("137");
        });
    }

    /** A pod deleted while its container waits in CrashLoopBackOff is not restarted (R53). */
    @Test
    void deletionDuringBackOffRestartsNothing() throws Exception {
        Rig rig = new Rig();
        rig.container.crashAfter(Duration.ofSeconds(1), 1);
        run(rig, Rig.pod(Rig.probe(READINESS, 0, 1, 1)), "actions:\n  - at: 3s\n    delete: true\n",
                (p, i, s, t) -> ScriptedProbes.ok());
        // crashes at 1 s (restart at once), 2 s (back-off 10 s): deleted at 3 s while waiting
        assertThat(rig.times(SimEvent.Type.START)).hasSize(2);
        assertThat(rig.typed(SimEvent.Type.BACKOFF)).hasSize(1);
    }
}
