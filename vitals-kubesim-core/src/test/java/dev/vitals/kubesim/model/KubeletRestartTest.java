package dev.vitals.kubesim.model;

import static dev.vitals.kubesim.model.ProbeType.LIVENESS;
import static dev.vitals.kubesim.model.ProbeType.READINESS;
import static dev.vitals.kubesim.model.ProbeType.STARTUP;
import static org.assertj.core.api.Assertions.assertThat;

import dev.vitals.kubesim.Rig;
import dev.vitals.kubesim.Simulation;
import dev.vitals.kubesim.probe.ScriptedProbes;
import dev.vitals.kubesim.scenario.Scenario;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A kubelet restart (scenario {@code kubelet-restart}), as kubernetes
 * {@code pkg/kubelet/prober/worker.go} (run: the start jitter of R15) and
 * {@code prober_manager.go} (setReadyStateOnKubeletRestart, isContainerStarted: R55) do it.
 */
class KubeletRestartTest {

    private static Rig run(PodSpec pod, String at, KubeletOptions opts) throws InterruptedException {
        Rig rig = new Rig();
        rig.result = Simulation.builder(pod).time(rig.time).runtime(rig.container).options(opts)
                .probeExecutor(new ScriptedProbes(rig.time, rig.container, (p, i, s, t) -> ScriptedProbes.ok()))
                .listener(rig.events::add).scenario(Scenario.parse("actions:\n  - at: " + at + "\n    kubelet-restart: true\n", "t"))
                .duration(Duration.ofSeconds(60)).build().run();
        return rig;
    }

    private static PodSpec pod() {
        return Rig.pod(Rig.probe(STARTUP, 0, 5, 10), Rig.probe(LIVENESS, 0, 10, 3), Rig.probe(READINESS, 0, 10, 1));
    }

    /** worker.go run: workers created right after the kubelet starts sleep a random part of their period first (R15). */
    @Test
    void workerGo_run_probesResumeAfterAStartJitterWithinOnePeriod() throws Exception {
        Rig rig = run(pod(), "30s", KubeletOptions.defaults());
        List<Double> readiness = rig.probeStarts(READINESS).stream().filter(t -> t > 30).toList();
        assertThat(readiness.get(0)).isGreaterThanOrEqualTo(30.0).isLessThan(40.0);
        // then every period from the jittered start
        assertThat(readiness.get(1) - readiness.get(0)).isCloseTo(10.0, org.assertj.core.api.Assertions.within(0.01));
        assertThat(rig.probeStarts(LIVENESS).stream().filter(t -> t > 30).findFirst().orElseThrow()).isLessThan(40.0);
        assertThat(rig.result.restarts()).isZero(); // the container does not restart with the kubelet
    }

    /** prober_manager.go setReadyStateOnKubeletRestart (1.35+): a container up for more than 10 s stays started and Ready. */
    @Test
    void proberManager_setReadyStateOnKubeletRestart_aLongRunningReadyContainerStaysReady() throws Exception {
        Rig rig = run(pod(), "30s", KubeletOptions.defaults());
        assertThat(rig.times(SimEvent.Type.NOT_READY)).isEmpty();
        assertThat(rig.times(SimEvent.Type.STARTED)).hasSize(1);
        assertThat(rig.of(e -> e.detail().contains("container status kept"))).hasSize(1);
    }

    /** Before 1.35 (or with ChangeContainerStatusOnKubeletRestart): results go back to their initial values (R24). */
    @Test
    void proberManager_beforeOneThirtyFive_resultsResetSoTheContainerIsNotReadyUntilProbedAgain() throws Exception {
        Rig rig = run(pod(), "30s", KubeletOptions.builder().keepStatusOnKubeletRestart(false).build());
        assertThat(rig.times(SimEvent.Type.NOT_READY)).containsExactly(30.0);
        List<Double> ready = rig.times(SimEvent.Type.READY);
        assertThat(ready).hasSize(2);
        assertThat(ready.get(1)).isGreaterThan(30.0).isLessThan(41.0); // startup, then readiness, after the jitter
        assertThat(rig.times(SimEvent.Type.STARTED)).hasSize(2);
    }

    /** R55: a container that started less than 10 s before the restart does not keep its status. */
    @Test
    void proberManager_aYoungContainerIsResetEvenOnOneThirtyFive() throws Exception {
        Rig rig = run(Rig.pod(Rig.probe(READINESS, 0, 2, 1)), "5s", KubeletOptions.defaults());
        assertThat(rig.times(SimEvent.Type.NOT_READY)).containsExactly(5.0);
        assertThat(rig.of(e -> e.detail().contains("results back to their initial values"))).hasSize(1);
        assertThat(rig.result.readyAt(Duration.ofSeconds(20))).isTrue();
    }
}
