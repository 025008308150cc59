package dev.vitals.kubesim.report;

import dev.vitals.kubesim.model.SimEvent;
import dev.vitals.kubesim.result.Expectation;
import dev.vitals.kubesim.result.SimulationResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The expectations a run is judged by when neither the scenario nor {@code --expect} gives
 * any, so that a run without a scenario cannot pass a crash loop: no container killed by a
 * probe; Ready at least once; and, once Ready, Ready to the end — unless a scenario action
 * (a fault, a pause, a signal, a load) came first and may explain the change. Stateless.
 */
public final class Verdict {
    private Verdict() {
    }

    /**
     * @param r the run
     * @param firstActionAt seconds of the scenario's first action, or a negative number when there is none
     * @return the default expectations' outcomes, in the order above
     */
    public static List<Expectation.Check> defaults(SimulationResult r, double firstActionAt) {
        List<Expectation.Check> out = new ArrayList<>();
        // a kill names its probe; a pod deletion's stop (R53) has none and is no kill by a probe
        List<Double> probeKills = new ArrayList<>();
        for (SimEvent e : r.events()) {
            if (e.type() == SimEvent.Type.KILL && e.probe().isPresent()) {
                probeKills.add(dev.vitals.kubesim.model.Durations.seconds(e.at()));
            }
        }
        out.add(new Expectation.Check("no kill by a probe", probeKills.isEmpty(), "kills = " + probeKills.size()
                + (probeKills.isEmpty() ? "" : " at " + times(probeKills))));
        double firstReady = -1;
        double lostAt = -1;
        for (SimEvent e : r.events()) {
            if (e.type() == SimEvent.Type.READY && firstReady < 0) {
                firstReady = dev.vitals.kubesim.model.Durations.seconds(e.at());
            } else if (e.type() == SimEvent.Type.NOT_READY && firstReady >= 0 && lostAt < 0
                    && dev.vitals.kubesim.model.Durations.seconds(e.at()) < dev.vitals.kubesim.model.Durations.seconds(r.duration()) - 1e-6 && (firstActionAt < 0 || dev.vitals.kubesim.model.Durations.seconds(e.at()) < firstActionAt)) {
                lostAt = dev.vitals.kubesim.model.Durations.seconds(e.at());
            }
        }
        out.add(new Expectation.Check("ready at least once", firstReady >= 0, firstReady >= 0
                ? String.format(Locale.ROOT, "first ready at %.1fs", firstReady) : "never ready in "
                        + Expectation.fmt(dev.vitals.kubesim.model.Durations.seconds(r.duration())) + "s"));
        String scope = firstActionAt >= 0 ? String.format(Locale.ROOT, " (until the first action at %.1fs)", firstActionAt) : "";
        out.add(new Expectation.Check("stays ready after the first ready" + scope, firstReady >= 0 && lostAt < 0,
                firstReady < 0 ? "never ready" : lostAt < 0 ? "ready throughout" + r.readyIntervalsText()
                        : String.format(Locale.ROOT, "not ready at %.1fs", lostAt) + r.readyIntervalsText()));
        return out;
    }

    private static String times(List<Double> ts) {
        List<String> s = new ArrayList<>();
        for (double t : ts) {
            s.add(String.format(Locale.ROOT, "%.1fs", t));
        }
        return String.join(", ", s);
    }

    /**
     * Renders the expectations' verdicts.
     *
     * @param checks the checked expectations, in the scenario's order
     * @return the text block printed after the summary
     */
    public static String text(List<Expectation.Check> checks) {
        StringBuilder b = new StringBuilder("default expectations (no scenario or --expect expectations given):\n");
        for (Expectation.Check c : checks) {
            b.append("  ").append(VerdictLine.of(c, "")).append('\n');
        }
        return b.toString();
    }
}
