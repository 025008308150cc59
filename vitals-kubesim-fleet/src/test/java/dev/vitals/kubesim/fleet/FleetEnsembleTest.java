package dev.vitals.kubesim.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Ensembles: one spec, several seeds; median and range; verdicts over the runs. */
class FleetEnsembleTest {

    /** 1,200 export clients on 30 replicas of 40 workers: the fleet sits exactly at its threshold. */
    private static final String NEAR_THRESHOLD = String.join("\n",
            "replicas: 30",
            "duration: 6m",
            "replica: {workers: 40, startTime: 4500ms, warmupFactor: 1.5, warmupTime: 10s}",
            "probes:",
            "  server: app-pool",
            "  startup: {periodSeconds: 1, failureThreshold: 60}",
            "  liveness: {periodSeconds: 2, timeoutSeconds: 3, failureThreshold: 3}",
            "  readiness: {periodSeconds: 2, timeoutSeconds: 3, failureThreshold: 3}",
            "clients:",
            "  - {name: exports, concurrency: 1200, persistent: true, from: 2s, serviceTime: {min: 4s, max: 12s}, timeout: 60s,"
                    + " retries: 1, retryDelay: 1s}",
            "expect:",
            "  - restarts == 0",
            "  - restarts < 100",
            "  - restarts < 100 in 60% of runs",
            "");

    @Test
    void aNearThresholdFleetIsReportedUnstable() {
        FleetSpec spec = FleetSpecReader.parse(NEAR_THRESHOLD, "near.yaml");
        FleetEnsemble e = FleetEnsemble.run(spec, "near", 5, 2);
        assertThat(e.seeds()).containsExactly(1L, 2L, 3L, 4L, 5L);
        FleetEnsemble.Spread restarts = e.spread(FleetEnsemble.FIGURES.get(0));
        // the seeds disagree: some runs restart a replica or two, others cascade
        assertThat(restarts.min()).isLessThan(restarts.max());
        List<FleetEnsemble.Verdict> v = e.verdicts();
        assertThat(v).allSatisfy(x -> assertThat(x.runs()).isEqualTo(5));
        // each verdict agrees with the runs it summarises
        for (int i = 0; i < v.size(); i++) {
            FleetExpectation x = spec.expectations().get(i);
            long held = e.runs().stream().filter(r -> x.holds(x.actual(r.totals()))).count();
            assertThat(v.get(i).held()).isEqualTo((int) held);
        }
        assertThat(v).anySatisfy(x -> assertThat(x.unstable()).isTrue());
        FleetEnsemble.Verdict unstable = v.stream().filter(FleetEnsemble.Verdict::unstable).findFirst().orElseThrow();
        assertThat(unstable.passed()).as("an unstable verdict does not pass without a stated share").isEqualTo(unstable.sharePercent() < 100
                && unstable.held() * 100 >= unstable.sharePercent() * 5);
        String text = FleetReport.verdicts(e);
        assertThat(text).contains("unstable: ").contains(" of 5 run");
        assertThat(e.passed()).isFalse();
    }

    @Test
    void aStatedShareDecidesTheVerdict() {
        FleetExpectation all = FleetExpectation.parse("restarts == 0");
        FleetExpectation most = FleetExpectation.parse("restarts == 0 in 60% of runs");
        assertThat(all.sharePercent()).isEqualTo(100);
        assertThat(most.sharePercent()).isEqualTo(60);
        FleetEnsemble.Verdict threeOfFive = new FleetEnsemble.Verdict(most.text(), 3, 5, 60, new FleetEnsemble.Spread(0, 0, 4), List.of(4L, 5L));
        FleetEnsemble.Verdict twoOfFive = new FleetEnsemble.Verdict(most.text(), 2, 5, 60, new FleetEnsemble.Spread(1, 0, 4), List.of(3L, 4L, 5L));
        assertThat(threeOfFive.passed()).isTrue();
        assertThat(threeOfFive.unstable()).isTrue();
        assertThat(twoOfFive.passed()).isFalse();
        assertThatThrownBy(() -> FleetExpectation.parse("restarts == 0 in 0% of runs")).hasMessageContaining("1-100%");
        assertThatThrownBy(() -> FleetExpectation.parse("restarts == 0 in 101% of runs")).hasMessageContaining("1-100%");
        assertThat(FleetExpectation.parse("client errors < 1% in 80% of runs").sharePercent()).isEqualTo(80);
        assertThat(FleetExpectation.parse("max down <= 1").metric()).isEqualTo(FleetExpectation.Metric.MAX_DOWN);
        assertThat(FleetExpectation.parse("crashloop seconds < 60").metric()).isEqualTo(FleetExpectation.Metric.CRASHLOOP_SECONDS);
        assertThat(FleetExpectation.parse("not-ready seconds < 60").metric()).isEqualTo(FleetExpectation.Metric.NOT_READY_SECONDS);
        assertThat(FleetExpectation.parse("no-endpoint requests == 0").metric()).isEqualTo(FleetExpectation.Metric.NO_ENDPOINT_REQUESTS);
    }

    @Test
    void theReplayReportsMedianAndRangeInTextJsonAndHtml() throws Exception {
        List<FleetReplay.Run> runs = FleetReplay.run(List.of("rebalance"), java.util.OptionalInt.of(6), 5, 2);
        assertThat(runs).hasSize(2);
        String table = FleetReport.ensembleTable(FleetReplay.ensembles(runs));
        assertThat(table).contains("rebalance naive").contains("crashloop s").contains("max down");
        JsonNode root = new ObjectMapper().readTree(FleetReplay.json(runs));
        assertThat(root.get("ensembles")).hasSize(2);
        assertThat(root.get("runs")).hasSize(10);
        JsonNode naive = root.get("ensembles").get(0);
        assertThat(naive.get("seeds")).hasSize(5);
        JsonNode restarts = naive.get("figures").get("restarts");
        assertThat(restarts.get("min").asDouble()).isLessThanOrEqualTo(restarts.get("median").asDouble());
        assertThat(restarts.get("median").asDouble()).isLessThanOrEqualTo(restarts.get("max").asDouble());
        assertThat(naive.get("checks").get(0).has("unstable")).isTrue();
        String html = FleetReport.ensembleHtml("rebalance", FleetReplay.ensembles(runs));
        assertThat(html).contains("5 runs").contains("the median run (seed").contains("fill='#aecbfa'").doesNotContain("<script");
    }

    @Test
    void countsOutOfRangeAreRejected() {
        FleetSpec spec = FleetSpecReader.parse(NEAR_THRESHOLD, "near.yaml");
        assertThatThrownBy(() -> FleetEnsemble.run(spec, "x", 0, 1)).hasMessageContaining("runs must be 1-1000");
        assertThatThrownBy(() -> FleetEnsemble.run(spec, "x", 2, 0)).hasMessageContaining("threads");
    }
}
