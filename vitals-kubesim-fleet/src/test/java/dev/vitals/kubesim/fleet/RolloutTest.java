package dev.vitals.kubesim.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.OptionalInt;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/** Rolling updates on the model engine: the controller's arithmetic, a rollout, a stalled one, the replay. */
class RolloutTest {

    /**
     * kubernetes pkg/controller/deployment/util/deployment_util.go ResolveFenceposts: surge rounds
     * up, unavailable down, both 0 → unavailable 1 (the cases of its comment, and the defaults).
     */
    @ParameterizedTest
    @CsvSource({
        "25%, 25%, 10, 3, 2",
        "25%, 25%, 4, 1, 1",
        "25%, 25%, 1, 1, 0",
        "25%, 25%, 6, 2, 1",
        "0%, 1%, 2, 0, 1",   // 2 desired, max unavailable 1%, surge 0%: resolves to 0/0 → unavailable 1
        "0%, 1%, 1, 0, 1",
        "1%, 25%, 2, 1, 0",  // surge 1% of 2 rounds up to 1
        "1%, 0%, 1, 1, 0",
        "30%, 30%, 3, 1, 0",
        "50%, 50%, 3, 2, 1",
        "2, 0, 5, 2, 0",
        "0, 3, 5, 0, 3",
        "100%, 100%, 7, 7, 7",
    })
    void fencepostsRoundAsTheDeploymentController(String surge, String unavailable, int replicas, int s, int u) {
        assertThat(Rollout.resolveFenceposts(surge, unavailable, replicas)).containsExactly(s, u);
    }

    private static final String FLEET = String.join("\n",
            "replicas: 3",
            "duration: 90s",
            "replica: {workers: 10, startTime: 2s}",
            "probes:",
            "  server: isolated",
            "  startup: {periodSeconds: 1, failureThreshold: 90}",
            "  liveness: {periodSeconds: 5, timeoutSeconds: 1, failureThreshold: 3}",
            "  readiness: {periodSeconds: 1, failureThreshold: 3}",
            "clients:",
            "  - {name: app, rate: 30, serviceTime: 50ms, timeout: 5s}",
            "");

    @Test
    void aRolloutReplacesEveryPodAndCompletes() {
        FleetSpec spec = FleetSpecReader.parse(FLEET + "rollout: {at: 10s, strategy: {maxSurge: 1, maxUnavailable: 0}}\n"
                + "expect: ['rollout stalled == 0', 'new version errors < 1%']\n", "r.yaml");
        FleetResult r = new ModelFleet(spec, "rollout").run();
        FleetResult.RolloutStatus ro = r.rollout().orElseThrow();
        assertThat(ro.maxSurge()).isEqualTo(1);
        assertThat(ro.maxUnavailable()).isZero();
        assertThat(ro.condition()).isEqualTo("Progressing=True reason NewReplicaSetAvailable");
        assertThat(ro.startedAt()).isEqualTo(10.0);
        // one pod at a time, each ≈ 2 s start + a readiness period: well within the run
        assertThat(ro.completedAt()).isGreaterThan(15).isLessThan(40);
        assertThat(ro.updatedReplicas()).isEqualTo(3);
        assertThat(ro.oldReplicas()).isZero();
        assertThat(ro.stalled()).isFalse();
        assertThat(ro.versions()).extracting(FleetResult.Version::name).containsExactly("old", "new");
        assertThat(ro.versions().get(0).ok()).isPositive();
        assertThat(ro.versions().get(1).ok()).isPositive();
        // maxUnavailable 0: the Service never has fewer than 3 endpoints, and an old pod goes only after a new one is Ready
        assertThat(r.totals().minEndpoints()).isGreaterThanOrEqualTo(3);
        assertThat(r.replicas()).isEqualTo(3);
        assertThat(r.lanes()).hasSize(6);
        assertThat(r.lanes()).extracting(FleetResult.Lane::version).containsExactly("old", "old", "old", "new", "new", "new");
        assertThat(r.totals().kills()).as("deleting old pods is not a kill").isZero();
        assertThat(r.passed()).isTrue();
        assertThat(FleetReport.text(r)).contains("NewReplicaSetAvailable").contains("new version: attempts answered");
        assertThat(FleetReport.json(List.of(r), List.of("r"), List.of("-"))).contains("\"rollout\"").contains("\"version\" : \"new\"");
        assertThat(FleetReport.html("r", List.of(r))).contains(">new 3<").contains("stroke-dasharray");
    }

    @Test
    void aNewVersionSlowerToStartThanTheDeadlineIsReportedAsTheControllerWould() {
        // the new version needs 40 s to answer; maxUnavailable 0, so nothing else moves: no progress for 10 s
        FleetSpec spec = FleetSpecReader.parse(FLEET.replace("duration: 90s", "duration: 40s")
                + "rollout: {at: 5s, strategy: {maxSurge: 1, maxUnavailable: 0}, progressDeadlineSeconds: 10, startTime: 40s}\n"
                + "expect: ['rollout stalled == 0']\n", "r.yaml");
        FleetResult r = new ModelFleet(spec, "stalled").run();
        FleetResult.RolloutStatus ro = r.rollout().orElseThrow();
        assertThat(ro.stalled()).isTrue();
        // progress at 5 s (the new pod created); > 10 s without progress is seen by the next sync
        assertThat(ro.deadlineExceededAt()).isBetween(15.5, 17.5);
        assertThat(ro.condition()).isEqualTo("Progressing=False reason ProgressDeadlineExceeded");
        assertThat(ro.completedAt()).isEqualTo(-1.0);
        assertThat(ro.updatedReplicas()).isEqualTo(1);
        assertThat(ro.oldReplicas()).isEqualTo(3);
        assertThat(r.passed()).isFalse();
        assertThat(r.checks().get(0).actual()).isEqualTo(1.0);
        assertThat(FleetReport.text(r)).contains("ProgressDeadlineExceeded at 16 s").contains("not complete at the end: 1 updated");
    }

    @Test
    void minReadySecondsHoldsBackEachWave() {
        String r = "rollout: {at: 10s, strategy: {maxSurge: 1, maxUnavailable: 0}, minReadySeconds: MRS}\n";
        FleetResult.RolloutStatus quick = new ModelFleet(FleetSpecReader.parse(FLEET + r.replace("MRS", "0"), "r.yaml"), "0").run()
                .rollout().orElseThrow();
        FleetResult.RolloutStatus held = new ModelFleet(FleetSpecReader.parse(FLEET + r.replace("MRS", "10"), "r.yaml"), "10").run()
                .rollout().orElseThrow();
        assertThat(held.completedAt()).isGreaterThan(-1);
        // three waves of one pod, each waiting 10 s more before the next old pod may go
        assertThat(held.completedAt() - quick.completedAt()).isBetween(28.0, 34.0);
    }

    @Test
    void aWarmupByRequestsWithWarmedReadinessRunsItsRoutineBeforeReady() {
        // cold: 50 ms × 20 = 1 s per request on 10 workers is 10 req/s, a third of a pod's 30 req/s: overloaded if Ready cold;
        // warmed: the routine's 200 requests take ≈ 10 s per pod
        String r = "rollout: {at: 10s, strategy: {maxSurge: 1, maxUnavailable: 0}, warmup: {factor: 20, requests: 200}, "
                + "readiness: READINESS}\n";
        FleetResult naive = new ModelFleet(FleetSpecReader.parse(FLEET.replace("rate: 30", "rate: 90") + r.replace("READINESS", "port-open"),
                "r.yaml"), "naive").run();
        FleetResult warmed = new ModelFleet(FleetSpecReader.parse(FLEET.replace("rate: 30", "rate: 90") + r.replace("READINESS", "warmed"),
                "r.yaml"), "warmed").run();
        FleetResult.RolloutStatus w = warmed.rollout().orElseThrow();
        assertThat(w.completedAt()).as(FleetReport.text(warmed)).isGreaterThan(-1);
        assertThat(w.versions().get(1).ok()).isPositive();
        assertThat(w.versions().get(1).p99LatencyMs()).isLessThan(naive.rollout().orElseThrow().versions().get(1).p99LatencyMs());
    }

    @Test
    void theRolloutReplayShowsTheColdVersionOnlyWithNaiveReadiness() {
        List<FleetReplay.Run> runs = FleetReplay.run(List.of("rollout"), OptionalInt.empty(), 2, 1);
        assertThat(runs).hasSize(2);
        FleetEnsemble naive = runs.get(0).ensemble();
        FleetEnsemble vitals = runs.get(1).ensemble();
        assertThat(runs.get(0).wiring()).isEqualTo(FleetScenarios.Wiring.NAIVE);
        assertThat(naive.passed()).as(FleetReport.verdicts(naive)).isTrue();
        assertThat(vitals.passed()).as(FleetReport.verdicts(vitals)).isTrue();
        for (int i = 0; i < 2; i++) {
            FleetResult.RolloutStatus n = naive.runs().get(i).rollout().orElseThrow();
            FleetResult.RolloutStatus v = vitals.runs().get(i).rollout().orElseThrow();
            assertThat(n.versions().get(1).errorPercent()).isGreaterThan(v.versions().get(1).errorPercent());
            assertThat(n.versions().get(1).p99LatencyMs()).isGreaterThan(v.versions().get(1).p99LatencyMs());
            // waiting for warm-up costs time: the Vitals rollout takes longer, and completes
            assertThat(v.completedAt()).isGreaterThan(n.completedAt());
        }
    }

    static Stream<Arguments> badRollouts() {
        return Stream.of(
            Arguments.of("{at: 10s, strategy: {maxSurge: 0, maxUnavailable: 0%}}",
                    "r.yaml: rollout: maxSurge and maxUnavailable may not both be 0"),
            Arguments.of("{at: 10s, strategy: {maxSurge: lots}}", "r.yaml: rollout.maxSurge must be a count (1) or a percentage (25%), was 'lots'"),
            Arguments.of("{at: 10s, strategy: {maxUnavailable: 150%}}", "r.yaml: rollout.maxUnavailable must be at most 100%, was '150%'"),
            Arguments.of("{at: 10s, warmup: {factor: 3, period: 30s, requests: 100}}",
                    "r.yaml:11: rollout.warmup: give exactly one of period (e.g. 30s) or requests (e.g. 2000)"),
            Arguments.of("{at: 10s, readiness: later}", "r.yaml:11: rollout.readiness: must be port-open or warmed, was 'later'"),
            Arguments.of("{at: 10s, minReadySeconds: 30, progressDeadlineSeconds: 30}",
                    "r.yaml: rollout.progressDeadlineSeconds (30) must be greater than minReadySeconds (30)"),
            Arguments.of("{strategy: {maxSurge: 1}}", "r.yaml:11: rollout.at"),
            Arguments.of("{at: 10s, surge: 1}", "r.yaml:11: rollout.surge"));
    }

    @ParameterizedTest
    @MethodSource("badRollouts")
    void badRolloutsAreOneLineErrors(String rollout, String message) {
        RefusedFleetFiles.assertRefused(FLEET + "rollout: " + rollout + "\n", "r.yaml").hasMessageStartingWith(message);
    }

    @Test
    void rolloutExpectationsParse() {
        assertThat(FleetExpectation.parse("rollout stalled == 0").metric()).isEqualTo(FleetExpectation.Metric.ROLLOUT_STALLED);
        assertThat(FleetExpectation.parse("new version errors < 1%").metric()).isEqualTo(FleetExpectation.Metric.NEW_VERSION_ERRORS);
        assertThatThrownBy(() -> FleetExpectation.parse("new version errors < 1")).hasMessageContaining("percentage");
    }
}
