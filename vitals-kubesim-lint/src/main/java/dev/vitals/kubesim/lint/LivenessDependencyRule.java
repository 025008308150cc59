package dev.vitals.kubesim.lint;

import dev.vitals.kubesim.model.ProbeType;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * L10 (needs {@code --app-config}; cases C10, C17, C18): the liveness probe reaches a health
 * group holding dependency checks (db, redis, mail, search, brokers…, by indicator name or
 * Vitals check group). An outage of the dependency fails liveness on every replica at once and
 * restarts them all; a restart cannot cure a remote outage.
 */
final class LivenessDependencyRule extends BaseRule {
    LivenessDependencyRule() {
        super("L10", "liveness-dependency", Severity.ERROR, "with --app-config: the liveness probe reaches a group holding dependency checks",
                "with --app-config: the liveness probe's port and path reach a health group holding a dependency check", Needs.APP_CONFIG);
    }

    static Set<String> dependencies(Target t, LintContext ctx) {
        return AppProbes.endpoint(t, ctx, ProbeType.LIVENESS).map(AppHealth.Endpoint::dependencies).orElse(new TreeSet<>());
    }

    @Override
    public void check(Target t, LintContext ctx, Consumer<Finding> out) {
        Optional<AppHealth.Endpoint> e = AppProbes.endpoint(t, ctx, ProbeType.LIVENESS);
        if (e.isEmpty() || e.get().dependencies().isEmpty()) {
            return;
        }
        Set<String> deps = e.get().dependencies();
        String fix = e.get().vitals()
                ? "keep dependency checks out of Vitals' liveness group: vitals.checks.<name>.groups=readiness"
                : "keep liveness to checks a restart can cure: management.endpoint.health.group.liveness.include=livenessState"
                        + " and probe /actuator/health/liveness (or Vitals /livez on its own port); dependencies belong in"
                        + " readiness";
        out.accept(t.finding(this, "livenessProbe.httpGet.path", "liveness probe reaches " + e.get().label() + ", which"
                + " holds dependency check" + (deps.size() > 1 ? "s " : " ") + String.join(", ", deps)
                + (e.get().every() ? " (the group holds every indicator)" : "") + ": an outage of "
                + (deps.size() > 1 ? "any of them" : "it") + " fails liveness on every replica at once and restarts them all",
                "R41, C10, C17, C18", fix));
    }
}
