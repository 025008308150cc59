package dev.vitals.kubesim.model;

import dev.vitals.kubesim.Rig;
import dev.vitals.kubesim.probe.ScriptedProbes;

import static dev.vitals.kubesim.model.ProbeType.LIVENESS;
import static dev.vitals.kubesim.model.ProbeType.READINESS;
import static dev.vitals.kubesim.model.ProbeType.STARTUP;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * Rule tests on a virtual clock: every timing, threshold, gating, initial-state and back-off
 * rule of docs/spec/kubelet-probes.md. The container starts 10 ms after the workers are
 * created (KubeletOptions.containerStartDelay), as in kubelet where workers precede the
 * container (R14).
 */
class KubeletRulesTest {
    private static final double START = 0.01;

    // ---- §3 scheduling -----------------------------------------------------------------

    @Test
    void r14_tick0BeforeTheContainerDoesNothingAndTicksStayAnchoredAtWorkerCreation() {
        Rig rig = new Rig();
        rig.run(Rig.pod(Rig.probe(LIVENESS, 0, 10, 3)), 35, (p, i, s, t) -> ScriptedProbes.ok());
        // tick 0 at t=0 finds no container; then ticks at 10, 20, 30 — not at start + 10.
        assertThat(rig.probeStarts(LIVENESS)).containsExactly(10.0, 20.0, 30.0);
    }

    @Test
    void r16_r17_firstProbeIsTheFirstTickWithAtLeastDWholeSecondsSinceStart() {
        Rig rig = new Rig();
        rig.run(Rig.pod(Rig.probe(LIVENESS, 30, 10, 3)), 55, (p, i, s, t) -> ScriptedProbes.ok());
        // tick 30 sees 29.99 s since StartedAt (< D): skipped; first probe at 40, in [D, D + P).
        assertThat(rig.probeStarts(LIVENESS)).containsExactly(40.0, 50.0);
        Rig rig2 = new Rig();
        rig2.run(Rig.pod(Rig.probe(LIVENESS, 5, 10, 3)), 25, (p, i, s, t) -> ScriptedProbes.ok());
        // G2 / docs: "if periodSeconds > initialDelaySeconds, initialDelaySeconds is ignored"
        assertThat(rig2.probeStarts(LIVENESS)).containsExactly(10.0, 20.0);
    }

    @Test
    void r16_g1_livenessDelayRunsFromContainerStartEvenWithAStartupProbe() {
        Rig rig = new Rig();
        // startup succeeds at its first probe (t=10); liveness D=15 counts from container start,
        // so liveness probes at 20 (15.x s since start) — not at startup success + 15 = 25+.
        rig.run(Rig.pod(Rig.probe(STARTUP, 0, 10, 3), Rig.probe(LIVENESS, 15, 10, 3)), 25,
                (p, i, s, t) -> ScriptedProbes.ok());
        assertThat(rig.probeStarts(STARTUP)).containsExactly(10.0);
        assertThat(rig.probeStarts(LIVENESS)).containsExactly(20.0);
    }

    @Test
    void r16_initialDelayRestartsWithEveryContainerInstance() {
        Rig rig = new Rig();
        rig.container.crashAfter(i -> i == 1 ? Duration.ofSeconds(25) : null, 1);
        rig.run(Rig.pod(Rig.probe(LIVENESS, 12, 5, 3)), 50, (p, i, s, t) -> ScriptedProbes.ok());
        // instance 1 starts 0.01: probes at 15, 20, 25(crash at 25.01 → exited). Instance 2 starts 25.01
        // (first crash: immediate, R49), so probes resume only at 40 (14.99 s < 12? no: 35 is 9.99 s, 40 is 14.99 s).
        List<Double> starts = rig.probeStarts(LIVENESS);
        assertThat(starts).containsExactly(15.0, 20.0, 25.0, 40.0, 45.0);
    }

    @Test
    void r18_aSlowProbeNeverOverlapsItselfAndAtMostOneMissedTickIsQueued() {
        Rig rig = new Rig();
        // the first probe takes 26 s (T=30): ticks at 20 and 30 fall inside it and collapse into one.
        rig.run(Rig.pod(Rig.probe(LIVENESS, 0, 10, 30, 1, 3)), 55, (p, i, s, t) -> t < 11
                ? ProbeOutcome.of(ProbeResult.FAILURE, "slow", Duration.ofSeconds(26)) : ScriptedProbes.ok());
        assertThat(rig.probeStarts(LIVENESS)).containsExactly(10.0, 36.0, 40.0, 50.0);
    }

    @Test
    void r13_probeTypesRunIndependently() {
        Rig rig = new Rig();
        // readiness hangs for its whole timeout; liveness still probes on its own ticks.
        rig.run(Rig.pod(Rig.probe(LIVENESS, 0, 2, 3), Rig.probe(READINESS, 0, 10, 9, 1, 3)), 10,
                (p, i, s, t) -> p.type() == READINESS ? ScriptedProbes.timeout(p) : ScriptedProbes.ok());
        assertThat(rig.probeStarts(LIVENESS)).containsExactly(2.0, 4.0, 6.0, 8.0);
    }

    @Test
    void r19_readinessIsProbedRightAfterTheContainerIsStartedAndItsTickerIsReset() {
        Rig rig = new Rig();
        rig.run(Rig.pod(Rig.probe(READINESS, 0, 10, 3)), 25, (p, i, s, t) -> ScriptedProbes.ok());
        // manual trigger at start, then the one the initial-value update queued (0.011); each manual run
        // re-anchors the ticker, so later ticks come P after the last manual run, not at 10, 20.
        List<Double> starts = rig.probeStarts(READINESS);
        assertThat(starts).containsExactly(START, 0.011, 10.011, 20.011);
        assertThat(rig.times(SimEvent.Type.READY)).containsExactly(0.011); // first success, 1 ms probe
    }

    @Test
    void r19_readinessProbesRightAfterStartupSucceeds() {
        Rig rig = new Rig();
        rig.run(Rig.pod(Rig.probe(STARTUP, 0, 10, 3), Rig.probe(READINESS, 0, 10, 3)), 15,
                (p, i, s, t) -> ScriptedProbes.ok());
        assertThat(rig.probeStarts(STARTUP)).containsExactly(10.0);
        assertThat(rig.probeStarts(READINESS).get(0)).isCloseTo(10.001, within(0.002));
        assertThat(rig.times(SimEvent.Type.READY).get(0)).isCloseTo(10.002, within(0.002));
    }

    // ---- §4 raw outcome → counted result ------------------------------------------------

    @Test
    void r21_warningCountsAsSuccess() {
        Rig rig = new Rig();
        rig.run(Rig.pod(Rig.probe(READINESS, 0, 10, 3)), 5,
                (p, i, s, t) -> ProbeOutcome.of(ProbeResult.WARNING, "Probe terminated redirects", Duration.ofMillis(1)));
        assertThat(rig.result.readyAt(Duration.ofSeconds(1))).isTrue();
    }

    @Test
    void r21_unknownCountsAsFailure() {
        Rig rig = new Rig();
        rig.run(Rig.pod(Rig.probe(LIVENESS, 0, 10, 1)), 12,
                (p, i, s, t) -> ProbeOutcome.of(ProbeResult.UNKNOWN, "unknown", Duration.ofMillis(1)));
        assertThat(rig.times(SimEvent.Type.KILL)).containsExactly(10.001);
    }

    @Test
    void r22_g4_erroredTicksAreDiscardedSoTheyNeverKillAndNeverChangeReadiness() {
        Rig rig = new Rig();
        rig.run(Rig.pod(Rig.probe(LIVENESS, 0, 1, 1), Rig.probe(READINESS, 0, 1, 1)), 30,
                (p, i, s, t) -> ProbeOutcome.of(ProbeResult.ERROR, "unable to find port named \"http\"", Duration.ofMillis(1)));
        assertThat(rig.probes(LIVENESS)).hasSizeGreaterThan(20);
        assertThat(rig.result.kills()).isZero();
        assertThat(rig.result.readyPeriods()).isEmpty(); // readiness stays at its initial Failure
        assertThat(rig.result.stats(LIVENESS).errors()).isEqualTo(rig.probes(LIVENESS).size());
    }

    @Test
    void r22_anErrorInTheMiddleOfAFailureRunNeitherCountsNorResetsIt() {
        Rig rig = new Rig();
        // liveness FT=3 at P=1: fail, error, fail, fail → the kill comes with the third failure (t=4)
        rig.run(Rig.pod(Rig.probe(LIVENESS, 0, 1, 3)), 4.5, (p, i, s, t) -> t >= 2 && t < 2.5
                ? ProbeOutcome.of(ProbeResult.ERROR, "err", Duration.ofMillis(1)) : ScriptedProbes.fail());
        assertThat(rig.times(SimEvent.Type.KILL)).containsExactly(4.001);
    }

    // ---- §5 thresholds, counters, initial values ----------------------------------------

    @Test
    void r24_g3_readinessStartsAsFailureLivenessAsSuccessStartupAsUnknown() {
        Rig rig = new Rig();
        // no probe runs within 9 s (D=60); the container is never ready (readiness starts at Failure),
        // never killed (liveness starts at Success) and never started (startup starts at Unknown).
        rig.run(Rig.pod(Rig.probe(STARTUP, 60, 10, 3), Rig.probe(LIVENESS, 60, 10, 3), Rig.probe(READINESS, 60, 10, 3)), 9,
                (p, i, s, t) -> ScriptedProbes.fail());
        assertThat(rig.events).noneMatch(e -> e.type() == SimEvent.Type.PROBE);
        assertThat(rig.result.readyPeriods()).isEmpty();
        assertThat(rig.result.kills()).isZero();
        assertThat(rig.typed(SimEvent.Type.STARTED)).isEmpty();
    }

    @Test
    void r25_r26_verdictNeedsConsecutiveResultsAndAlternationNeverDecides() {
        Rig rig = new Rig();
        rig.run(Rig.pod(Rig.probe(LIVENESS, 0, 1, 2)), 40,
                (p, i, s, t) -> Math.round(t) % 2 == 0 ? ScriptedProbes.fail() : ScriptedProbes.ok());
        assertThat(rig.probes(LIVENESS)).hasSizeGreaterThan(30);
        assertThat(rig.result.kills()).isZero();
    }

    @Test
    void r25_readinessNeedsSuccessThresholdConsecutiveSuccessesEvenTheFirstTime() {
        Rig rig = new Rig();
        rig.run(Rig.pod(Rig.probe(READINESS, 0, 1, 1, 3, 1)), 6, (p, i, s, t) -> ScriptedProbes.ok());
        // probes at 0.01 (manual), 0.01 (queued trigger), 1.01, …: the third success publishes Success.
        List<SimEvent> probes = rig.probes(READINESS);
        assertThat(rig.result.readyPeriods()).hasSize(1);
        assertThat(rig.times(SimEvent.Type.READY).get(0)).isEqualTo(Rig.round(probes.get(2).at().toNanos() / 1e9));
    }

    @Test
    void r25_oneSuccessResetsTheFailureRun() {
        Rig rig = new Rig();
        // FT=3, P=1: fail at 1, 2; success at 3; fail at 4, 5, 6 → kill at 6, not 4
        rig.run(Rig.pod(Rig.probe(LIVENESS, 0, 1, 3)), 7,
                (p, i, s, t) -> t > 2.5 && t < 3.5 ? ScriptedProbes.ok() : ScriptedProbes.fail());
        assertThat(rig.times(SimEvent.Type.KILL)).containsExactly(6.001);
    }

    @Test
    void r27_r40_afterALivenessFailureVerdictLivenessHoldsWhileReadinessKeepsProbingTheOldContainer() {
        Rig rig = new Rig();
        rig.container.ignoreTerm(); // only SIGKILL after the 30 s grace ends it
        rig.run(Rig.pod(Rig.probe(LIVENESS, 0, 1, 1), Rig.probe(READINESS, 0, 1, 1)), 20,
                (p, i, s, t) -> p.type() == LIVENESS ? ScriptedProbes.fail() : ScriptedProbes.ok());
        assertThat(rig.times(SimEvent.Type.KILL)).containsExactly(1.001);
        assertThat(rig.probeStarts(LIVENESS)).containsExactly(1.0); // on hold for the rest
        assertThat(rig.probes(READINESS)).hasSizeGreaterThan(15); // R40: still probing, still Ready
        assertThat(rig.result.readyAt(Duration.ofSeconds(19))).isTrue();
        assertThat(rig.result.restarts()).isZero();
    }

    @Test
    void r28_aLivenessFailureRunCarriesOverToTheNextInstance() {
        Rig rig = new Rig();
        // FT=3, P=1. Instance 1 fails liveness at 1 and 2, then crashes by itself at 2.5.
        // Instance 2 starts at once (first crash) and its first failure (t=3) is the third in the run.
        rig.container.crashAfter(i -> i == 1 ? Duration.ofMillis(2490) : null, 1);
        rig.run(Rig.pod(Rig.probe(LIVENESS, 0, 1, 3)), 3.5, (p, i, s, t) -> ScriptedProbes.fail());
        assertThat(rig.times(SimEvent.Type.START)).containsExactly(START, 2.5);
        assertThat(rig.times(SimEvent.Type.KILL)).containsExactly(3.001);
    }

    @Test
    void r28_cb_resetCountersPerInstanceNeedsAFullRunOnTheNewInstance() {
        Rig rig = new Rig();
        rig.container.crashAfter(i -> i == 1 ? Duration.ofMillis(2490) : null, 1);
        rig.run(Rig.pod(Rig.probe(LIVENESS, 0, 1, 3)), 5.5, (p, i, s, t) -> ScriptedProbes.fail(),
                KubeletOptions.builder().resetCountersPerInstance(true).build());
        assertThat(rig.times(SimEvent.Type.KILL)).containsExactly(5.001);
    }

    @Test
    void r29_r39_whenTheContainerExitsItIsNotReadyAtOnceAndTheNewInstanceStartsNotReady() {
        Rig rig = new Rig();
        rig.container.crashAfter(i -> i == 1 ? Duration.ofMillis(4990) : null, 1);
        rig.run(Rig.pod(Rig.probe(READINESS, 0, 10, 1, 2, 3)), 20, (p, i, s, t) -> ScriptedProbes.ok());
        assertThat(rig.times(SimEvent.Type.EXIT)).containsExactly(5.0);
        assertThat(rig.times(SimEvent.Type.NOT_READY)).containsExactly(5.0);
        // new instance: ST=2 successes needed again (manual trigger + queued trigger at 5.0)
        assertThat(rig.times(SimEvent.Type.READY)).hasSize(2);
        assertThat(rig.result.readyAt(Duration.ofNanos(5_000_500_000L))).isFalse();
    }

    // ---- §6 startup gating ---------------------------------------------------------------

    @Test
    void r30_r31_r34_untilStartedOnlyTheStartupProbeRunsAndLivenessCannotKill() {
        Rig rig = new Rig();
        // startup passes from t=25 (FT=10 × P=5 budget). Liveness fails always, but cannot run before start.
        rig.run(Rig.pod(Rig.probe(STARTUP, 0, 5, 10), Rig.probe(LIVENESS, 0, 1, 100), Rig.probe(READINESS, 0, 1, 1)), 27,
                (p, i, s, t) -> p.type() == STARTUP ? (t < 24 ? ScriptedProbes.fail() : ScriptedProbes.ok())
                        : ScriptedProbes.ok());
        double started = rig.times(SimEvent.Type.STARTED).get(0);
        assertThat(started).isCloseTo(25.001, within(0.002));
        assertThat(rig.probeStarts(LIVENESS)).allMatch(x -> x >= started);
        assertThat(rig.probeStarts(READINESS)).allMatch(x -> x >= started);
        assertThat(rig.probeStarts(STARTUP)).containsExactly(5.0, 10.0, 15.0, 20.0, 25.0); // then it holds (R27)
        assertThat(rig.result.readyAt(Duration.ofSeconds(26))).isTrue();
        assertThat(rig.result.readyAt(Duration.ofSeconds(24))).isFalse(); // R32
    }

    @Test
    void r33_aStartupFailureVerdictKillsAfterAboutDPlusFTTimesP() {
        Rig rig = new Rig();
        rig.run(Rig.pod(Rig.probe(STARTUP, 0, 10, 3)), 31, (p, i, s, t) -> ScriptedProbes.fail());
        assertThat(rig.times(SimEvent.Type.KILL)).containsExactly(30.001);
        assertThat(rig.typed(SimEvent.Type.KILL).get(0).detail()).contains("failed startup probe");
    }

    @Test
    void r35_everyNewInstanceRunsTheStartupProbeAgainFromUnknown() {
        Rig rig = new Rig();
        rig.container.crashAfter(i -> i == 1 ? Duration.ofMillis(12_000) : null, 1);
        rig.run(Rig.pod(Rig.probe(STARTUP, 0, 5, 3), Rig.probe(READINESS, 0, 5, 1)), 30, (p, i, s, t) -> ScriptedProbes.ok());
        assertThat(rig.typed(SimEvent.Type.STARTED)).hasSize(2);
        assertThat(rig.of(e -> e.type() == SimEvent.Type.PROBE && e.probe().get() == STARTUP && e.instance() == 2)).hasSize(1);
    }

    @Test
    void r7_r36_withoutStartupOrReadinessProbesTheContainerIsReadyAsSoonAsItRuns() {
        Rig rig = new Rig();
        rig.run(Rig.pod(Rig.probe(LIVENESS, 0, 10, 3)), 5, (p, i, s, t) -> ScriptedProbes.ok());
        assertThat(rig.times(SimEvent.Type.READY)).containsExactly(START);
    }

    @Test
    void r38_aFailingReadinessProbeNeverRestarts() {
        Rig rig = new Rig();
        rig.run(Rig.pod(Rig.probe(READINESS, 0, 1, 1)), 30, (p, i, s, t) -> ScriptedProbes.fail());
        assertThat(rig.result.restarts()).isZero();
        assertThat(rig.result.kills()).isZero();
        assertThat(dev.vitals.kubesim.model.Durations.seconds(rig.result.notReady())).isCloseTo(30, within(1e-6));
    }

    // ---- §8 kill and restart -------------------------------------------------------------

    @Test
    void r42_neverDoesNotRestartAKilledContainerAndItsWorkersStop() {
        Rig rig = new Rig();
        PodSpec pod = Rig.pod(Rig.probe(LIVENESS, 0, 1, 1)).with(RestartPolicy.NEVER, 30);
        rig.run(pod, 10, (p, i, s, t) -> ScriptedProbes.fail());
        assertThat(rig.result.kills()).isEqualTo(1);
        assertThat(rig.typed(SimEvent.Type.KILL).get(0).detail()).doesNotContain("will be restarted");
        assertThat(rig.result.restarts()).isZero();
        assertThat(rig.typed(SimEvent.Type.START)).hasSize(1);
        assertThat(rig.probes(LIVENESS)).hasSize(1); // R20: no more probes
    }

    @Test
    void r42_g9_onFailureRestartsAProbeKilledContainerWhateverItsExitCode() {
        Rig rig = new Rig();
        PodSpec pod = Rig.pod(Rig.probe(LIVENESS, 0, 1, 1)).with(RestartPolicy.ON_FAILURE, 30);
        rig.run(pod, 1.5, (p, i, s, t) -> ScriptedProbes.fail());
        assertThat(rig.result.restarts()).isEqualTo(1);
    }

    @Test
    void r42_onFailureDoesNotRestartAContainerThatExitedZeroByItself() {
        Rig rig = new Rig();
        rig.container.crashAfter(Duration.ofSeconds(2), 0);
        PodSpec pod = Rig.pod(Rig.probe(READINESS, 0, 1, 1)).with(RestartPolicy.ON_FAILURE, 30);
        rig.run(pod, 10, (p, i, s, t) -> ScriptedProbes.ok());
        assertThat(rig.result.restarts()).isZero();
        assertThat(rig.probes(READINESS).stream().mapToDouble(e -> dev.vitals.kubesim.model.Durations.seconds(e.at())).max().orElse(0)).isLessThan(2.1);
    }

    @Test
    void r43_r44_probeGraceOverridesThePodsAndTheMinimumIsTwoSeconds() {
        Rig rig = new Rig();
        rig.container.ignoreTerm();
        ProbeSpec l = new ProbeSpec(LIVENESS, Rig.probe(LIVENESS, 0, 1, 1).handler(), 0, 1, 1, 1, 1, OptionalLong.of(5));
        rig.run(Rig.pod(l), 7, (p, i, s, t) -> ScriptedProbes.fail());
        assertThat(rig.times(SimEvent.Type.KILL)).containsExactly(1.001);
        assertThat(rig.times(SimEvent.Type.EXIT)).containsExactly(6.001); // SIGKILL after 5 s, not the pod's 30
        assertThat(rig.typed(SimEvent.Type.EXIT).get(0).detail()).contains("137");

        Rig rig2 = new Rig();
        rig2.container.ignoreTerm();
        rig2.run(Rig.pod(Rig.probe(LIVENESS, 0, 1, 1)).with(RestartPolicy.ALWAYS, 1), 4, (p, i, s, t) -> ScriptedProbes.fail());
        assertThat(rig2.times(SimEvent.Type.EXIT)).containsExactly(3.001); // grace 1 → at least 2 s
    }

    @Test
    void aGracePeriodTheApiAcceptsButNoRunReachesKillsWithoutOverflow() {
        // found by QA: terminationGracePeriodSeconds 99999999999999 (the API server takes any int64 ≥ 0)
        // overflowed the SIGKILL timer ("long overflow") on every kill
        for (long grace : new long[] {99_999_999_999_999L, Long.MAX_VALUE}) {
            Rig rig = new Rig();
            rig.container.ignoreTerm();
            rig.run(Rig.pod(Rig.probe(LIVENESS, 0, 1, 1)).with(RestartPolicy.ALWAYS, grace), 5, (p, i, s, t) -> ScriptedProbes.fail());
            assertThat(rig.times(SimEvent.Type.KILL)).as("grace " + grace).containsExactly(1.001);
            assertThat(rig.typed(SimEvent.Type.KILL).get(0).detail()).contains("SIGKILL after " + grace + "s");
            assertThat(rig.times(SimEvent.Type.EXIT)).as("still in its grace period at the end").isEmpty();
        }
    }

    @Test
    void r45_restartCountGoesUpWhenTheReplacementStarts() {
        Rig rig = new Rig();
        rig.container.exitAfterTerm(Duration.ofSeconds(3));
        rig.run(Rig.pod(Rig.probe(LIVENESS, 0, 1, 1)), 3.5, (p, i, s, t) -> i == 1 ? ScriptedProbes.fail() : ScriptedProbes.ok());
        assertThat(rig.result.restarts()).isZero(); // still terminating: exits at 4.001
        Rig rig2 = new Rig();
        rig2.container.exitAfterTerm(Duration.ofSeconds(3));
        rig2.run(Rig.pod(Rig.probe(LIVENESS, 0, 1, 1)), 4.5, (p, i, s, t) -> i == 1 ? ScriptedProbes.fail() : ScriptedProbes.ok());
        assertThat(rig2.result.restarts()).isEqualTo(1);
        assertThat(rig2.times(SimEvent.Type.START)).containsExactly(START, 4.001);
    }

    // ---- §9 CrashLoopBackOff -------------------------------------------------------------

    @Test
    void r47_r49_crashLoopWaitsDoubleFromTheLastExitAndCapAt300() {
        Rig rig = new Rig();
        rig.container.crashAfter(Duration.ofSeconds(1), 1);
        rig.run(Rig.pod(Rig.probe(READINESS, 0, 10, 3)), 2000, (p, i, s, t) -> ScriptedProbes.ok());
        List<Double> starts = rig.times(SimEvent.Type.START);
        List<Double> exits = rig.times(SimEvent.Type.EXIT);
        double[] waits = new double[8];
        for (int k = 0; k < 8; k++) {
            waits[k] = Rig.round(starts.get(k + 1) - exits.get(k));
        }
        assertThat(waits).containsExactly(0, 10, 20, 40, 80, 160, 300, 300);
        assertThat(rig.typed(SimEvent.Type.BACKOFF)).isNotEmpty();
    }

    @Test
    void r48_aRunLongerThan600sResetsTheBackOff() {
        Rig rig = new Rig();
        // three quick crashes (waits 0, 10, 20), then an instance that runs 700 s: restarts at once, d back to 10
        rig.container.crashAfter(i -> i == 4 ? Duration.ofSeconds(700) : Duration.ofSeconds(1), 1);
        rig.run(Rig.pod(Rig.probe(READINESS, 0, 100, 3)), 800, (p, i, s, t) -> ScriptedProbes.ok());
        List<Double> starts = rig.times(SimEvent.Type.START);
        List<Double> exits = rig.times(SimEvent.Type.EXIT);
        assertThat(Rig.round(starts.get(4) - exits.get(3))).isZero();
        assertThat(Rig.round(starts.get(5) - exits.get(4))).isEqualTo(10.0);
    }

    @Test
    void r48_housekeepingDropsTheStateSixHundredSecondsAfterTheLastRestart() {
        Rig rig = new Rig();
        // quick crashes grow d to 300; then an instance runs 500 s: the 300 s wait is cut at L + 600
        rig.container.crashAfter(i -> i == 8 ? Duration.ofSeconds(500) : Duration.ofSeconds(1), 1);
        rig.run(Rig.pod(Rig.probe(READINESS, 0, 100, 3)), 2200, (p, i, s, t) -> ScriptedProbes.ok());
        List<Double> starts = rig.times(SimEvent.Type.START);
        List<Double> exits = rig.times(SimEvent.Type.EXIT);
        double lastAllowed = starts.get(7); // L of instance 8
        double wait = starts.get(8) - exits.get(7);
        assertThat(wait).isLessThan(300).isCloseTo(lastAllowed + 600 - exits.get(7), within(0.01));
        assertThat(Rig.round(starts.get(9) - exits.get(8))).isEqualTo(10.0); // fresh state: d = initial
    }

    @Test
    void r50_livenessKillLoopsRestartAtOnceWhileInstancesOutliveTheWait() {
        Rig rig = new Rig();
        // each instance lives ~15 s (killed at its first liveness probe), longer than d = 10 at first
        rig.run(Rig.pod(Rig.probe(LIVENESS, 0, 15, 1)), 120, (p, i, s, t) -> ScriptedProbes.fail());
        List<Double> starts = rig.times(SimEvent.Type.START);
        List<Double> exits = rig.times(SimEvent.Type.EXIT);
        assertThat(starts.get(1) - exits.get(0)).isZero(); // kill 1: no earlier exit
        assertThat(starts.get(2) - exits.get(1)).isZero(); // kill 2: state created, d = 10
        assertThat(starts.get(3) - exits.get(2)).isZero(); // kill 3: lived 15 s > 10, d = 20
        assertThat(starts.get(4) - exits.get(3)).isGreaterThan(1); // kill 4: lived 15 s < 20: CrashLoopBackOff
    }

    @Test
    void r52_aCapBelowTenSecondsIsAlsoTheFirstWait() {
        Rig rig = new Rig();
        rig.container.crashAfter(Duration.ofSeconds(1), 1);
        rig.run(Rig.pod(Rig.probe(READINESS, 0, 100, 3)), 30, (p, i, s, t) -> ScriptedProbes.ok(),
                KubeletOptions.builder().maxBackoff(Duration.ofSeconds(5)).build());
        List<Double> starts = rig.times(SimEvent.Type.START);
        List<Double> exits = rig.times(SimEvent.Type.EXIT);
        assertThat(Rig.round(starts.get(2) - exits.get(1))).isEqualTo(5.0);
        assertThat(Rig.round(starts.get(3) - exits.get(2))).isEqualTo(5.0);
    }

    @Test
    void c11_slowStartWithoutStartupProbeIsKilledAtSixtySecondsForever() {
        // case C11: startup 5 min; liveness delay 30 s, period 10 s, threshold 3, no startup probe
        Rig rig = new Rig();
        rig.run(Rig.pod(Rig.probe(LIVENESS, 30, 10, 3)), 200, (p, i, s, t) -> s < 300 ? ScriptedProbes.fail() : ScriptedProbes.ok());
        assertThat(dev.vitals.kubesim.model.Durations.seconds(rig.result.killsAt().get(0))).isCloseTo(60.001, within(0.002));
        // every instance is killed about 60 s after it starts: it never reaches its 300 s start-up
        assertThat(rig.result.killsAt()).hasSize(3);
        assertThat(dev.vitals.kubesim.model.Durations.seconds(rig.result.killsAt().get(1))).isCloseTo(120.0, within(0.01));
        assertThat(dev.vitals.kubesim.model.Durations.seconds(rig.result.killsAt().get(2))).isCloseTo(180.0, within(0.01));
        assertThat(rig.probes(LIVENESS)).allMatch(e -> e.result().get() == ProbeResult.FAILURE);
    }
}
