package dev.vitals.kubesim.lint;

import dev.vitals.kubesim.model.ProbeSpec;
import dev.vitals.kubesim.model.ProbeType;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * L5: no startupProbe, and liveness waits a long initialDelaySeconds (≥ 30 s): a start slower
 * than the delay is killed; a faster one runs with no liveness for the rest of it.
 */
final class MissingStartupRule extends BaseRule {
    static final int LONG_DELAY = 30;

    MissingStartupRule() {
        super("L5", "missing-startup-probe", Severity.INFO, "no startupProbe but liveness initialDelaySeconds ≥ " + LONG_DELAY,
                "no startupProbe, and liveness initialDelaySeconds is 30 s or more", Needs.MANIFEST);
    }

    @Override
    public void check(Target t, LintContext ctx, Consumer<Finding> out) {
        Optional<ProbeSpec> live = t.probe(ProbeType.LIVENESS);
        if (t.probe(ProbeType.STARTUP).isPresent() || live.isEmpty() || live.get().initialDelaySeconds() < LONG_DELAY) {
            return;
        }
        ProbeSpec l = live.get();
        int budget = l.initialDelaySeconds() + l.failureThreshold() * l.periodSeconds();
        // the startup probe must allow at least what liveness allows today: never a shorter start-up budget
        int ft = Math.max(1, (budget + l.periodSeconds() - 1) / l.periodSeconds());
        com.fasterxml.jackson.databind.node.ObjectNode startup = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance
                .objectNode();
        startup.set(l.handler().field(), t.container().path("livenessProbe").path(l.handler().field()).deepCopy());
        startup.put("periodSeconds", l.periodSeconds());
        startup.put("timeoutSeconds", l.timeoutSeconds());
        startup.put("failureThreshold", ft);
        out.accept(t.finding(this, "livenessProbe.initialDelaySeconds", "no startupProbe, and liveness waits"
                + " initialDelaySeconds " + l.initialDelaySeconds() + "s before its first probe: a start slower than "
                + budget + "s (initialDelaySeconds " + l.initialDelaySeconds() + " + failureThreshold " + Probes.budget(l) + ") is killed, and after a fast start"
                + " liveness is blind for the rest of the delay, after every restart", "R16, R30, R33, C11",
                "add a startupProbe on the liveness endpoint with periodSeconds " + l.periodSeconds() + " and failureThreshold "
                        + ft + " (" + ft + " × " + l.periodSeconds() + "s = " + ft * l.periodSeconds() + "s ≥ the " + budget
                        + "s liveness allows today), and set livenessProbe.initialDelaySeconds to 0",
                Finding.Patch.set("startupProbe", startup).andThen(Finding.Patch.set("livenessProbe.initialDelaySeconds", 0))));
    }
}
