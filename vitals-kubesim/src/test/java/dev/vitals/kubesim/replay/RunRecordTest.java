package dev.vitals.kubesim.replay;

import dev.vitals.kubesim.Simulation;
import dev.vitals.kubesim.model.VirtualTime;
import dev.vitals.kubesim.runtime.ScriptedContainer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vitals.kubesim.model.ProbeType;
import dev.vitals.kubesim.probe.ScriptedProbes;
import dev.vitals.kubesim.result.Expectation;
import dev.vitals.kubesim.result.SimulationResult;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RunRecordTest {
    private static final ReplayCase INCIDENT = ReplayCatalog.select(java.util.List.of("incident")).get(0);
    private static final ReplayCase DB = ReplayCatalog.select(java.util.List.of("db-outage")).get(0);
    private static final ReplayCase SLOW = ReplayCatalog.select(java.util.List.of("slow-start")).get(0);

    private static Expectation.Check check(RunRecord r, String text) {
        return r.checks().stream().filter(c -> c.expectation().equals(text)).findFirst()
                .orElseThrow(() -> new AssertionError("no check '" + text + "' in " + r.checks()));
    }

    @Test
    void liveKillsDuringTheLoadCountAsRestartsAndPassTheNaiveExpectation() throws Exception {
        // liveness times out from 20 s on (the load began at 10 s): kubelet kills after 3 failures
        SimulationResult r = SimRuns.simulate(INCIDENT.pod(Wiring.NAIVE, 18080, 18081), Duration.ofSeconds(58),
                (probe, t, spec) -> probe.equals("liveness") && t >= 20 && t < 40 ? ScriptedProbes.timeout(spec) : ScriptedProbes.ok());
        RunRecord run = SimRuns.record(INCIDENT, Wiring.NAIVE, r, Map.of("load", new double[] {10, 50}));

        assertThat(run.restarts()).isGreaterThanOrEqualTo(1);
        assertThat(check(run, "the load ran").passed()).isTrue();
        assertThat(check(run, "no kill before the first action").passed()).isTrue();
        assertThat(check(run, "restarts >= 1").passed()).isTrue();
        assertThat(run.passed()).isTrue();
        assertThat(run.livenessP99Ms()).isEqualTo(3000.0);
        assertThat(run.probeFailures()).isEqualTo(r.stats(ProbeType.LIVENESS).failures() + r.stats(ProbeType.READINESS).failures());
    }

    @Test
    void theSameRunFailsTheVitalsExpectation() throws Exception {
        SimulationResult r = SimRuns.simulate(INCIDENT.pod(Wiring.VITALS, 18080, 18081), Duration.ofSeconds(58),
                (probe, t, spec) -> probe.equals("liveness") && t >= 20 && t < 40 ? ScriptedProbes.timeout(spec) : ScriptedProbes.ok());
        RunRecord run = SimRuns.record(INCIDENT, Wiring.VITALS, r, Map.of("load", new double[] {10, 50}));

        assertThat(check(run, "restarts == 0").passed()).isFalse();
        assertThat(check(run, "restarts == 0").actual()).isEqualTo("restarts = " + r.restarts());
        assertThat(run.passed()).isFalse();
    }

    @Test
    void aKillBeforeTheFirstActionIsAStartUpProblemNotAPass() throws Exception {
        SimulationResult r = SimRuns.simulate(INCIDENT.pod(Wiring.NAIVE, 18080, 18081), Duration.ofSeconds(58),
                (probe, t, spec) -> probe.equals("liveness") && t < 12 ? ScriptedProbes.fail() : ScriptedProbes.ok());
        RunRecord run = SimRuns.record(INCIDENT, Wiring.NAIVE, r, Map.of("load", new double[] {20, 50}));

        assertThat(run.restarts()).isGreaterThanOrEqualTo(1);
        assertThat(check(run, "no kill before the first action").passed()).isFalse();
        assertThat(check(run, "no kill before the first action").actual()).contains("start-up problem");
        assertThat(run.passed()).isFalse();
    }

    @Test
    void anActionThatNeverRanOrRanTooLateFailsTheRun() throws Exception {
        SimulationResult r = SimRuns.simulate(INCIDENT.pod(Wiring.VITALS, 18080, 18081), Duration.ofSeconds(58),
                (probe, t, spec) -> ScriptedProbes.ok());
        RunRecord never = SimRuns.record(INCIDENT, Wiring.VITALS, r, Map.of());
        RunRecord late = SimRuns.record(INCIDENT, Wiring.VITALS, r, Map.of("load", new double[] {55, 95}));

        assertThat(check(never, "the load ran").passed()).isFalse();
        assertThat(check(never, "the load ran").actual()).contains("did not run");
        assertThat(check(late, "the load ran").passed()).isFalse();
        assertThat(check(late, "the load ran").actual()).contains("too late");
        assertThat(never.passed()).isFalse();
    }

    @Test
    void notReadyDuringTheOutageAndReadyAtTheEnd() throws Exception {
        // readiness fails while the database is out (15..25 s), everything else succeeds
        SimulationResult r = SimRuns.simulate(DB.pod(Wiring.VITALS, 18080, 18081), Duration.ofSeconds(44),
                (probe, t, spec) -> probe.equals("readiness") && t >= 15 && t < 25 ? ScriptedProbes.fail() : ScriptedProbes.ok());
        RunRecord run = SimRuns.record(DB, Wiring.VITALS, r, Map.of("db-outage", new double[] {13, 33}));

        assertThat(check(run, "not ready during the db-outage").passed()).isTrue();
        assertThat(check(run, "ready at the end").passed()).isTrue();
        assertThat(run.passed()).isTrue();
        double firstReady = run.firstReadySeconds().orElseThrow();
        assertThat(run.notReadySeconds()).isEqualTo(dev.vitals.kubesim.model.Durations.seconds(r.notReady()) - firstReady, org.assertj.core.data.Offset.offset(1e-6));
        assertThat(run.notReadyTotalSeconds()).isEqualTo(dev.vitals.kubesim.model.Durations.seconds(r.notReady()));
    }

    @Test
    void alwaysReadyThroughTheOutageFailsTheOutageExpectation() throws Exception {
        SimulationResult r = SimRuns.simulate(DB.pod(Wiring.VITALS, 18080, 18081), Duration.ofSeconds(44),
                (probe, t, spec) -> ScriptedProbes.ok());
        RunRecord run = SimRuns.record(DB, Wiring.VITALS, r, Map.of("db-outage", new double[] {13, 33}));

        assertThat(check(run, "not ready during the db-outage").passed()).isFalse();
        assertThat(check(run, "not ready during the db-outage").actual()).startsWith("ready for 20.0s of the 20.0s");
    }

    @Test
    void aSlowStartWithoutStartupProbeCrashLoopsAndWithOneDoesNot() throws Exception {
        // the service answers only 8 s after each instance starts (6 s of start-up plus a 2 s JVM boot)
        SimulationResult naive = simulateSlow(Wiring.NAIVE);
        SimulationResult vitals = simulateSlow(Wiring.VITALS);
        RunRecord n = SimRuns.record(SLOW, Wiring.NAIVE, naive, Map.of());
        RunRecord v = SimRuns.record(SLOW, Wiring.VITALS, vitals, Map.of());

        assertThat(check(n, "kills >= 2").passed()).as(n.checks().toString()).isTrue();
        assertThat(check(n, "enters CrashLoopBackOff").passed()).isTrue();
        assertThat(n.firstReadySeconds()).isEmpty();
        assertThat(n.notReadySeconds()).isEqualTo((double) SLOW.duration().toSeconds());
        assertThat(n.verdict()).isEqualTo(RunRecord.Verdict.PASS);
        assertThat(v.verdict()).isEqualTo(RunRecord.Verdict.PASS);
        assertThat(v.passed()).as(v.checks().toString()).isTrue();
        assertThat(v.restarts()).isZero();
    }

    @Test
    void aBootThatEatsHalfTheStartupBudgetMakesTheRunInconclusiveNotFailed() throws Exception {
        // sized for a 2 s boot (startup budget 30 s); this run's boot took 20 s: a 1.5x margin, so
        // whatever the run shows would be luck, and it is judged SKIP, not PASS or FAIL
        SimulationResult r = SimRuns.simulate(INCIDENT.pod(Wiring.VITALS, 18080, 18081), INCIDENT.duration(),
                (probe, t, spec) -> t < 20 ? ScriptedProbes.fail() : ScriptedProbes.ok());
        RunRecord run = SimRuns.record(INCIDENT, Wiring.VITALS, r, Map.of("load", new double[] {22, 62}));

        assertThat(run.measuredMargins()).extracting(Margin::what).contains("startup budget vs this run's boot");
        assertThat(run.verdict()).isEqualTo(RunRecord.Verdict.SKIP);
        assertThat(run.inconclusive().orElseThrow()).startsWith("margin too small in this run: startup budget vs this run's boot: 30s vs");
    }

    @Test
    void aRunWithItsMarginsThatMissesAnExpectationIsAFailure() throws Exception {
        SimulationResult r = SimRuns.simulate(INCIDENT.pod(Wiring.VITALS, 18080, 18081), Duration.ofSeconds(58),
                (probe, t, spec) -> probe.equals("liveness") && t >= 20 && t < 40 ? ScriptedProbes.timeout(spec) : ScriptedProbes.ok());
        RunRecord run = SimRuns.record(INCIDENT, Wiring.VITALS, r, Map.of("load", new double[] {10, 50}));

        assertThat(run.inconclusive()).isEmpty();
        assertThat(run.verdict()).isEqualTo(RunRecord.Verdict.FAIL);
        assertThat(check(run, "liveness p99 <= timeout / 2").passed()).isFalse();
    }

    @Test
    void aCaseSkippedBySizingIsNeverJudged() throws Exception {
        ReplayCase slowMachine = ReplayCatalog.select(java.util.List.of("incident"), Sizing.given(90)).get(0);
        SimulationResult r = SimRuns.simulate(slowMachine.pod(Wiring.VITALS, 18080, 18081), Duration.ofSeconds(20),
                (probe, t, spec) -> ScriptedProbes.ok());
        RunRecord run = SimRuns.record(slowMachine, Wiring.VITALS, r, Map.of());

        assertThat(run.verdict()).isEqualTo(RunRecord.Verdict.SKIP);
        assertThat(ReplayReport.passed(java.util.List.of(run))).as("nothing judged is not a success").isFalse();
        assertThat(ReplayReport.verdicts(java.util.List.of(run))).startsWith("SKIP incident");
    }

    private static SimulationResult simulateSlow(Wiring w) throws InterruptedException {
        dev.vitals.kubesim.model.VirtualTime time = new dev.vitals.kubesim.model.VirtualTime();
        dev.vitals.kubesim.runtime.ScriptedContainer container = new dev.vitals.kubesim.runtime.ScriptedContainer(time);
        dev.vitals.kubesim.probe.ScriptedProbes probes = new dev.vitals.kubesim.probe.ScriptedProbes(time, container,
                (spec, instance, sinceInstance, sinceStart) -> sinceInstance < 8 ? ScriptedProbes.fail() : ScriptedProbes.ok());
        return dev.vitals.kubesim.Simulation.builder(SLOW.pod(w, 18080, 18081)).time(time).runtime(container)
                .probeExecutor(probes).duration(SLOW.duration()).build().run();
    }
}
