package dev.vitals.kubesim.lint;

import dev.vitals.kubesim.model.ProbeType;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * L9 (needs {@code --app-config}; case C21): readiness holds a critical check of a shared
 * dependency, in a workload with several replicas. One blip of that dependency takes every
 * replica out of its Service within failureThreshold × periodSeconds — also for requests that
 * never use it. Not fired for {@code replicas: 1}, nor for checks marked non-critical
 * ({@code vitals.checks.<name>.critical=false}: DEGRADED, still Ready).
 */
final class SharedDependencyRule extends BaseRule {
    SharedDependencyRule() {
        super("L9", "shared-dependency-readiness", Severity.WARNING, "with --app-config: readiness fails on one shared dependency, taking every replica out at once",
                "with --app-config: readiness reaches a critical check of a shared dependency and the workload has more than one replica", Needs.APP_CONFIG);
    }

    @Override
    public void check(Target t, LintContext ctx, Consumer<Finding> out) {
        if (t.replicas().isPresent() && t.replicas().getAsInt() <= 1) {
            return;
        }
        Optional<AppHealth.Endpoint> e = AppProbes.endpoint(t, ctx, ProbeType.READINESS);
        Optional<AppHealth> app = ctx.app(t);
        if (e.isEmpty() || app.isEmpty()) {
            return;
        }
        Set<String> critical = new TreeSet<>();
        for (String d : e.get().dependencies()) {
            if (app.get().critical(d)) {
                critical.add(d);
            }
        }
        if (critical.isEmpty()) {
            return;
        }
        String replicas = t.replicas().isPresent() ? t.replicas().getAsInt() + " replicas" : "every replica";
        int window = t.probe(ProbeType.READINESS).map(p -> p.failureThreshold() * p.periodSeconds()).orElse(30);
        out.accept(t.finding(this, "readinessProbe.httpGet.path", "readiness reaches " + e.get().label() + ", where "
                + String.join(", ", critical) + " " + (critical.size() > 1 ? "are critical checks" : "is a critical check")
                + " of a shared dependency: one blip of it takes " + replicas + " out of the Service within ≈ " + window
                + "s, also for requests that never use it", "R38, C21",
                fix(e.get(), app.get(), critical)));
    }

    /** The fix in the settings the application has: Vitals' when it runs Vitals, else Actuator's. */
    private static String fix(AppHealth.Endpoint e, AppHealth app, Set<String> critical) {
        String first = critical.iterator().next();
        String names = String.join(",", critical);
        String tail = ", or guard the dependency with a circuit breaker; keep in readiness only what every request needs";
        if (e.vitals() || app.vitalsPort().isPresent()) {
            return "make the check non-critical so a failure degrades instead of shedding (Vitals: vitals.checks." + first
                    + ".critical=false → DEGRADED, HTTP 200)" + tail;
        }
        // Actuator alone has no non-critical member: any DOWN member fails the group
        if (e.every()) {
            return "point readinessProbe at a readiness group without " + names + " (/actuator/health/readiness with"
                    + " management.endpoint.health.group.readiness.include=readinessState) instead of " + e.label() + tail;
        }
        if (e.members().size() == 1 && e.members().contains(e.group())) {
            return "probe a readiness group instead of the single indicator " + e.group() + " (/actuator/health/readiness,"
                    + " management.endpoint.health.group.readiness.include=readinessState)" + tail;
        }
        return "take " + names + " out of the Actuator group '" + e.group() + "' (management.endpoint.health.group."
                + e.group() + ".exclude=" + names + ", or an include list without it): Actuator has no non-critical"
                + " check, any DOWN member fails the group" + tail;
    }
}
