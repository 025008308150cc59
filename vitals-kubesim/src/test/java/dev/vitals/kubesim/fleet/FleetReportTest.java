package dev.vitals.kubesim.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class FleetReportTest {

    @Test
    void largeFleetsDrawTheFirstLanesAndKeepEveryLaneInJson() throws Exception {
        FleetSpec spec = FleetBenchmark.workload(500, 30).withDuration(Duration.ofSeconds(20));
        FleetResult r = new ModelFleet(spec, "big").run();
        String html = FleetReport.html("big", List.of(r));
        assertThat(html).contains("(first " + FleetReport.MAX_LANES + " of 500)").doesNotContain("<script");
        JsonNode run = new ObjectMapper().readTree(FleetReport.json(List.of(r), List.of("big"), List.of("-"))).get("runs").get(0);
        assertThat(run.get("lanes")).hasSize(500);
        assertThat(run.get("replicas").asInt()).isEqualTo(500);
        assertThat(run.get("series")).hasSize(20);
        // the kill at 30 s is after the end: no restart
        assertThat(run.get("restarts").asInt()).isZero();
    }

    @Test
    void latencyBinsHoldTheValueWithin25Percent() {
        for (double ms = 1.01; ms < 1e7; ms *= 1.07) {
            double edge = Recorder.binMs(Recorder.bin(ms));
            assertThat(edge).as("%s ms", ms).isGreaterThanOrEqualTo(ms).isLessThanOrEqualTo(ms * 1.25 + 1e-9);
        }
        assertThat(Recorder.bin(0.2)).isZero();
        assertThat(Recorder.binMs(0)).isEqualTo(1.0);
    }

    @Test
    void textNamesTheTotalsAndEachVerdict() {
        FleetResult r = new ModelFleet(FleetScenarios.spec("shared-dependency", 3, FleetScenarios.Wiring.NAIVE), "c21").run();
        String text = FleetReport.text(r);
        assertThat(text).startsWith("c21 (model engine): 3 replicas, 180 s after a ")
                .contains("seconds with zero endpoints").contains("[PASS] zero-endpoint seconds >= 20");
    }

    @Test
    void everyReplicaLosingReadinessAtOnceIsFlaggedAsAProbableCheckerFault() throws Exception {
        // Issue 40. C21: the shared dependency's outage fails every naive replica's readiness together.
        FleetResult shared = new ModelFleet(FleetScenarios.spec("shared-dependency", 3, FleetScenarios.Wiring.NAIVE), "c21").run();
        assertThat(shared.totals().maxDown()).isEqualTo(3);
        assertThat(FleetReport.text(shared)).contains("NOTE  all 3 replicas were not Ready at the same moment: a probable checker fault");
        JsonNode run = new ObjectMapper().readTree(FleetReport.json(List.of(shared), List.of("c21"), List.of("-"))).get("runs").get(0);
        assertThat(run.path("probableCheckerFault").asBoolean()).isTrue();
        // The Vitals wiring keeps the dependency out of readiness (DEGRADED): no replica goes, no note.
        FleetResult vitals = new ModelFleet(FleetScenarios.spec("shared-dependency", 3, FleetScenarios.Wiring.VITALS), "c21").run();
        assertThat(vitals.totals().maxDown()).isLessThan(3);
        assertThat(FleetReport.text(vitals)).doesNotContain("probable checker fault");
        JsonNode calm = new ObjectMapper().readTree(FleetReport.json(List.of(vitals), List.of("c21"), List.of("-"))).get("runs").get(0);
        assertThat(calm.has("probableCheckerFault")).isFalse();
    }
}
