package dev.vitals.kubesim.lint;

import dev.vitals.kubesim.model.ProbeType;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * L14 (needs {@code --app-config}; case C18): a probe asks Actuator for a liveness or
 * readiness group that this configuration (with its profiles) does not define, for example
 * because {@code management.endpoint.health.probes.enabled=false} in one profile. Actuator
 * answers 404, the probe fails every time: a liveness or startup probe kills in a loop, a
 * readiness probe never lets the pod become Ready.
 */
final class MissingGroupRule extends BaseRule {
    MissingGroupRule() {
        super("L14", "missing-health-group", Severity.ERROR, "with --app-config: a probe path names a liveness/readiness group the configuration does not define (404)",
                "with --app-config: a probe asks for a liveness or readiness group the active profiles do not define", Needs.APP_CONFIG);
    }

    @Override
    public void check(Target t, LintContext ctx, Consumer<Finding> out) {
        for (ProbeType type : ProbeType.values()) {
            Optional<AppHealth.Endpoint> e = AppProbes.endpoint(t, ctx, type);
            if (e.isEmpty() || e.get().vitals() || !(e.get().group().equals("liveness") || e.get().group().equals("readiness"))
                    || ctx.app(t).map(a -> a.groups().containsKey(e.get().group())).orElse(true)) {
                continue;
            }
            String profiles = ctx.app(t).map(a -> a.prop("management.endpoint.health.probes.enabled")
                    .map(p -> " (" + p.key() + "=" + p.value() + (p.line() > 0 ? " at " + p.file() + ":" + p.line() : "")
                            + ")").orElse("")).orElse("");
            out.accept(t.finding(this, type.fieldName() + ".httpGet.path", type.label() + " probe asks for health group '"
                    + e.get().group() + "', which this configuration does not define" + profiles + ": Actuator answers 404"
                    + " and the probe fails every time" + (type == ProbeType.READINESS ? "; the pod never becomes Ready"
                            : "; the container is killed in a loop"), "R25, R41, C18",
                    "enable the probe groups in every profile (management.endpoint.health.probes.enabled=true) or define"
                            + " management.endpoint.health.group." + e.get().group() + ".include"));
        }
    }
}
