package dev.vitals.kubesim.model;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vitals.kubesim.Rig;
import dev.vitals.kubesim.probe.ScriptedProbes;
import dev.vitals.kubesim.runtime.ScriptedContainer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Lifecycle hooks as the kubelet runs them: kubelet pkg/kubelet/kuberuntime/kuberuntime_container.go
 * {@code startContainer} (step 4: postStart), {@code killContainer} and {@code executePreStopHook}
 * (preStop before the stop signal, its whole seconds taken from the grace period,
 * {@code minimumGracePeriodInSeconds} = 2). Virtual time; {@code sleep} hooks run on it, exec hooks
 * answer from a script here (the real ones: ProberTest).
 */
class LifecycleHookTest {
    private final VirtualTime time = new VirtualTime();
    private final ScriptedContainer container = new ScriptedContainer(time);
    private final List<SimEvent> events = new ArrayList<>();
    private final List<String> hooksRun = new ArrayList<>();

    private static final Lifecycle.Hook FAILING_EXEC = new Lifecycle.Handler(new ProbeHandler.Exec(List.of("false")));

    private Kubelet kubelet(PodSpec pod) {
        ScriptedProbes probes = new ScriptedProbes(time, container, (p, i, s, t) -> ScriptedProbes.ok());
        ProbeExecutor exec = new ProbeExecutor() {
            @Override
            public void execute(ProbeSpec probe, int instance, Consumer<ProbeOutcome> done) {
                probes.execute(probe, instance, done);
            }

            @Override
            public Optional<String> runHook(ProbeHandler handler, int instance, Duration limit) {
                hooksRun.add(handler.describe());
                return Optional.of("command 'false' exited with 1");
            }
        };
        Kubelet k = new Kubelet(pod, KubeletOptions.defaults(), time, container, exec, events::add);
        k.start();
        return k;
    }

    private void at(double seconds) {
        time.awaitUntil(Math.round(seconds * 1e9));
    }

    private Optional<SimEvent> first(SimEvent.Type type, String text) {
        return events.stream().filter(e -> e.type() == type && e.detail().contains(text)).findFirst();
    }

    private static PodSpec pod(long grace, Optional<Lifecycle.Hook> postStart, Optional<Lifecycle.Hook> preStop) {
        return Rig.pod(Rig.probe(ProbeType.LIVENESS, 0, 1, 3)).with(RestartPolicy.ALWAYS, grace)
                .withLifecycle(new Lifecycle(postStart, preStop));
    }

    @Test
    void killContainer_preStopRunsBeforeSigtermAndItsSecondsComeOffTheGracePeriod() {
        container.ignoreTerm();
        Kubelet k = kubelet(pod(30, Optional.empty(), Optional.of(new Lifecycle.Sleep(10))));
        at(1);
        k.deletePod(Optional.empty());
        at(10.5); // the hook still sleeps: no SIGTERM yet, the instance runs
        assertThat(k.state()).isEqualTo(ContainerState.TERMINATING);
        assertThat(first(SimEvent.Type.HOOK, "preStop hook over")).isEmpty();
        at(12); // hook over at 11: SIGTERM, SIGKILL after 30 - 10 = 20 s
        assertThat(first(SimEvent.Type.HOOK, "preStop hook over after 10s: 20s of the grace period left")).isPresent();
        at(30.5);
        assertThat(k.state()).isEqualTo(ContainerState.TERMINATING);
        at(32);
        assertThat(k.state()).isEqualTo(ContainerState.EXITED);
        SimEvent exit = first(SimEvent.Type.EXIT, "exit code 137").orElseThrow();
        assertThat(exit.at().toNanos() / 1e9).isBetween(31.0, 31.1); // 1.01 + 10 + 20: preStop and SIGTERM within the 30 s
    }

    @Test
    void killContainer_preStopThatUsedTheWholeGracePeriodStillGivesMinimumGracePeriodInSeconds() {
        container.ignoreTerm();
        Kubelet k = kubelet(pod(5, Optional.empty(), Optional.of(new Lifecycle.Sleep(5))));
        at(1);
        k.deletePod(Optional.empty());
        at(10);
        assertThat(first(SimEvent.Type.HOOK, "0s of the grace period left")).isPresent();
        assertThat(first(SimEvent.Type.ACTION, "grace period of 2s over: SIGKILL")).isPresent();
        SimEvent exit = first(SimEvent.Type.EXIT, "exit code 137").orElseThrow();
        assertThat(exit.at().toNanos() / 1e9).isBetween(8.0, 8.1); // 1.01 + 5 (hook) + 2 (minimum)
        assertThat(k.state()).isEqualTo(ContainerState.EXITED);
    }

    @Test
    void executePreStopHook_failureIsFailedPreStopHookAndTheKillGoesOn() {
        container.exitAfterTerm(Duration.ofSeconds(3));
        Kubelet k = kubelet(pod(30, Optional.empty(), Optional.of(FAILING_EXEC)));
        at(1);
        k.deletePod(Optional.empty());
        at(5);
        assertThat(hooksRun).containsExactly("exec false");
        assertThat(first(SimEvent.Type.HOOK, "FailedPreStopHook")).isPresent();
        SimEvent exit = first(SimEvent.Type.EXIT, "exit code 143").orElseThrow();
        assertThat(exit.at().toNanos() / 1e9).isBetween(4.0, 4.1); // SIGTERM at once after the failed hook, exit 3 s later
        assertThat(k.state()).isEqualTo(ContainerState.EXITED);
    }

    /**
     * executePreStopHook stops waiting at the grace period ("PreStop hook not completed in grace period", a
     * V(2) log line) and records no event then; FailedPreStopHook comes only from the hook's own goroutine
     * when Run returns an error. A 20 s sleep under a 5 s grace period: no FailedPreStopHook, SIGTERM at the
     * deadline, SIGKILL 2 s later (minimumGracePeriodInSeconds).
     */
    @Test
    void executePreStopHook_aHookPastTheGracePeriodIsNoFailedPreStopHook() {
        container.ignoreTerm();
        Kubelet k = kubelet(pod(5, Optional.empty(), Optional.of(new Lifecycle.Sleep(20))));
        at(1);
        k.deletePod(Optional.empty());
        at(30);
        SimEvent late = first(SimEvent.Type.HOOK, "preStop hook not completed in the grace period of 5s").orElseThrow();
        assertThat(late.at().toNanos() / 1e9).isBetween(6.0, 6.1);
        assertThat(first(SimEvent.Type.HOOK, "FailedPreStopHook")).isEmpty();
        SimEvent exit = first(SimEvent.Type.EXIT, "exit code 137").orElseThrow();
        assertThat(exit.at().toNanos() / 1e9).isBetween(8.0, 8.1); // 1.01 + 5 + 2
    }

    @Test
    void startContainer_postStartHoldsTheContainerOutOfRunningSoNoProbeRuns() {
        Kubelet k = kubelet(pod(30, Optional.of(new Lifecycle.Sleep(5)), Optional.empty()));
        at(4);
        assertThat(k.state()).isEqualTo(ContainerState.STARTING);
        assertThat(events).noneMatch(e -> e.type() == SimEvent.Type.PROBE);
        assertThat(k.instanceToShutDown()).isPresent(); // the process runs and is shut down at the end
        at(7);
        assertThat(k.state()).isEqualTo(ContainerState.RUNNING);
        assertThat(first(SimEvent.Type.HOOK, "postStart hook sleep 5s completed")).isPresent();
        assertThat(events).anyMatch(e -> e.type() == SimEvent.Type.PROBE && e.at().toNanos() / 1e9 > 5);
    }

    @Test
    void startContainer_failedPostStartHookKillsTheContainerAndItIsRestartedPerPolicy() {
        container.exitAfterTerm(Duration.ofSeconds(1));
        Kubelet k = kubelet(pod(30, Optional.of(FAILING_EXEC), Optional.of(new Lifecycle.Sleep(2))));
        at(0.5);
        assertThat(first(SimEvent.Type.HOOK, "FailedPostStartHook")).isPresent();
        assertThat(first(SimEvent.Type.KILL, "FailedPostStartHook (preStop hook sleep 2s first")).isPresent(); // killContainer runs preStop
        at(4);
        assertThat(first(SimEvent.Type.EXIT, "exit code 143")).isPresent();
        assertThat(k.restartCount()).isEqualTo(1); // Always: a non-zero exit restarts (ContainerShouldRestart)
        assertThat(events).noneMatch(e -> e.type() == SimEvent.Type.PROBE); // never Running

    }

    @Test
    void startContainer_failedPostStartHookUnderNeverIsNotRestarted() {
        container.exitAfterTerm(Duration.ofSeconds(1));
        Kubelet k = kubelet(pod(30, Optional.of(FAILING_EXEC), Optional.empty()).with(RestartPolicy.NEVER, 30));
        at(3);
        assertThat(k.state()).isEqualTo(ContainerState.EXITED);
        assertThat(k.restartCount()).isZero();
    }
}
