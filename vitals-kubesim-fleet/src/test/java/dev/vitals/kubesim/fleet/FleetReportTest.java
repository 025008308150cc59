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
    void aP99IsShownAsTheUpperBoundItIsInTextJsonAndHtml() throws Exception {
        // the footnote's claim, on the bins: the edge is at least the value and the value above 80 % of the edge
        for (double ms = 1.01; ms < 1e7; ms *= 1.07) {
            double edge = Recorder.binMs(Recorder.bin(ms));
            assertThat(ms).as("%s ms", ms).isLessThanOrEqualTo(edge).isGreaterThan(edge * Recorder.LOWEST_TRUE_FRACTION - 1e-9);
        }
        assertThat(FleetReport.P99_FOOTNOTE).isEqualTo("p99 ≤ N: N is the upper edge of the latency bin the 99th percentile falls"
                + " in (4 bins per octave), so the true p99 is at most N and above 80 % of N");
        FleetResult r = new ModelFleet(FleetScenarios.spec("shared-dependency", 3, FleetScenarios.Wiring.NAIVE), "c21").run();
        assertThat(FleetReport.text(r)).containsPattern("latency mean \\d+ ms, p99 ≤ \\d+ ms\n  \\(p99 ≤ N: N is the upper edge");
        assertThat(FleetReport.table(List.of(r))).contains("p99≤ ms").endsWith("(" + FleetReport.P99_FOOTNOTE + ")\n");
        FleetEnsemble e = FleetEnsemble.run(FleetScenarios.spec("shared-dependency", 3, FleetScenarios.Wiring.NAIVE), "c21", 2, 1);
        assertThat(FleetReport.ensembleTable(List.of(e))).contains("p99≤ ms").endsWith("(" + FleetReport.P99_FOOTNOTE + ")\n");
        ObjectMapper m = new ObjectMapper();
        for (String json : List.of(FleetReport.json(List.of(r), List.of("c21"), List.of("-")),
                FleetReport.ensembleJson(List.of(e), List.of("c21"), List.of("-")))) {
            JsonNode p = m.readTree(json).get("latencyPercentiles");
            assertThat(p.get("reported").asText()).isEqualTo("upperBinEdge");
            assertThat(p.get("binsPerOctave").asInt()).isEqualTo(4);
            assertThat(p.get("lowestTrueFraction").asDouble()).isEqualTo(0.8);
            assertThat(p.get("note").asText()).isEqualTo(FleetReport.P99_FOOTNOTE);
        }
        String footnote = FleetReport.esc(FleetReport.P99_FOOTNOTE);
        assertThat(FleetReport.html("c21", List.of(r))).contains(footnote).contains("the upper edge of its latency bin");
        assertThat(FleetReport.ensembleHtml("c21", List.of(e))).contains(footnote).contains("<th>p99≤ ms</th>");
    }

    @Test
    void textNamesTheTotalsAndEachVerdict() {
        FleetResult r = new ModelFleet(FleetScenarios.spec("shared-dependency", 3, FleetScenarios.Wiring.NAIVE), "c21").run();
        String text = FleetReport.text(r);
        assertThat(text).startsWith("c21 (model engine): 3 replicas, 180 s after a ")
                .contains("seconds with zero endpoints").contains("PASS zero-endpoint seconds >= 20");
    }

    @Test
    void theChartsLabelTheLastSecondAndTheEndpointsBetween() {
        // once the time axes stopped at the last multiple of their step and the endpoints axis read only "6" and "0"
        FleetSpec spec = FleetScenarios.spec("shared-dependency", 6, FleetScenarios.Wiring.NAIVE).withDuration(Duration.ofSeconds(97));
        FleetResult r = new ModelFleet(spec, "axes").run();
        String html = FleetReport.html("axes", List.of(r));
        java.util.regex.Matcher svg = java.util.regex.Pattern.compile("<svg.*?</svg>", java.util.regex.Pattern.DOTALL).matcher(html);
        int charts = 0;
        String last = dev.vitals.kubesim.report.Axis.time(0, 1, 2).get(1).label(); // "1s"
        while (svg.find()) {
            String chart = svg.group();
            java.util.List<String> times = new java.util.ArrayList<>();
            java.util.regex.Matcher t = java.util.regex.Pattern.compile(">([0-9.]+s)</text>").matcher(chart);
            while (t.find()) {
                times.add(t.group(1));
            }
            if (!times.isEmpty()) {
                charts++;
                last = times.get(times.size() - 1);
                assertThat(times).as(chart).hasSizeGreaterThan(3);
                assertThat(chart).contains("text-anchor='end'>" + last + "</text>");
            }
        }
        assertThat(charts).isGreaterThanOrEqualTo(3);
        assertThat(last).isNotEqualTo("1s").matches("[0-9.]+s").doesNotEndWith("0s").doesNotEndWith("5s");
        assertThat(html).contains("font-size='11'>0</text>").contains("font-size='11'>2</text>").contains("font-size='11'>4</text>")
                .contains("font-size='11'>6</text>");
        // the requests chart: 0, round rates between, and its top
        assertThat(html.split("/s</text>", -1).length - 1).isGreaterThanOrEqualTo(3);
        assertThat(html).contains("font-size='11'>0/s</text>");
    }

    @Test
    void reportsFollowThePinnedBurstFromPodToPod() throws Exception {
        FleetResult r = new ModelFleet(FleetScenarios.spec("incident-pinned-sustained", 12, FleetScenarios.Wiring.NAIVE), "hot").run();
        List<FleetResult.Hold> holds = r.holds();
        assertThat(holds.size()).isGreaterThanOrEqualTo(3);
        String text = FleetReport.text(r);
        assertThat(text).contains("routing: kube-proxy iptables, sessionAffinity ClientIP (10800 s)")
                .contains("kills " + r.totals().kills() + " (" + r.totals().podsKilled() + " distinct pods)")
                .contains("key 0 of 'finance script (50 exports kept in flight, one source address)' held by r" + holds.get(0).replica()
                        + " from 2.0 s, then r" + holds.get(1).replica() + " from ")
                .contains("peak in flight (requests waiting or in service): r");
        JsonNode run = new ObjectMapper().readTree(FleetReport.json(List.of(r), List.of("hot"), List.of("naive"))).get("runs").get(0);
        assertThat(run.get("podsKilled").asInt()).isEqualTo(r.totals().podsKilled()).isGreaterThanOrEqualTo(2);
        assertThat(run.get("holds")).hasSize(holds.size());
        assertThat(run.get("holds").get(1).get("replica").asInt()).isEqualTo(holds.get(1).replica());
        long peak = r.lanes().get(holds.get(0).replica()).peakInFlight();
        assertThat(run.get("lanes").get(holds.get(0).replica()).get("peakInFlight").asLong()).isEqualTo(peak).isGreaterThan(50);
        // the lanes draw the holder: one orange bar per stretch of the key on a pod (within the run)
        String html = FleetReport.html("hot", List.of(r));
        int bars = html.split("fill='#f29900'", -1).length - 1;
        assertThat(bars).isEqualTo(holds.size());
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
