package dev.vitals.kubesim.runtime;

import dev.vitals.kubesim.Rig;
import dev.vitals.kubesim.Simulation;
import dev.vitals.kubesim.Targets;
import dev.vitals.kubesim.model.PodSpec;
import dev.vitals.kubesim.model.ProbeHandler;
import dev.vitals.kubesim.model.ProbeResult;
import dev.vitals.kubesim.model.ProbeSpec;
import dev.vitals.kubesim.model.ProbeType;
import dev.vitals.kubesim.model.SimEvent;
import dev.vitals.kubesim.report.Reports;
import dev.vitals.kubesim.result.SimulationResult;
import dev.vitals.kubesim.scenario.Scenario;

import static dev.vitals.kubesim.model.ProbeType.LIVENESS;
import static dev.vitals.kubesim.model.ProbeType.READINESS;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The simulator against a real child process: a scripted HTTP target that answers 200, then
 * 500, then hangs, then refuses, on a timetable. Restart and Ready times must match the rules
 * within one period (P = 1 s here), whatever the JVM start-up time of the target.
 */
class RealProcessTest {
    private static final double PERIOD = 1.0;
    private static final double SLACK = 0.6; // scheduling and probe time on a loaded machine

    private static ProbeSpec http(ProbeType t, int port, String path, int failure, OptionalLong grace) {
        return new ProbeSpec(t, new ProbeHandler.HttpGet(Optional.empty(), ProbeHandler.PortRef.of(port), path, "HTTP", List.of()),
                0, 1, 1, 1, failure, grace);
    }

    private static List<SimEvent> of(List<SimEvent> events, SimEvent.Type type) {
        return events.stream().filter(e -> e.type() == type).collect(Collectors.toList());
    }

    private static List<SimEvent> probes(List<SimEvent> events, ProbeType t) {
        return events.stream().filter(e -> e.type() == SimEvent.Type.PROBE && e.probe().get() == t).collect(Collectors.toList());
    }

    @Test
    void readinessFollowsTheTimetableWithinOnePeriodAndNothingRestarts() throws Exception {
        int port = Targets.freePort();
        PodSpec pod = PodSpec.of("app", Map.of(), Optional.empty(), Optional.empty(),
                Optional.of(http(READINESS, port, "/readyz", 1, OptionalLong.empty())));
        List<SimEvent> events = new CopyOnWriteArrayList<>();
        SimulationResult r = Simulation.builder(pod).command(Targets.command(port, "200:3,500:2,hang:2.5,refuse:2,200"))
                .duration(Duration.ofSeconds(14)).listener(events::add).build().run();
        assertThat(r.restarts()).isZero();
        List<SimEvent> probes = probes(events, READINESS);
        // every Ready transition is the probe result just before it, and comes within one period of the
        // last probe with the opposite result (R25 with ST = FT = 1, P = 1)
        for (SimEvent change : of(events, SimEvent.Type.NOT_READY)) {
            SimEvent cause = lastProbeAtOrBefore(probes, change.at().toNanos() / 1e9);
            assertThat(cause.result().get().counted()).isEqualTo(ProbeResult.FAILURE);
            SimEvent lastOk = lastProbeWith(probes, change.at().toNanos() / 1e9, ProbeResult.SUCCESS);
            assertThat(cause.at().toNanos() / 1e9 - cause.latency().get().toNanos() / 1e9 - (lastOk.at().toNanos() / 1e9 - lastOk.latency().get().toNanos() / 1e9))
                    .isLessThanOrEqualTo(PERIOD + SLACK);
        }
        assertThat(of(events, SimEvent.Type.READY)).as(events.stream().map(Reports::line).collect(Collectors.joining("\n"))).hasSize(2);
        assertThat(of(events, SimEvent.Type.NOT_READY)).hasSize(1);
        double notReadyAt = of(events, SimEvent.Type.NOT_READY).get(0).at().toNanos() / 1e9;
        double readyAgain = of(events, SimEvent.Type.READY).get(1).at().toNanos() / 1e9;
        assertThat(notReadyAt).isBetween(3.0, 3.0 + 2.5 + PERIOD + SLACK); // 500 from ≈3 s + JVM start
        assertThat(readyAgain - notReadyAt).isBetween(6.5 - PERIOD - SLACK, 6.5 + PERIOD + SLACK); // 500+hang+refuse = 6.5 s
        // hang: counted failures after the whole timeout T = 1 s; refuse: immediate failures
        assertThat(probes).anySatisfy(e -> {
            assertThat(e.latency().get()).isBetween(Duration.ofMillis(900), Duration.ofMillis(2500));
            assertThat(e.detail()).contains("Client.Timeout");
        });
        assertThat(probes).anySatisfy(e -> assertThat(e.detail()).contains("connection refused"));
        assertThat(probes).anySatisfy(e -> assertThat(e.detail()).contains("statuscode: 500"));
    }

    private static SimEvent lastProbeAtOrBefore(List<SimEvent> probes, double t) {
        SimEvent last = null;
        for (SimEvent e : probes) {
            if (e.at().toNanos() / 1e9 <= t + 1e-9) {
                last = e;
            }
        }
        return last;
    }

    private static SimEvent lastProbeWith(List<SimEvent> probes, double t, ProbeResult r) {
        SimEvent last = null;
        for (SimEvent e : probes) {
            if (e.at().toNanos() / 1e9 <= t + 1e-9 && e.result().get().counted() == r) {
                last = e;
            }
        }
        return last;
    }

    @Test
    void livenessKillsAfterFailureThresholdAndTheFirstRestartsAreImmediate() throws Exception {
        int port = Targets.freePort();
        PodSpec pod = PodSpec.of("app", Map.of(), Optional.empty(),
                Optional.of(http(LIVENESS, port, "/livez", 2, OptionalLong.of(2))),
                Optional.of(http(READINESS, port, "/readyz", 1, OptionalLong.empty())));
        List<SimEvent> events = new CopyOnWriteArrayList<>();
        SimulationResult r = Simulation.builder(pod).command(Targets.command(port, "200:2,500"))
                .duration(Duration.ofSeconds(10)).listener(events::add).build().run();
        List<SimEvent> kills = of(events, SimEvent.Type.KILL);
        assertThat(kills).isNotEmpty();
        SimEvent kill = kills.get(0);
        List<SimEvent> live = probes(events, LIVENESS);
        // the kill is the second consecutive failure (FT = 2), one period after the first (R25). On a loaded
        // machine the target JVM may not listen yet at the first probe (refused, a failure the next success
        // resets), so the run that kills counts from the last success before the kill.
        String timeline = events.stream().map(Reports::line).collect(Collectors.joining("\n"));
        double lastOk = live.stream().filter(e -> e.instance() == 1 && e.result().get() == ProbeResult.SUCCESS
                && e.at().toNanos() / 1e9 <= kill.at().toNanos() / 1e9 + 1e-9).mapToDouble(e -> dev.vitals.kubesim.model.Durations.seconds(e.at())).max().orElse(-1);
        List<SimEvent> failures = live.stream().filter(e -> e.instance() == 1 && e.result().get() == ProbeResult.FAILURE
                && e.at().toNanos() / 1e9 > lastOk).collect(Collectors.toList());
        assertThat(failures).as(timeline).hasSizeGreaterThanOrEqualTo(2);
        // The kill follows the second failure (and no third one was needed); the kubelet thread may
        // act on the verdict a little later on a loaded machine, so the bound is generous.
        assertThat(failures.stream().filter(e -> e.at().toNanos() / 1e9 <= kill.at().toNanos() / 1e9 + 1e-9).count()).as(timeline).isEqualTo(2);
        assertThat(kill.at().toNanos() / 1e9 - failures.get(1).at().toNanos() / 1e9).isBetween(0.0, 2 * PERIOD + SLACK);
        assertThat(failures.get(1).at().toNanos() / 1e9 - failures.get(0).at().toNanos() / 1e9).isBetween(PERIOD - SLACK, PERIOD + SLACK);
        // SIGTERM ends the JVM (143); the first kill restarts at once (R49: no earlier exit)
        SimEvent exit = of(events, SimEvent.Type.EXIT).get(0);
        assertThat(exit.detail()).contains("143");
        SimEvent start2 = of(events, SimEvent.Type.START).get(1);
        assertThat(start2.at().toNanos() / 1e9 - exit.at().toNanos() / 1e9).isLessThan(0.5);
        // readiness dropped by the time of the kill, and came back on the new instance
        assertThat(r.readyAt(java.time.Duration.ofNanos(Math.round((kill.at().toNanos() / 1e9 + 0.01) * 1e9)))).isFalse();
        assertThat(of(events, SimEvent.Type.READY).stream().anyMatch(e -> e.instance() == 2)).isTrue();
        assertThat(r.restarts()).isEqualTo(of(events, SimEvent.Type.START).size() - 1).isGreaterThanOrEqualTo(1);
    }

    @Test
    void aPausedProcessIsKilledWithSigkillAfterTheGracePeriod() throws Exception {
        int port = Targets.freePort();
        // a startup probe gates liveness until the target JVM answers, however slowly it starts
        ProbeSpec startup = new ProbeSpec(ProbeType.STARTUP, http(LIVENESS, port, "/livez", 30, OptionalLong.empty()).handler(),
                0, 1, 1, 1, 30, OptionalLong.empty());
        PodSpec pod = PodSpec.of("app", Map.of(), Optional.of(startup),
                Optional.of(http(LIVENESS, port, "/livez", 2, OptionalLong.of(2))), Optional.empty());
        Scenario scenario = Scenario.parse("actions:\n  - at: 4.5s\n    pause: true\n", "pause.yaml");
        List<SimEvent> events = new CopyOnWriteArrayList<>();
        Simulation.builder(pod).command(Targets.command(port, "200")).scenario(scenario)
                .duration(Duration.ofSeconds(11)).listener(events::add).build().run();
        String timeline = events.stream().map(Reports::line).collect(Collectors.joining("\n"));
        assertThat(of(events, SimEvent.Type.STARTED)).as(timeline).isNotEmpty();
        SimEvent kill = of(events, SimEvent.Type.KILL).get(0);
        SimEvent exit = of(events, SimEvent.Type.EXIT).get(0);
        // two timed-out liveness probes after the stall (FT = 2, T = 1 s, P = 1 s)
        assertThat(kill.at().toNanos() / 1e9).as(timeline).isBetween(4.5 + 1, 4.5 + 2 + 2 * PERIOD + SLACK);
        assertThat(exit.detail()).contains("137"); // SIGTERM stays pending in a stopped process: SIGKILL (R44)
        assertThat(exit.at().toNanos() / 1e9 - kill.at().toNanos() / 1e9).isBetween(1.9, 3.5);
        assertThat(of(events, SimEvent.Type.ACTION)).anySatisfy(e -> assertThat(e.detail()).contains("pause"));
    }

    /** The container's static env reaches its process (and, R68, its exec probes' $(VAR)). */
    @Test
    void theContainersEnvReachesTheProcess() throws Exception {
        dev.vitals.kubesim.model.PodSpec pod = dev.vitals.kubesim.model.PodSpec.of("app", java.util.Map.of(),
                java.util.Optional.empty(), java.util.Optional.empty(), java.util.Optional.empty())
                .with(dev.vitals.kubesim.model.RestartPolicy.NEVER, 1).withEnv(java.util.Map.of("CODE", "3"));
        SimulationResult r = Simulation.builder(pod).command(java.util.List.of("sh", "-c", "sleep 0.2; exit $CODE"))
                .duration(java.time.Duration.ofSeconds(2)).build().run();
        assertThat(r.events()).filteredOn(e -> e.type() == dev.vitals.kubesim.model.SimEvent.Type.EXIT).singleElement()
                .satisfies(e -> assertThat(e.detail()).contains("exit code 3"));
    }

    /**
     * R69 on a real process: an exec preStop hook still running when the grace period (1 s) runs out is no
     * FailedPreStopHook then (executePreStopHook only stops waiting); SIGTERM follows, the container exits, and
     * the hook's exec fails with it (the runtime's exec ends with the container): FailedPreStopHook at the exit.
     */
    @Test
    void anExecPreStopHookPastTheGracePeriodFailsWhenTheContainerExitsNotAtTheDeadline() throws Exception {
        List<SimEvent> events = new java.util.concurrent.CopyOnWriteArrayList<>();
        PodSpec pod = Rig.pod().with(dev.vitals.kubesim.model.RestartPolicy.ALWAYS, 1)
                .withLifecycle(new dev.vitals.kubesim.model.Lifecycle(java.util.Optional.empty(), java.util.Optional.of(
                        new dev.vitals.kubesim.model.Lifecycle.Handler(new dev.vitals.kubesim.model.ProbeHandler.Exec(
                                List.of("sleep", "30"))))));
        Simulation.builder(pod).command(List.of("sleep", "60"))
                .scenario(dev.vitals.kubesim.scenario.Scenario.parse("actions:\n  - at: 1s\n    delete: true\n", "test"))
                .duration(Duration.ofSeconds(4)).listener(events::add).build().run();
        SimEvent late = of(events, SimEvent.Type.HOOK).stream()
                .filter(e -> e.detail().contains("not completed in the grace period of 1s")).findFirst().orElseThrow();
        SimEvent exit = of(events, SimEvent.Type.EXIT).get(0);
        List<SimEvent> failed = of(events, SimEvent.Type.HOOK).stream().filter(e -> e.detail().contains("FailedPreStopHook")).toList();
        assertThat(failed).singleElement().satisfies(f -> {
            assertThat(f.detail()).contains("the container exited while the preStop hook ran");
            assertThat(f.at()).isGreaterThanOrEqualTo(exit.at()).isGreaterThan(late.at());
        });
        assertThat(exit.detail()).contains("killed by kubelet");
    }
}
