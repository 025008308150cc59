package dev.vitals.kubesim.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vitals.kubesim.Rig;
import dev.vitals.kubesim.model.PodSpec;
import dev.vitals.kubesim.model.ProbeOutcome;
import dev.vitals.kubesim.model.ProbeResult;
import dev.vitals.kubesim.model.ProbeType;
import dev.vitals.kubesim.probe.ScriptedProbes;
import dev.vitals.kubesim.result.Expectation;
import dev.vitals.kubesim.result.SimulationResult;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Headroom and the default verdict, on the virtual clock. */
class HeadroomTest {
    private static final PodSpec POD = Rig.pod(Rig.probe(ProbeType.LIVENESS, 0, 1, 1, 1, 3), Rig.probe(ProbeType.READINESS, 0, 1, 1, 1, 3));

    @Test
    void aServiceWhoseP99PassesHalfTheTimeoutPassesWithAWarning() {
        // the shape: p99 1.2 s behind a 1 s timeout, one timed-out probe, no restart — now warned
        Rig rig = new Rig();
        SimulationResult r = rig.run(POD, 60, (p, i, since, t) -> p.type() == ProbeType.LIVENESS && (int) t == 30
                ? ScriptedProbes.timeout(p) : ProbeOutcome.of(ProbeResult.SUCCESS, "ok", Duration.ofMillis(t % 10 < 1 ? 700 : 20)));
        assertThat(r.restarts()).isZero();
        Headroom h = Headroom.of(r, POD);
        Headroom.Probe live = h.probes().get(0);
        assertThat(live.type()).isEqualTo(ProbeType.LIVENESS);
        assertThat(live.p99Ms()).isGreaterThan(500);
        assertThat(live.longestFailureRun()).isEqualTo(1);
        assertThat(live.warnings()).singleElement().asString().contains("passes half of timeoutSeconds 1");
        assertThat(h.thin()).isTrue();
        assertThat(h.text()).contains("WARN  liveness: p99");
    }

    @Test
    void aRunOneFailureShortOfAKillIsWarned() {
        Rig rig = new Rig();
        SimulationResult r = rig.run(POD, 40, (p, i, since, t) -> p.type() == ProbeType.LIVENESS && t >= 20 && t < 22
                ? ScriptedProbes.fail() : ScriptedProbes.ok());
        assertThat(r.kills()).isZero();
        Headroom.Probe live = Headroom.of(r, POD).probes().get(0);
        assertThat(live.longestFailureRun()).isEqualTo(2);
        assertThat(live.warnings()).singleElement().asString().contains("one short of failureThreshold 3");
        // readiness failing while the application starts is not counted
        Rig starting = new Rig();
        SimulationResult s = starting.run(POD, 20, (p, i, since, t) -> since < 2.5 && p.type() == ProbeType.READINESS
                ? ScriptedProbes.fail() : ScriptedProbes.ok());
        assertThat(Headroom.of(s, POD).probes().get(1).longestFailureRun()).isZero();
    }

    @Test
    void aProbeThatNeverSucceededSaysSoInsteadOfAFailureRunOfZero() {
        // found by QA: a readiness probe that failed every time read "longest failure run 0"
        Rig rig = new Rig();
        SimulationResult r = rig.run(POD, 20, (p, i, since, t) -> p.type() == ProbeType.READINESS
                ? ScriptedProbes.fail() : ScriptedProbes.ok());
        Headroom h = Headroom.of(r, POD);
        Headroom.Probe ready = h.probes().get(1);
        assertThat(ready.neverSucceeded()).isTrue();
        assertThat(ready.failures()).isEqualTo(ready.count()).isPositive();
        String line = h.text().lines().filter(l -> l.trim().startsWith("readiness")).findFirst().orElseThrow();
        assertThat(line).endsWith("; never succeeded (" + ready.count() + " of " + ready.count() + " probes failed)")
                .doesNotContain("failure run");
        assertThat(h.text().lines().filter(l -> l.trim().startsWith("liveness")).findFirst().orElseThrow())
                .endsWith("; longest failure run 0 of failureThreshold 3");
        // a liveness probe that never succeeded says so and still shows the run that killed it
        Rig dead = new Rig();
        SimulationResult d = dead.run(POD, 20, (p, i, since, t) -> p.type() == ProbeType.LIVENESS
                ? ScriptedProbes.fail() : ScriptedProbes.ok());
        Headroom.Probe live = Headroom.of(d, POD).probes().get(0);
        assertThat(live.neverSucceeded()).isTrue();
        assertThat(Headroom.of(d, POD).text()).contains("liveness").contains("; never succeeded (" + live.failures() + " of "
                + live.count() + " probes failed), longest failure run 3 of failureThreshold 3");
    }

    @Test
    void aProbeThatNeverRanSaysSoInsteadOfAnEmptyBlock() {
        // found trying kube-prometheus' kube-state-metrics (no probes at all): "headroom:" and nothing under it
        PodSpec late = Rig.pod(Rig.probe(ProbeType.LIVENESS, 5, 1, 1, 1, 3), Rig.probe(ProbeType.READINESS, 0, 1, 1, 1, 3));
        SimulationResult r = new Rig().run(late, 3, (p, i, since, t) -> ScriptedProbes.ok());
        String text = Headroom.of(r, late).text();
        assertThat(text).contains("  liveness   no probe ran in the 3 s run (initialDelaySeconds 5)\n")
                .contains("  readiness  latency p50");
        assertThat(Headroom.of(r, Rig.pod()).text()).isEqualTo("headroom:\n  no probe configured\n");
    }

    @Test
    void defaultExpectationsCatchAKillLoopAndANeverReadyPod() {
        Rig loop = new Rig();
        SimulationResult r = loop.run(POD, 60, (p, i, since, t) -> ScriptedProbes.fail());
        List<Expectation.Check> c = Verdict.defaults(r, -1);
        assertThat(c).extracting(Expectation.Check::passed).containsExactly(false, false, false);
        assertThat(c.get(0).actual()).startsWith("kills = ");
        assertThat(c.get(1).actual()).isEqualTo("never ready in 60s");

        Rig flap = new Rig();
        SimulationResult f = flap.run(POD, 60, (p, i, since, t) -> p.type() == ProbeType.READINESS && t >= 30 && t < 35
                ? ScriptedProbes.fail() : ScriptedProbes.ok());
        assertThat(Verdict.defaults(f, -1)).extracting(Expectation.Check::passed).containsExactly(true, true, false);
        // a scenario action before the change explains it
        assertThat(Verdict.defaults(f, 25)).extracting(Expectation.Check::passed).containsExactly(true, true, true);
    }

    @Test
    void theBootIsSetAgainstTheStartupBudget() {
        // C23's shape: startup period 10 s, threshold 3 → a 30 s budget; the app answers from 15 s
        PodSpec pod = Rig.pod(Rig.probe(ProbeType.STARTUP, 0, 10, 1, 1, 3), Rig.probe(ProbeType.LIVENESS, 0, 10, 1, 1, 3));
        SimulationResult r = new Rig().run(pod, 60, (p, i, since, t) -> ProbeOutcome.of(
                t < 15 ? ProbeResult.FAILURE : ProbeResult.SUCCESS, "scripted", Duration.ofMillis(5)));
        Headroom.Boot boot = Headroom.of(r, pod).boot().orElseThrow();
        assertThat(boot.budgetSeconds()).isEqualTo(30.0);
        assertThat(boot.budgetProbe()).isEqualTo(ProbeType.STARTUP);
        assertThat(boot.seconds()).isBetween(19.9, 20.1); // the startup probe at 20 s is the first to see it up
        assertThat(boot.cpuLimit()).isEmpty(); // no limits in this run
        assertThat(Headroom.of(r, pod).text()).contains("  boot took 20.0 s; startup budget 30 s: 1.5× headroom\n");
        assertThat(new Headroom.Boot(21.4, 30, ProbeType.STARTUP, java.util.Optional.of("500m")).text())
                .isEqualTo("boot took 21.4 s under 500m; startup budget 30 s: 1.4× headroom");
    }

    @Test
    void aMemoryPeakAbove85PercentOfTheLimitIsWarned() {
        // Issue 40: simulate passed quietly at a 92 % peak; the same pod was OOMKilled under its first load.
        Rig rig = new Rig();
        SimulationResult r = rig.run(POD, 10, (p, i, since, t) -> ScriptedProbes.ok());
        long limit = 256L * 1024 * 1024;
        dev.vitals.kubesim.model.Resources res = new dev.vitals.kubesim.model.Resources(java.util.OptionalLong.empty(),
                java.util.OptionalLong.empty(), java.util.OptionalLong.of(limit));
        java.util.function.LongFunction<SimulationResult> peaking = peak -> new SimulationResult(r.events(), r.duration(),
                r.restarts(), java.util.List.of(), "t", java.util.Optional.of(new dev.vitals.kubesim.runtime.ResourceLimits.Report(
                        res, true, "applied", java.util.List.of(new dev.vitals.kubesim.runtime.ResourceLimits.InstanceUsage(1, 0,
                                "Completed", new dev.vitals.kubesim.runtime.ResourceUsage(java.util.Optional.empty(), 0, 0,
                                        Duration.ZERO, java.util.OptionalLong.of(peak), 0))))));
        Headroom high = Headroom.of(peaking.apply(Math.round(limit * 0.92)), POD);
        assertThat(high.warnings()).singleElement().asString()
                .isEqualTo("memory: instance #1 peaked at 92 % of its 256Mi limit (235.5Mi; above 85 %): its first real load"
                        + " may be OOMKilled");
        assertThat(high.text()).contains("  WARN  memory: instance #1 peaked at 92 %");
        assertThat(Headroom.of(peaking.apply(Math.round(limit * 0.80)), POD).warnings()).isEmpty();
    }

    @Test
    void aStartupBudgetThatKillsTheBootSaysHowLongTheBootHadRun() {
        // Issue 40: the kill said nothing of the boot it cut short.
        PodSpec pod = Rig.pod(Rig.probe(ProbeType.STARTUP, 0, 1, 1, 1, 5), Rig.probe(ProbeType.LIVENESS, 0, 1, 1, 1, 3));
        Rig rig = new Rig();
        SimulationResult r = rig.run(pod, 30, (p, i, since, t) -> p.type() == ProbeType.STARTUP
                ? ScriptedProbes.fail() : ScriptedProbes.ok());
        assertThat(r.kills()).isPositive();
        Headroom h = Headroom.of(r, pod);
        assertThat(h.boot()).isEmpty();
        assertThat(h.warnings()).singleElement().asString()
                .startsWith("boot: the startup budget (5 s) killed " + r.kills() + " instance")
                .contains("before it started, after 5.").contains("the boot needs more than that");
        assertThat(h.text()).contains("  WARN  boot: the startup budget (5 s) killed");
    }
}
