package dev.vitals.kubesim.model;

import static dev.vitals.kubesim.model.ProbeType.LIVENESS;
import static dev.vitals.kubesim.model.ProbeType.STARTUP;
import static org.assertj.core.api.Assertions.assertThat;

import dev.vitals.kubesim.Rig;
import dev.vitals.kubesim.Simulation;
import dev.vitals.kubesim.probe.ScriptedProbes;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * kubernetes#141155 (kubelet 1.35–1.37): after a liveness kill the replacement container inherits
 * {@code Started} from the previous one's status (kubelet_pods.go convertToAPIContainerStatuses, by
 * container name, as kubernetes#141179 states the root cause), so liveness runs before the startup
 * probe succeeded. The app answers 10 s after each start; instance 1 turns unhealthy 30 s in.
 */
class StartupGatingRegressionTest {

    private static Rig run(KubeletOptions opts) throws InterruptedException {
        Rig rig = new Rig();
        PodSpec pod = Rig.pod(Rig.probe(STARTUP, 0, 1, 30), Rig.probe(LIVENESS, 0, 1, 3));
        rig.result = Simulation.builder(pod).time(rig.time).runtime(rig.container).options(opts)
                .probeExecutor(new ScriptedProbes(rig.time, rig.container, (p, instance, sinceInstance, t) ->
                        sinceInstance < 10 || (instance == 1 && sinceInstance > 30) ? ScriptedProbes.fail() : ScriptedProbes.ok()))
                .listener(rig.events::add).duration(Duration.ofSeconds(90)).build().run();
        return rig;
    }

    @Test
    void theDocumentedRuleGatesTheReplacementsLivenessOnItsStartupProbe() throws Exception {
        Rig rig = run(KubeletOptions.defaults());
        assertThat(rig.result.restarts()).isEqualTo(1); // instance 2 starts in 10 s under its startup probe's cover
        double second = rig.times(SimEvent.Type.START).get(1);
        assertThat(rig.probeStarts(LIVENESS).stream().filter(t -> t > second).findFirst().orElseThrow())
                .as("liveness waits for the startup probe").isGreaterThanOrEqualTo(second + 10);
    }

    @Test
    void withTheRegressionTheReplacementIsProbedForLivenessAtOnceAndKilledInALoop() throws Exception {
        Rig rig = run(KubeletOptions.builder().startedInheritedOnContainerRestart(true).build());
        double second = rig.times(SimEvent.Type.START).get(1);
        assertThat(rig.probeStarts(LIVENESS).stream().filter(t -> t > second).findFirst().orElseThrow())
                .as("liveness runs before the startup probe succeeded").isLessThan(second + 2);
        assertThat(rig.of(e -> e.detail().contains("kubernetes#141155"))).isNotEmpty();
        assertThat(rig.result.restarts()).as("each replacement is killed before its 10 s start is over").isGreaterThanOrEqualTo(3);
    }

    @Test
    void theAffectedReleasesAreOneThirtyFiveToOneThirtySeven() {
        assertThat(KubernetesVersion.parse("1.34").startupGatingRegression()).isFalse();
        assertThat(KubernetesVersion.parse("1.35").startupGatingRegression()).isTrue();
        assertThat(KubernetesVersion.parse("1.36").startupGatingRegression()).isTrue();
        assertThat(KubernetesVersion.parse("v1.37.1").startupGatingRegression()).isTrue();
        assertThat(KubernetesVersion.NEWEST).hasToString("1.37");
        assertThat(KubernetesVersion.NEWEST.startupGatingRegression()).as("the default: the documented rules").isFalse();
    }
}
