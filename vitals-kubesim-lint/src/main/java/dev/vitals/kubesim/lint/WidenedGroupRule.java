package dev.vitals.kubesim.lint;

import dev.vitals.kubesim.model.ProbeType;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * L11 (needs {@code --app-config}; case C17): a probe reaches a Spring Boot health group that
 * was given a property (an additional path, show-details…) but no {@code include}: Spring then
 * treats it as a user group with every indicator in it. The finding points at the property in
 * the application's configuration. Error when liveness reaches it, warning for readiness.
 */
final class WidenedGroupRule extends BaseRule {
    WidenedGroupRule() {
        super("L11", "widened-group", Severity.ERROR, "with --app-config: a probe group configured without include holds every indicator",
                "with --app-config: a probe reaches a health group given a property but no include", Needs.APP_CONFIG);
    }

    @Override
    public void check(Target t, LintContext ctx, Consumer<Finding> out) {
        for (ProbeType type : new ProbeType[] {ProbeType.LIVENESS, ProbeType.READINESS, ProbeType.STARTUP}) {
            Optional<AppHealth.Endpoint> e = AppProbes.endpoint(t, ctx, type);
            if (e.isEmpty() || e.get().widenedBy().isEmpty()) {
                continue;
            }
            AppConfig.Prop p = e.get().widenedBy().get();
            String group = e.get().group();
            Severity sev = type == ProbeType.READINESS ? Severity.WARNING : Severity.ERROR;
            out.accept(new Finding(id(), name(), sev, p.file(), p.line(), "", "", p.key(), "health group '" + group
                    + "' is configured (" + p.key() + ") without include, so Spring Boot puts every indicator in it ("
                    + AppHealth.names(e.get().members()) + "); " + type.label() + " probes reach it", "C17",
                    "list the members: management.endpoint.health.group." + group + ".include="
                            + (group.equals("liveness") ? "livenessState" : group.equals("readiness") ? "readinessState"
                                    : "…")));
        }
    }
}
