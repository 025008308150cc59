package dev.vitals.kubesim.lint;

import dev.vitals.kubesim.model.ProbeType;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * L12 (needs {@code --app-config}; case C18): the liveness probe is pointed at the readiness
 * group (or the whole health endpoint): whatever fails readiness — a dependency, a drain, a
 * refusal of traffic — now restarts the pod.
 */
final class LivenessReadinessGroupRule extends BaseRule {
    LivenessReadinessGroupRule() {
        super("L12", "liveness-on-readiness-group", Severity.ERROR, "with --app-config: the liveness probe reaches the readiness group or the whole health endpoint",
                "with --app-config: the liveness probe reaches the readiness group or the whole health endpoint", Needs.APP_CONFIG);
    }

    @Override
    public void check(Target t, LintContext ctx, Consumer<Finding> out) {
        Optional<AppHealth.Endpoint> e = AppProbes.endpoint(t, ctx, ProbeType.LIVENESS);
        if (e.isEmpty() || !(e.get().group().equals("readiness") || e.get().group().equals("health"))) {
            return;
        }
        out.accept(t.finding(this, "livenessProbe.httpGet.path", "liveness probe reaches " + e.get().label()
                + ": whatever fails readiness (a dependency, a drain, refusing traffic) restarts the pod instead of"
                + " only taking it out of the Service", "R38, R41, C18",
                e.get().vitals() ? "probe Vitals' /livez for liveness" : "probe /actuator/health/liveness (group liveness,"
                        + " livenessState) for liveness and keep /readiness for the readinessProbe"));
    }
}
