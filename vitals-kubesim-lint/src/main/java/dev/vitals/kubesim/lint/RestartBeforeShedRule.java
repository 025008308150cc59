package dev.vitals.kubesim.lint;

import dev.vitals.kubesim.model.ProbeSpec;
import dev.vitals.kubesim.model.ProbeType;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * L4: liveness kills before readiness can shed traffic, where both fail for the same reason.
 * Condition: the two probes share an endpoint (L1's test), or (with {@code --app-config})
 * liveness reaches a dependency check; and failureThreshold × periodSeconds of liveness is at
 * most readiness's. Probes on separate endpoints (/livez and /readyz) fail for different
 * reasons, so their budgets are not compared. Fix arithmetic: shedding comes first when
 * readiness FT × P &lt; liveness FT × P.
 */
final class RestartBeforeShedRule extends BaseRule {
    RestartBeforeShedRule() {
        super("L4", "restart-before-shed", Severity.WARNING, "liveness kills no later than readiness sheds, where both fail for the same reason",
                "a Service in the input selects the pod, both probes fail for one reason (one endpoint, or with --app-config a dependency in liveness) and liveness failureThreshold x periodSeconds is at most readiness's", Needs.APP_CONFIG_AND_SERVICE);
    }

    @Override
    public void check(Target t, LintContext ctx, Consumer<Finding> out) {
        Optional<ProbeSpec> live = t.probe(ProbeType.LIVENESS);
        Optional<ProbeSpec> ready = t.probe(ProbeType.READINESS);
        if (live.isEmpty() || ready.isEmpty() || !Probes.asksOverNetwork(live.get().handler())) {
            return;
        }
        ProbeSpec l = live.get();
        ProbeSpec r = ready.get();
        Optional<Probes.KillBeforeShed> order = Probes.KillBeforeShed.of(l, r);
        if (order.isEmpty()) {
            return;
        }
        String why;
        String better;
        // one endpoint is L1's finding (and L21's when liveness gives up no later on that port): here, a dependency ties them
        Set<String> deps = LivenessDependencyRule.dependencies(t, ctx);
        if (!deps.isEmpty() && !Probes.sameEndpoint(t, l.handler(), r.handler())) {
            why = "liveness reaches dependency check" + (deps.size() > 1 ? "s " : " ") + String.join(", ", deps)
                    + ", so an outage fails liveness as it fails readiness";
            // the endpoints are already separate: what ties them is the dependency in liveness
            better = "better, take " + String.join(", ", deps) + " out of what liveness checks (L10), so an outage only"
                    + " sheds traffic";
        } else {
            return;
        }
        int killAfter = order.get().killAfter();
        int shedAfter = order.get().shedAfter();
        Probes.LivenessFix fix = Probes.LivenessFix.of(l, r);
        out.accept(t.finding(this, "livenessProbe.failureThreshold", why + ": liveness kills after about "
                + killAfter + "s of failures (failureThreshold " + Probes.budget(l) + ") and readiness needs " + shedAfter
                + "s (failureThreshold " + Probes.budget(r) + ") to take the pod out of service, so a shared problem restarts the pod"
                + " before (or instead of) shedding its traffic", "R25, R26, R38, C10",
                fix.text() + "; " + better, Finding.Patch.set("livenessProbe.failureThreshold", fix.failureThreshold())));
    }
}
