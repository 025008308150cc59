package dev.vitals.kubesim.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.vitals.kubesim.Rig;
import dev.vitals.kubesim.probe.ScriptedProbes;
import dev.vitals.kubesim.runtime.ScriptedContainer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * Pods of several containers on virtual time, held against the kubelet's own tests in
 * kubernetes {@code pkg/kubelet/kuberuntime/kuberuntime_manager_test.go} (which container
 * the next sync starts) and {@code pkg/kubelet/status/generate_test.go} (ContainersReady).
 */
class PodKubeletTest {
    private final VirtualTime time = new VirtualTime();
    private final List<SimEvent> events = new ArrayList<>();

    private PodKubelet.Member member(String name, PodKubelet.Role role, ScriptedContainer c, RestartPolicy policy,
            ScriptedProbes.Script script, ProbeSpec... probes) {
        PodSpec spec = Rig.pod(probes);
        spec = new PodSpec(name, Map.of(), spec.startup(), spec.liveness(), spec.readiness(), policy, 30);
        return new PodKubelet.Member(spec, role, c, new ScriptedProbes(time, c, script));
    }

    private List<Double> starts(String container) {
        return times(e -> e.type() == SimEvent.Type.START && e.detail().startsWith("[" + container + "]"));
    }

    private List<Double> times(Predicate<SimEvent> p) {
        return events.stream().filter(p).map(e -> dev.vitals.kubesim.model.Durations.seconds(e.at())).toList();
    }

    private PodKubelet run(List<PodKubelet.Member> members, double seconds) {
        PodKubelet pod = new PodKubelet(members, KubeletOptions.defaults(), time, events::add);
        pod.start();
        time.advance(Duration.ofMillis(Math.round(seconds * 1000)));
        pod.stop();
        return pod;
    }

    /** kuberuntime_manager_test.go TestComputePodActionsWithInitContainers: one init container at a time, then the app. */
    @Test
    void kuberuntimeManagerTest_TestComputePodActionsWithInitContainers_initContainersRunInOrderThenTheApp() {
        ScriptedContainer init1 = new ScriptedContainer(time).crashAfter(Duration.ofSeconds(3), 0);
        ScriptedContainer init2 = new ScriptedContainer(time).crashAfter(Duration.ofSeconds(2), 0);
        ScriptedContainer app = new ScriptedContainer(time);
        PodKubelet pod = run(List.of(
                member("migrate", PodKubelet.Role.INIT, init1, RestartPolicy.ALWAYS, (p, i, s, t) -> ScriptedProbes.ok()),
                member("warm", PodKubelet.Role.INIT, init2, RestartPolicy.ALWAYS, (p, i, s, t) -> ScriptedProbes.ok()),
                member("app", PodKubelet.Role.REGULAR, app, RestartPolicy.ALWAYS, (p, i, s, t) -> ScriptedProbes.ok(),
                        Rig.probe(ProbeType.READINESS, 0, 5, 1))), 20);
        assertThat(starts("migrate")).containsExactly(0.01);
        assertThat(starts("warm")).singleElement().satisfies(t -> assertThat(t).isCloseTo(3.01, within(0.001)));
        assertThat(starts("app")).singleElement().satisfies(t -> assertThat(t).isCloseTo(5.01, within(0.001)));
        assertThat(pod.container("migrate").state()).isEqualTo(ContainerState.EXITED); // exit 0: not restarted
        assertThat(pod.ready()).isTrue();
    }

    /** kuberuntime_manager_test.go TestComputePodActionsWithInitContainers, "initialization failed": restart with back-off; the app waits. */
    @Test
    void kuberuntimeManagerTest_TestComputePodActionsWithInitContainers_aFailedInitContainerIsRestartedAndTheAppWaits() {
        ScriptedContainer init = new ScriptedContainer(time).crashAfter(Duration.ofSeconds(1), 1);
        ScriptedContainer app = new ScriptedContainer(time);
        PodKubelet pod = run(List.of(
                member("migrate", PodKubelet.Role.INIT, init, RestartPolicy.ALWAYS, (p, i, s, t) -> ScriptedProbes.ok()),
                member("app", PodKubelet.Role.REGULAR, app, RestartPolicy.ALWAYS, (p, i, s, t) -> ScriptedProbes.ok())), 40);
        // exits 1 at 1 s (restart now), 2 s (back-off 10 s → 12 s), 13 s (20 s → 33 s)
        assertThat(starts("migrate")).hasSize(4);
        assertThat(starts("app")).isEmpty();
        assertThat(pod.ready()).isFalse();
    }

    /** With restartPolicy Never a failed init container fails the pod: nothing else starts. */
    @Test
    void kuberuntimeManagerTest_TestComputePodActionsWithInitContainers_neverPolicyFailsThePod() {
        ScriptedContainer init = new ScriptedContainer(time).crashAfter(Duration.ofSeconds(1), 2);
        ScriptedContainer app = new ScriptedContainer(time);
        PodKubelet pod = run(List.of(
                member("migrate", PodKubelet.Role.INIT, init, RestartPolicy.NEVER, (p, i, s, t) -> ScriptedProbes.ok()),
                member("app", PodKubelet.Role.REGULAR, app, RestartPolicy.NEVER, (p, i, s, t) -> ScriptedProbes.ok())), 30);
        assertThat(starts("migrate")).hasSize(1);
        assertThat(starts("app")).isEmpty();
        assertThat(pod.container("migrate").state()).isEqualTo(ContainerState.EXITED);
    }

    /**
     * kuberuntime_manager_test.go TestComputePodActionsWithRestartableInitContainers: the app
     * starts once the sidecar is started (its startup probe succeeded); a sidecar is restarted
     * even under restartPolicy Never, with its own probes.
     */
    @Test
    void kuberuntimeManagerTest_TestComputePodActionsWithRestartableInitContainers() {
        ScriptedContainer proxy = new ScriptedContainer(time).crashAfter(i -> i == 1 ? Duration.ofSeconds(30) : null, 1);
        ScriptedContainer app = new ScriptedContainer(time);
        PodKubelet pod = run(List.of(
                member("proxy", PodKubelet.Role.SIDECAR, proxy, RestartPolicy.NEVER,
                        (p, i, s, t) -> s >= 4 ? ScriptedProbes.ok() : ScriptedProbes.fail(),
                        Rig.probe(ProbeType.STARTUP, 0, 2, 10), Rig.probe(ProbeType.READINESS, 0, 2, 1)),
                member("app", PodKubelet.Role.REGULAR, app, RestartPolicy.NEVER, (p, i, s, t) -> ScriptedProbes.ok(),
                        Rig.probe(ProbeType.READINESS, 0, 2, 1))), 45);
        // the sidecar starts at 0.01 s; its startup probe passes at the tick after 4 s (6 s)
        assertThat(starts("proxy").get(0)).isEqualTo(0.01);
        assertThat(starts("app")).singleElement().satisfies(t -> assertThat(t).isCloseTo(6.001, within(0.01)));
        assertThat(starts("proxy")).hasSize(2); // crashed at 30 s and was restarted despite Never
        assertThat(pod.container("app").state()).isEqualTo(ContainerState.RUNNING);
    }

    /**
     * generate_test.go TestGenerateContainersReadyCondition: ContainersReady needs every
     * regular container and every sidecar ready; several regular containers have their own
     * probes and their own kills.
     */
    @Test
    void generateTest_TestGenerateContainersReadyCondition_sidecarsAndEveryRegularContainerCount() {
        ScriptedContainer proxy = new ScriptedContainer(time);
        ScriptedContainer web = new ScriptedContainer(time);
        ScriptedContainer worker = new ScriptedContainer(time);
        PodKubelet pod = run(List.of(
                member("proxy", PodKubelet.Role.SIDECAR, proxy, RestartPolicy.ALWAYS,
                        (p, i, s, t) -> t >= 20 && t < 30 ? ScriptedProbes.fail() : ScriptedProbes.ok(),
                        Rig.probe(ProbeType.READINESS, 0, 1, 1)),
                member("web", PodKubelet.Role.REGULAR, web, RestartPolicy.ALWAYS, (p, i, s, t) -> ScriptedProbes.ok(),
                        Rig.probe(ProbeType.READINESS, 0, 1, 1)),
                member("worker", PodKubelet.Role.REGULAR, worker, RestartPolicy.ALWAYS,
                        (p, i, s, t) -> p.type() == ProbeType.LIVENESS && i == 1 && t >= 40 ? ScriptedProbes.fail()
                                : ScriptedProbes.ok(),
                        Rig.probe(ProbeType.LIVENESS, 0, 1, 3))), 60);
        List<Double> ready = times(e -> e.type() == SimEvent.Type.READY);
        List<Double> notReady = times(e -> e.type() == SimEvent.Type.NOT_READY);
        assertThat(ready.get(0)).isLessThan(1.0);
        assertThat(notReady.get(0)).isCloseTo(20.0, within(1.1)); // the sidecar's readiness fails: the pod is not ready
        assertThat(ready.get(1)).isCloseTo(30.0, within(1.1));
        // the worker's liveness kills only the worker
        assertThat(times(e -> e.type() == SimEvent.Type.KILL && e.detail().startsWith("[worker]"))).hasSize(1);
        assertThat(times(e -> e.type() == SimEvent.Type.KILL && !e.detail().startsWith("[worker]"))).isEmpty();
        assertThat(pod.container("worker").restartCount()).isEqualTo(1);
        assertThat(pod.container("web").restartCount()).isZero();
    }

    @Test
    void badPodsAreClearErrors() {
        ScriptedContainer c = new ScriptedContainer(time);
        assertThatThrownBy(() -> new PodKubelet(List.of(member("i", PodKubelet.Role.INIT, c, RestartPolicy.ALWAYS,
                (p, i, s, t) -> ScriptedProbes.ok())), KubeletOptions.defaults(), time, events::add))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("regular container");
        assertThatThrownBy(() -> member("i", PodKubelet.Role.INIT, c, RestartPolicy.ALWAYS, (p, i, s, t) -> ScriptedProbes.ok(),
                Rig.probe(ProbeType.LIVENESS, 0, 1, 1))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("R12");
    }

    private double first(SimEvent.Type type, String container) {
        return times(e -> e.type() == type && e.detail().startsWith("[" + container + "]")).get(0);
    }

    /**
     * kuberuntime_termination_order.go (terminationOrdering.waitForTurn) and killContainer: on deletion every
     * container is killed at once (one Killing event each), the regular container's SIGTERM comes at once, and
     * each sidecar's SIGTERM waits for its turn (the regular containers and the later sidecars exited), with
     * what is left of the grace period.
     */
    @Test
    void terminationOrdering_sidecarsStopAfterTheRegularContainersInReverseOrder() {
        ScriptedContainer proxy = new ScriptedContainer(time).exitAfterTerm(Duration.ofSeconds(1));
        ScriptedContainer logs = new ScriptedContainer(time).exitAfterTerm(Duration.ofSeconds(3));
        ScriptedContainer app = new ScriptedContainer(time).exitAfterTerm(Duration.ofSeconds(5));
        deletedAt10(java.util.Optional.empty(),
                member("proxy", PodKubelet.Role.SIDECAR, proxy, RestartPolicy.ALWAYS, (p, i, s, t) -> ScriptedProbes.ok()),
                member("logs", PodKubelet.Role.SIDECAR, logs, RestartPolicy.ALWAYS, (p, i, s, t) -> ScriptedProbes.ok()),
                member("app", PodKubelet.Role.REGULAR, app, RestartPolicy.ALWAYS, (p, i, s, t) -> ScriptedProbes.ok()));
        // killContainersWithSyncResult: one goroutine per container, each records Killing first
        assertThat(first(SimEvent.Type.KILL, "app")).isCloseTo(10, within(0.01));
        assertThat(first(SimEvent.Type.KILL, "logs")).isCloseTo(10, within(0.01));
        assertThat(first(SimEvent.Type.KILL, "proxy")).isCloseTo(10, within(0.01));
        assertThat(first(SimEvent.Type.EXIT, "app")).isCloseTo(15, within(0.01));
        assertThat(turn("logs")).isCloseTo(15, within(0.01)); // after app, before proxy
        assertThat(first(SimEvent.Type.EXIT, "logs")).isCloseTo(18, within(0.01));
        assertThat(turn("proxy")).isCloseTo(18, within(0.01));
        assertThat(first(SimEvent.Type.EXIT, "proxy")).isCloseTo(19, within(0.01));
        // the remaining grace: 30 s less the 8 s proxy waited for its turn
        assertThat(detail(SimEvent.Type.ACTION, "proxy", "its turn")).contains("after 8s: SIGTERM, SIGKILL after 22s");
        assertThat(starts("proxy")).hasSize(1); // a deleted pod's sidecar is not restarted
    }

    /**
     * The sidecar preStop vector (issue 38). Pod grace 30 s; sidecar {@code proxy} with a 3 s preStop sleep,
     * exits 1 s after SIGTERM; regular {@code app} without a hook, exits 5 s after SIGTERM; deleted at t = 10 s.
     * kubelet (kuberuntime_container.go killContainersWithSyncResult starts killContainer for every container
     * at once; killContainer: "gracePeriod = gracePeriod - m.executePreStopHook(...)", then "gracePeriod -=
     * int64(ordering.waitForTurn(containerName, gracePeriod))", then "if gracePeriod &lt;
     * minimumGracePeriodInSeconds"): proxy's hook runs 10–13 s (27 s left); app exits at 15 s; proxy's turn
     * at 15 s after waiting 2 s (25 s left): SIGTERM at 15 s, exit at 16 s. Before: the whole stop of the
     * sidecar waited for its turn, hook 15–18 s (5 s late), SIGTERM at 18 s (3 s late).
     */
    @Test
    void killContainersWithSyncResult_aSidecarsPreStopStartsAtDeletionNotAtItsTurn() {
        ScriptedContainer proxy = new ScriptedContainer(time).exitAfterTerm(Duration.ofSeconds(1));
        ScriptedContainer app = new ScriptedContainer(time).exitAfterTerm(Duration.ofSeconds(5));
        PodKubelet.Member sidecar = member("proxy", PodKubelet.Role.SIDECAR, proxy, RestartPolicy.ALWAYS,
                (p, i, s, t) -> ScriptedProbes.ok());
        sidecar = new PodKubelet.Member(sidecar.spec().withLifecycle(new Lifecycle(java.util.Optional.empty(),
                java.util.Optional.of(new Lifecycle.Sleep(3)))), sidecar.role(), sidecar.runtime(), sidecar.prober());
        deletedAt10(java.util.Optional.empty(),
                sidecar,
                member("app", PodKubelet.Role.REGULAR, app, RestartPolicy.ALWAYS, (p, i, s, t) -> ScriptedProbes.ok()));
        assertThat(first(SimEvent.Type.KILL, "proxy")).isCloseTo(10, within(0.01));
        assertThat(first(SimEvent.Type.KILL, "app")).isCloseTo(10, within(0.01));
        assertThat(times(e -> e.type() == SimEvent.Type.HOOK && e.detail().startsWith("[proxy] preStop hook over after 3s: 27s")))
                .singleElement().satisfies(t -> assertThat(t).isCloseTo(13, within(0.01))); // began at 10
        assertThat(first(SimEvent.Type.EXIT, "app")).isCloseTo(15, within(0.01));
        assertThat(turn("proxy")).isCloseTo(15, within(0.01));
        assertThat(detail(SimEvent.Type.ACTION, "proxy", "its turn")).contains("after 2s: SIGTERM, SIGKILL after 25s");
        assertThat(first(SimEvent.Type.EXIT, "proxy")).isCloseTo(16, within(0.01));
        assertThat(events).noneMatch(e -> e.detail().contains("FailedPreStopHook"));
    }

    /**
     * waitForTurn waits at most what is left of the grace period: a regular container that ignores SIGTERM
     * holds its sidecar until the grace period is over; the sidecar then gets minimumGracePeriodInSeconds (2 s).
     */
    @Test
    void waitForTurn_aSidecarWaitsAtMostTheGracePeriodThenGetsTwoSeconds() {
        ScriptedContainer proxy = new ScriptedContainer(time).ignoreTerm();
        ScriptedContainer app = new ScriptedContainer(time).ignoreTerm();
        deletedAt10(java.util.Optional.of(Duration.ofSeconds(6)),
                member("proxy", PodKubelet.Role.SIDECAR, proxy, RestartPolicy.ALWAYS, (p, i, s, t) -> ScriptedProbes.ok()),
                member("app", PodKubelet.Role.REGULAR, app, RestartPolicy.ALWAYS, (p, i, s, t) -> ScriptedProbes.ok()));
        assertThat(first(SimEvent.Type.EXIT, "app")).isCloseTo(16, within(0.01)); // SIGKILL after the 6 s
        assertThat(turn("proxy")).isCloseTo(16, within(0.01));
        assertThat(detail(SimEvent.Type.ACTION, "proxy", "SIGTERM")).contains("after 6s: SIGTERM, SIGKILL after 2s");
        assertThat(first(SimEvent.Type.EXIT, "proxy")).isCloseTo(18, within(0.01));
    }

    /** Runs the pod, deletes it at t = 10 s (with {@code grace}, else the pod's 30 s) and runs it to t = 40 s. */
    private void deletedAt10(java.util.Optional<Duration> grace, PodKubelet.Member... members) {
        PodKubelet pod = new PodKubelet(List.of(members), KubeletOptions.defaults(), time, events::add);
        pod.start();
        time.schedule(Duration.ofSeconds(10).toNanos(), () -> pod.deletePod(grace));
        time.advance(Duration.ofSeconds(40));
        pod.stop();
    }

    private double turn(String container) {
        return times(e -> e.type() == SimEvent.Type.ACTION && e.detail().startsWith("[" + container + "]")
                && e.detail().contains("SIGTERM, SIGKILL after")).get(0);
    }

    private String detail(SimEvent.Type type, String container, String text) {
        return events.stream().filter(e -> e.type() == type && e.detail().startsWith("[" + container + "]")
                && e.detail().contains(text)).findFirst().orElseThrow().detail();
    }

    /** computePodActions: a Never pod whose regular containers completed is killed; its sidecars stop, in order, and stay stopped. */
    @Test
    void computePodActions_aNeverPodsSidecarsStopOnceItsRegularContainersComplete() {
        ScriptedContainer proxy = new ScriptedContainer(time).exitAfterTerm(Duration.ofSeconds(1));
        ScriptedContainer job = new ScriptedContainer(time).crashAfter(Duration.ofSeconds(5), 0);
        PodKubelet pod = run(List.of(
                member("proxy", PodKubelet.Role.SIDECAR, proxy, RestartPolicy.NEVER, (p, i, s, t) -> ScriptedProbes.ok()),
                member("job", PodKubelet.Role.REGULAR, job, RestartPolicy.NEVER, (p, i, s, t) -> ScriptedProbes.ok())), 60);
        double done = first(SimEvent.Type.EXIT, "job");
        assertThat(first(SimEvent.Type.KILL, "proxy")).isCloseTo(done, within(0.01));
        assertThat(first(SimEvent.Type.EXIT, "proxy")).isCloseTo(done + 1, within(0.01));
        assertThat(starts("proxy")).hasSize(1);
        assertThat(pod.container("proxy").state()).isEqualTo(ContainerState.EXITED);
    }
}
