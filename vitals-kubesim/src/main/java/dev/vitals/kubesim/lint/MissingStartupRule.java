package dev.vitals.kubesim.lint;

import dev.vitals.kubesim.model.ProbeSpec;
import dev.vitals.kubesim.model.ProbeType;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * L5: no startupProbe, and liveness waits a long initialDelaySeconds (≥ 30 s): a start slower
 * than the delay is killed; a faster one runs with no liveness for the rest of it.
 */
final class MissingStartupRule implements Rule {
    static final int LONG_DELAY = 30;

    @Override
    public String id() {
        return "L5";
    }

    @Override
    public String name() {
        return "missing-startup-probe";
    }

    @Override
    public Severity severity() {
        return Severity.WARNING;
    }

    @Override
    public String summary() {
        return "no startupProbe but liveness initialDelaySeconds ≥ " + LONG_DELAY;
    }

    @Override
    public void check(Target t, LintContext ctx, Consumer<Finding> out) {
        Optional<ProbeSpec> live = t.probe(ProbeType.LIVENESS);
        if (t.probe(ProbeType.STARTUP).isPresent() || live.isEmpty() || live.get().initialDelaySeconds() < LONG_DELAY) {
            return;
        }
        ProbeSpec l = live.get();
        int ft = Math.max(3, (2 * l.initialDelaySeconds() + l.periodSeconds() - 1) / l.periodSeconds());
        out.accept(t.finding(this, "livenessProbe.initialDelaySeconds", "no startupProbe, and liveness waits"
                + " initialDelaySeconds " + l.initialDelaySeconds() + "s: a start slower than that is killed; a faster one"
                + " runs without liveness for the rest of it", "R16, R30, R33, C11",
                "add a startupProbe on the liveness endpoint with periodSeconds " + l.periodSeconds()
                        + " and failureThreshold " + ft + " (budget " + ft * l.periodSeconds()
                        + "s ≈ 2× the delay), and drop livenessProbe.initialDelaySeconds to 0"));
    }
}
