package dev.vitals.kubesim.replay;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.vitals.kubesim.probe.ScriptedProbes;
import dev.vitals.kubesim.result.SimulationResult;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class ReplayReportTest {
    private static final ReplayCase INCIDENT = ReplayCatalog.select(List.of("incident")).get(0);
    private static RunRecord naive;
    private static RunRecord vitals;

    @BeforeAll
    static void runs() throws Exception {
        SimulationResult n = SimRuns.simulate(INCIDENT.pod(Wiring.NAIVE, 18080, 18081), Duration.ofSeconds(58),
                (probe, t, spec) -> t >= 20 && t < 40 ? ScriptedProbes.timeout(spec) : ScriptedProbes.ok());
        SimulationResult v = SimRuns.simulate(INCIDENT.pod(Wiring.VITALS, 18080, 18081), Duration.ofSeconds(58),
                (probe, t, spec) -> ScriptedProbes.ok());
        naive = SimRuns.record(INCIDENT, Wiring.NAIVE, n, Map.of("load", new double[] {10, 50}));
        vitals = SimRuns.record(INCIDENT, Wiring.VITALS, v, Map.of("load", new double[] {10, 50}));
    }

    @Test
    void tableHasOneRowPerRunWithTheFigures() {
        String t = ReplayReport.table(List.of(naive, vitals));
        String[] lines = t.split("\n");
        assertThat(lines[0]).contains("scenario", "wiring", "restarts", "not ready after Ready", "probe failures", "liveness p99");
        assertThat(lines[1]).startsWith("incident").contains("naive").contains(" " + naive.restarts() + " ").contains("3000.0 ms");
        assertThat(lines[2]).startsWith("incident").contains("vitals");
        assertThat(naive.restarts()).isPositive();
    }

    @Test
    void jsonCarriesTheIssuesFieldsPerRun() throws Exception {
        JsonNode root = new ObjectMapper().readTree(ReplayReport.json(List.of(naive, vitals)));
        assertThat(root.get("passed").asBoolean()).isTrue();
        JsonNode runs = root.get("runs");
        assertThat(runs).hasSize(2);
        JsonNode n = runs.get(0);
        assertThat(n.get("scenario").asText()).isEqualTo("incident");
        assertThat(n.get("wiring").asText()).isEqualTo("naive");
        assertThat(n.get("restarts").asInt()).isEqualTo(naive.restarts());
        assertThat(n.get("notReadySeconds").asDouble()).isEqualTo(naive.notReadySeconds(), org.assertj.core.data.Offset.offset(0.001));
        assertThat(n.get("probeFailures").asInt()).isEqualTo(naive.probeFailures());
        assertThat(n.get("checks")).isNotEmpty();
        assertThat(runs.get(1).get("restarts").asInt()).isZero();
    }

    @Test
    void verdictIsOneLinePerScenarioAndNamesAFailedCheck() {
        String ok = ReplayReport.verdicts(List.of(naive, vitals));
        assertThat(ok.split("\n")).hasSize(1);
        assertThat(ok).startsWith("PASS incident").contains("naive " + naive.restarts() + ", vitals 0");
        // the naive run judged as if it were Vitals' fails
        RunRecord wrong = SimRuns.record(INCIDENT, Wiring.VITALS, naive.result(), Map.of("load", new double[] {10, 50}));
        String bad = ReplayReport.verdicts(List.of(naive, wrong));
        assertThat(bad).startsWith("FAIL incident").contains("incident/vitals: expected restarts == 0, got restarts = " + naive.restarts());
        assertThat(ReplayReport.passed(List.of(naive, wrong))).isFalse();
        assertThat(ReplayReport.verdict(List.of(naive, wrong))).isEqualTo(dev.vitals.kubesim.report.VerdictLine.Word.FAIL);
        dev.vitals.kubesim.report.VerdictLineTest.assertOneForm(
                bad + dev.vitals.kubesim.report.VerdictLine.overall(ReplayReport.verdict(List.of(naive, wrong))) + "\n");
    }

    @Test
    void pagesLinkTheIndexAndShowTheCommandAndChecks() {
        String page = ReplayReport.page(naive);
        assertThat(page).contains("vitals replay: incident, naive wiring").contains("java -jar vitals-demo.jar --wiring naive")
                .doesNotContain("(injected runtime)").contains("Replay actions").contains("no kill before the first action")
                .contains("<svg");
        String index = ReplayReport.index(List.of(naive, vitals));
        assertThat(index).contains("href='incident-naive.html'").contains("href='incident-vitals.html'").contains("PASS incident");
        assertThat(ReplayReport.pageName(vitals)).isEqualTo("incident-vitals.html");
    }

    @Test
    void theIndexAndTheRunPagesGiveTheSameFiguresUnderTheSameLabels() {
        // once the index said "not ready" for the seconds after the first Ready and rounded p99 to the ms, while the
        // run page said "not ready" for the whole run and p99 to 0.1 ms; and "as expected" where the page said PASS
        String index = ReplayReport.index(List.of(naive, vitals));
        java.util.regex.Matcher header = java.util.regex.Pattern.compile("<th>wiring</th>(.*?)</tr>").matcher(index);
        assertThat(header.find()).isTrue();
        for (RunRecord r : List.of(naive, vitals)) {
            java.util.regex.Matcher row = java.util.regex.Pattern.compile("<a href='" + ReplayReport.pageName(r) + "'>[a-z]+</a></td>(.*?)</tr>")
                    .matcher(index);
            assertThat(row.find()).as(index).isTrue();
            String page = ReplayReport.page(r);
            java.util.regex.Matcher figures = java.util.regex.Pattern.compile("<table class='figures'><tr>(.*?)</tr>\n<tr>(.*?)</tr>")
                    .matcher(page);
            assertThat(figures.find()).as(page).isTrue();
            assertThat(figures.group(1)).isEqualTo(header.group(1));
            assertThat(figures.group(2)).isEqualTo(row.group(1));
            assertThat(figures.group(1)).isEqualTo("<th>restarts</th><th>not ready after Ready</th><th>probe failures</th>"
                    + "<th>liveness p99</th><th>verdict</th>");
            assertThat(row.group(1)).startsWith("<td>" + r.restarts() + "</td><td>" + String.format(java.util.Locale.ROOT, "%.1f s",
                    r.notReadySeconds()) + "</td>").endsWith("<td>PASS</td>");
            // the summary on the same page rounds liveness p99 as the figures do
            String p99 = String.format(java.util.Locale.ROOT, "%.1f ms", r.livenessP99Ms());
            assertThat(row.group(1)).contains("<td>" + p99 + "</td>");
            assertThat(page).contains("p99 " + p99);
        }
    }
}
