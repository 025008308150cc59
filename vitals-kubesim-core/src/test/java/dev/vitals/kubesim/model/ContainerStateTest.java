package dev.vitals.kubesim.model;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vitals.kubesim.Rig;
import dev.vitals.kubesim.probe.ScriptedProbes;
import dev.vitals.kubesim.runtime.ScriptedContainer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The rows of the state table in docs/DESIGN.md §7.1a, observed on {@link Kubelet#state()}. */
class ContainerStateTest {
    private final VirtualTime time = new VirtualTime();
    private final ScriptedContainer container = new ScriptedContainer(time);
    private final List<SimEvent> events = new ArrayList<>();

    private Kubelet kubelet(PodSpec pod, ScriptedProbes.Script script) {
        Kubelet k = new Kubelet(pod, KubeletOptions.defaults(), time, container, new ScriptedProbes(time, container, script),
                events::add);
        k.start();
        return k;
    }

    private void at(double seconds) {
        time.awaitUntil(Math.round(seconds * 1e9));
    }

    @Test
    void crashLoop_waitingStartingRunningBackOff() {
        container.crashAfter(Duration.ofSeconds(1), 1);
        Kubelet k = kubelet(Rig.pod(), (p, i, s, t) -> ScriptedProbes.ok());
        assertThat(k.state()).isEqualTo(ContainerState.WAITING); // R14: workers first, the container 10 ms later
        at(0.5);
        assertThat(k.state()).isEqualTo(ContainerState.RUNNING);
        at(1.5); // exited at 1.01, restarted at once (first crash, R49)
        assertThat(k.state()).isEqualTo(ContainerState.RUNNING);
        assertThat(k.restartCount()).isEqualTo(1);
        at(5); // exited at 2.01: waits 10 s (R49)
        assertThat(k.state()).isEqualTo(ContainerState.BACK_OFF);
        at(12.5);
        assertThat(k.state()).isEqualTo(ContainerState.RUNNING);
        assertThat(k.restartCount()).isEqualTo(2);
    }

    @Test
    void livenessKill_runningTerminatingThenRestarted() {
        container.exitAfterTerm(Duration.ofSeconds(3));
        Kubelet k = kubelet(Rig.pod(Rig.probe(ProbeType.LIVENESS, 0, 1, 1)),
                (p, i, s, t) -> i == 1 && t >= 5 ? ScriptedProbes.fail() : ScriptedProbes.ok());
        at(4.5);
        assertThat(k.state()).isEqualTo(ContainerState.RUNNING);
        at(6.5); // Failure verdict at 5.0x: SIGTERM, the instance takes 3 s to exit
        assertThat(k.state()).isEqualTo(ContainerState.TERMINATING);
        assertThat(k.currentInstance()).isPresent(); // R40: still there while terminating
        at(9); // exited at 8.0x; first exit, so restarted at once (R50)
        assertThat(k.state()).isEqualTo(ContainerState.RUNNING);
        assertThat(k.restartCount()).isEqualTo(1);
    }

    @Test
    void neverAndDeletion_exited() {
        container.crashAfter(Duration.ofSeconds(1), 0);
        Kubelet k = kubelet(Rig.pod().with(RestartPolicy.ON_FAILURE, 30), (p, i, s, t) -> ScriptedProbes.ok());
        at(2);
        assertThat(k.state()).isEqualTo(ContainerState.EXITED); // exit 0 under OnFailure: terminal (R42)
        Kubelet waiting = new Kubelet(Rig.pod(), KubeletOptions.defaults(), time, new ScriptedContainer(time),
                new ScriptedProbes(time, container, (p, i, s, t) -> ScriptedProbes.ok()), events::add);
        waiting.deletePod(Optional.empty());
        assertThat(waiting.state()).isEqualTo(ContainerState.EXITED); // deleted before it ran (R53)
    }

    /**
     * §7.1a's moves as data: every state's allowed next states, and nothing leaves EXITED. The model
     * assigns its state only through a check of this table (a move outside it is a model bug that throws).
     */
    @Test
    void theAllowedMovesAreTheDesignTable() {
        java.util.Map<ContainerState, java.util.Set<ContainerState>> expected = java.util.Map.of(
                ContainerState.WAITING, java.util.Set.of(ContainerState.STARTING, ContainerState.EXITED),
                ContainerState.STARTING, java.util.Set.of(ContainerState.RUNNING),
                ContainerState.RUNNING, java.util.Set.of(ContainerState.TERMINATING, ContainerState.BACK_OFF, ContainerState.EXITED),
                ContainerState.TERMINATING, java.util.Set.of(ContainerState.BACK_OFF, ContainerState.EXITED),
                ContainerState.BACK_OFF, java.util.Set.of(ContainerState.STARTING, ContainerState.EXITED),
                ContainerState.EXITED, java.util.Set.of());
        for (ContainerState from : ContainerState.values()) {
            for (ContainerState to : ContainerState.values()) {
                assertThat(from.canMoveTo(to)).as(from + " → " + to).isEqualTo(expected.get(from).contains(to));
            }
        }
    }

    /** A postStart hook keeps the instance in STARTING (no move to RUNNING and back), then RUNNING when it returns. */
    @Test
    void postStart_staysStartingUntilTheHookReturns() {
        Kubelet k = kubelet(Rig.pod().withLifecycle(new Lifecycle(Optional.of(new Lifecycle.Sleep(3)), Optional.empty())),
                (p, i, s, t) -> ScriptedProbes.ok());
        at(1);
        assertThat(k.state()).isEqualTo(ContainerState.STARTING);
        assertThat(k.currentInstance()).isEmpty();
        assertThat(k.instanceToShutDown()).isPresent(); // the spawned instance whose hook runs
        at(3.5);
        assertThat(k.state()).isEqualTo(ContainerState.RUNNING);
        assertThat(events.stream().filter(e -> e.type() == SimEvent.Type.START).count()).isEqualTo(1);
    }
}
