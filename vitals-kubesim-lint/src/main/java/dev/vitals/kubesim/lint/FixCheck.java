package dev.vitals.kubesim.lint;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.vitals.kubesim.model.PodSpec;
import dev.vitals.kubesim.model.ProbeSpec;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Checks a fix before it is offered: the finding's patch is applied to a copy of the container,
 * the copy is linted with the same rules and context, and the fix is offered only when the API
 * server would accept the copy, its own finding is gone, no other finding appears, and no probe
 * budget shrinks — the start-up budget (startupProbe, else liveness: {@code initialDelaySeconds +
 * failureThreshold × periodSeconds}) and the liveness budget ({@code failureThreshold ×
 * periodSeconds}). Stateless.
 */
final class FixCheck {
    private FixCheck() {
    }

    /**
     * @param f a finding with a patch
     * @param t the container it is about
     * @param before every finding the rules made on that container
     * @param rules the rules of the run
     * @param ctx the run's context
     * @return why the fix is not offered, or empty when it passes
     */
    static Optional<String> problem(Finding f, Target t, List<Finding> before, List<Rule> rules, LintContext ctx) {
        if (f.patch().isEmpty()) {
            return Optional.empty();
        }
        ObjectNode copy = t.container().deepCopy();
        f.patch().get().apply(copy);
        Optional<Target> fixed = t.with(copy);
        if (fixed.isEmpty()) {
            return Optional.of("the API server would reject the fixed container");
        }
        Set<String> had = new HashSet<>();
        before.forEach(x -> had.add(key(x)));
        List<Finding> after = new ArrayList<>();
        for (Rule r : rules) {
            if (r instanceof BaseRule && ((BaseRule) r).candidatesOnly()) {
                continue; // candidates, judged only against the whole input's Services
            }
            if (!r.needsAppConfig() || ctx.hasAppConfig()) {
                r.check(fixed.get(), ctx, after::add);
            }
        }
        for (Finding x : after) {
            if (key(x).equals(key(f))) {
                return Optional.of("the finding stays after the fix");
            }
            if (!had.contains(key(x))) {
                return Optional.of("the fix makes " + x.rule() + " " + x.name() + " fire");
            }
        }
        PodSpec a = t.pod().orElseThrow();
        PodSpec b = fixed.get().pod().orElseThrow();
        if (startBudget(b) < startBudget(a)) {
            return Optional.of("the fix shrinks the start-up budget from " + startBudget(a) + "s to " + startBudget(b) + "s");
        }
        if (livenessBudget(b) < livenessBudget(a)) {
            return Optional.of("the fix shrinks the liveness budget from " + livenessBudget(a) + "s to " + livenessBudget(b) + "s");
        }
        return Optional.empty();
    }

    /** @return seconds a container that never answers lives: startup's, else liveness' delay + FT × P; max when no probe kills */
    static long startBudget(PodSpec p) {
        Optional<ProbeSpec> s = p.startup().or(p::liveness);
        return s.map(x -> (long) x.initialDelaySeconds() + (long) x.failureThreshold() * x.periodSeconds()).orElse(Long.MAX_VALUE);
    }

    /** @return seconds of failures liveness tolerates once started ({@code failureThreshold × periodSeconds}); max without liveness */
    static long livenessBudget(PodSpec p) {
        return p.liveness().map(x -> (long) x.failureThreshold() * x.periodSeconds()).orElse(Long.MAX_VALUE);
    }

    private static String key(Finding f) {
        return f.rule() + "\u0000" + f.field();
    }
}
