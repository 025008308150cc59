package dev.vitals.kubesim.model;

import static dev.vitals.kubesim.model.ProbeType.LIVENESS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.vitals.kubesim.Rig;
import dev.vitals.kubesim.probe.ScriptedProbes;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A container's own restartPolicy and restartPolicyRules (KEP-5307), as the kubelet applies
 * them: pkg/api/v1/pod/util.go ContainerShouldRestart (and its TestContainerShouldRestart) after
 * an exit; kuberuntime_manager.go computePodActions after a probe kill (container policy only).
 */
class ContainerRestartTest {
    private static final ContainerRestart NEVER_BUT_42 = new ContainerRestart(Optional.of(RestartPolicy.NEVER),
            List.of(new ContainerRestart.Rule("Restart", true, Set.of(42))));

    @Test
    void testContainerShouldRestart_rulesFirstThenTheContainersPolicyThenThePods() {
        assertThat(NEVER_BUT_42.restartsAfterExit(RestartPolicy.ALWAYS, 42)).isTrue(); // rule matched
        assertThat(NEVER_BUT_42.restartsAfterExit(RestartPolicy.ALWAYS, 1)).isFalse(); // container Never
        ContainerRestart notIn = new ContainerRestart(Optional.of(RestartPolicy.NEVER),
                List.of(new ContainerRestart.Rule("Restart", false, Set.of(0, 143))));
        assertThat(notIn.restartsAfterExit(RestartPolicy.NEVER, 1)).isTrue();
        assertThat(notIn.restartsAfterExit(RestartPolicy.NEVER, 0)).isFalse();
        ContainerRestart onFailure = new ContainerRestart(Optional.of(RestartPolicy.ON_FAILURE), List.of());
        assertThat(onFailure.restartsAfterExit(RestartPolicy.NEVER, 3)).isTrue();
        assertThat(onFailure.restartsAfterExit(RestartPolicy.ALWAYS, 0)).isFalse();
        assertThat(ContainerRestart.NONE.restartsAfterExit(RestartPolicy.ON_FAILURE, 0)).isFalse(); // the pod's
        assertThat(ContainerRestart.NONE.restartsAfterExit(RestartPolicy.ALWAYS, 0)).isTrue();
    }

    @Test
    void computePodActions_aProbeKillReadsTheContainersPolicyNotItsRules() {
        // the case: restartPolicy Never on the container, liveness kills it once, it never comes back,
        // although the pod says Always and a rule restarts exit 137
        ContainerRestart never137 = new ContainerRestart(Optional.of(RestartPolicy.NEVER),
                List.of(new ContainerRestart.Rule("Restart", true, Set.of(137, 143))));
        assertThat(never137.restartsAfterProbeKill(RestartPolicy.ALWAYS)).isFalse();
        assertThat(new ContainerRestart(Optional.of(RestartPolicy.ALWAYS), List.of()).restartsAfterProbeKill(RestartPolicy.NEVER))
                .isTrue();
        Rig rig = new Rig();
        PodSpec pod = Rig.pod(Rig.probe(LIVENESS, 0, 1, 1)).withContainerRestart(never137);
        rig.run(pod, 30, (p, i, s, t) -> ScriptedProbes.fail());
        assertThat(rig.of(e -> e.type() == SimEvent.Type.KILL)).hasSize(1);
        assertThat(rig.of(e -> e.type() == SimEvent.Type.KILL).get(0).detail()).doesNotContain("will be restarted");
        assertThat(rig.of(e -> e.type() == SimEvent.Type.START)).hasSize(1);
        assertThat(rig.result.restarts()).isZero();
    }

    @Test
    void containerShouldRestart_anExitMatchingARestartRuleRestartsUnderAPolicyOfNever() {
        Rig rig = new Rig();
        rig.container.crashAfter(i -> i <= 2 ? Duration.ofSeconds(2) : null, 42);
        PodSpec pod = Rig.pod().with(RestartPolicy.NEVER, 30).withContainerRestart(NEVER_BUT_42);
        rig.run(pod, 60, (p, i, s, t) -> ScriptedProbes.ok());
        assertThat(rig.result.restarts()).isEqualTo(2);
        Rig other = new Rig();
        other.container.crashAfter(i -> Duration.ofSeconds(2), 1);
        other.run(pod, 60, (p, i, s, t) -> ScriptedProbes.ok());
        assertThat(other.result.restarts()).isZero(); // exit 1 matches no rule: the container's Never
    }
}
