package dev.vitals.kubesim.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vitals.kubesim.Rig;
import dev.vitals.kubesim.model.PodSpec;
import dev.vitals.kubesim.model.ProbeType;
import dev.vitals.kubesim.probe.ScriptedProbes;
import dev.vitals.kubesim.result.Expectation;
import dev.vitals.kubesim.result.SimulationResult;
import java.util.List;
import org.junit.jupiter.api.Test;

/** simulate's HTML report shows the verdict and every expectation with its actual value, as the text report does. */
class SimulateHtmlTest {
    private static final PodSpec POD = Rig.pod(Rig.probe(ProbeType.LIVENESS, 0, 1, 1, 1, 3), Rig.probe(ProbeType.READINESS, 0, 1, 1, 1, 3));

    @Test
    void aFailedDefaultExpectationAndItsActualValueAreOnThePage() {
        // liveness fails from 20 s: killed by the probe, so the default "no kill by a probe" fails
        SimulationResult r = new Rig().run(POD, 40, (p, i, since, t) -> p.type() == ProbeType.LIVENESS && t >= 20
                ? ScriptedProbes.fail() : ScriptedProbes.ok());
        List<Expectation.Check> defaults = Verdict.defaults(r, -1);
        Expectation.Check kills = defaults.get(0);
        assertThat(kills.passed()).isFalse();
        String page = Reports.html(r, POD, new Reports.Judged(List.of(), defaults, VerdictLine.Word.FAIL));
        assertThat(page).contains("<p class='verdict fail'>verdict: FAIL</p>");
        for (Expectation.Check c : defaults) {
            // the same word, expectation and actual value as the text line
            String word = c.passed() ? "PASS" : "FAIL";
            assertThat(page).contains("<td class='" + word.toLowerCase(java.util.Locale.ROOT) + "'>" + word + "</td><td>"
                    + c.expectation() + "</td><td>" + c.actual() + "</td><td>default (no scenario or --expect expectations given)</td>");
            assertThat(Verdict.text(defaults)).contains("  " + VerdictLine.of(c, ""));
        }
        assertThat(page.indexOf("<h2>Expectations</h2>")).isPositive().isLessThan(page.indexOf("<h2>Summary</h2>"));
    }

    @Test
    void expectAndScenarioExpectationsAreListedWithTheirSourceAndAPassingRunSaysPass() {
        SimulationResult r = new Rig().run(POD, 20, (p, i, since, t) -> ScriptedProbes.ok());
        Expectation.Check restarts = Expectation.parse("restarts == 0").check(r);
        assertThat(restarts.passed()).isTrue();
        String page = Reports.html(r, POD, new Reports.Judged(List.of(restarts), List.of(), VerdictLine.Word.PASS));
        assertThat(page).contains("<p class='verdict pass'>verdict: PASS</p>")
                .contains("<td class='pass'>PASS</td><td>restarts == 0</td><td>" + restarts.actual() + "</td><td>--expect</td>");
        // the unjudged page (replay's run pages) keeps no verdict of its own
        assertThat(Reports.html(r, POD)).doesNotContain("verdict:").doesNotContain("<h2>Expectations</h2>");
    }
}
