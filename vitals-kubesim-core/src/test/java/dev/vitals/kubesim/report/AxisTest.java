package dev.vitals.kubesim.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vitals.kubesim.Rig;
import dev.vitals.kubesim.model.PodSpec;
import dev.vitals.kubesim.model.ProbeType;
import dev.vitals.kubesim.probe.ScriptedProbes;
import dev.vitals.kubesim.result.SimulationResult;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Chart axes label both ends and round values between, however long the run. */
class AxisTest {
    private static List<String> labels(List<Axis.Tick> ticks) {
        return ticks.stream().map(Axis.Tick::label).toList();
    }

    @Test
    void theLastTickIsLabelledEvenOffTheStep() {
        // once a 37 s run's axis stopped at 35s: the end of the run had no label
        assertThat(labels(Axis.time(0, 37, 13))).containsExactly("0s", "5s", "10s", "15s", "20s", "25s", "30s", "37s");
        assertThat(labels(Axis.time(0, 60, 13))).containsExactly("0s", "5s", "10s", "15s", "20s", "25s", "30s", "35s", "40s", "45s",
                "50s", "55s", "60s");
        assertThat(labels(Axis.time(30, 150, 10))).containsExactly("30s", "45s", "60s", "75s", "90s", "105s", "120s", "135s", "150s");
        assertThat(labels(Axis.time(0, 2.5, 13))).containsExactly("0s", "0.5s", "1s", "1.5s", "2s", "2.5s");
        assertThat(labels(Axis.time(12.3, 14, 13))).first().isEqualTo("12.3s");
        for (double end : new double[] {1, 7, 37, 61, 119, 601, 3601, 90000}) {
            List<Axis.Tick> t = Axis.time(0, end, 10);
            assertThat(t).as("%s", end).hasSizeBetween(2, 10);
            assertThat(t.get(t.size() - 1).value()).isEqualTo(end);
            assertThat(t).as("ascending").isSortedAccordingTo((a, b) -> Double.compare(a.value(), b.value()));
        }
    }

    @Test
    void aCountAxisHasIntermediateValues() {
        assertThat(labels(Axis.count(6, 5))).containsExactly("0", "2", "4", "6");
        assertThat(labels(Axis.count(500, 5))).containsExactly("0", "200", "400", "500");
        assertThat(labels(Axis.count(1, 5))).containsExactly("0", "1");
        assertThat(labels(Axis.count(12, 5))).containsExactly("0", "5", "12");
        assertThatThrownBy(() -> Axis.count(0, 5)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Axis.time(3, 3, 5)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void simulatesTimelineLabelsTheEndOfTheRunAndTheValuesBetween() {
        PodSpec pod = Rig.pod(Rig.probe(ProbeType.LIVENESS, 0, 1, 1, 1, 3));
        SimulationResult r = new Rig().run(pod, 37, (p, i, since, t) -> ScriptedProbes.ok());
        String svg = Reports.html(r, pod);
        svg = svg.substring(svg.indexOf("<svg"), svg.indexOf("</svg>"));
        for (String label : List.of("0s", "5s", "20s", "30s", "37s")) {
            assertThat(svg).contains("fill='#555'>" + label + "</text>");
        }
        assertThat(svg).doesNotContain(">35s</text>");
    }
}
