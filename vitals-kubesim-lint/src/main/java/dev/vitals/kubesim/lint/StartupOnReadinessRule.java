package dev.vitals.kubesim.lint;

import dev.vitals.kubesim.model.ProbeSpec;
import dev.vitals.kubesim.model.ProbeType;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * L22: the startupProbe asks the readiness endpoint while liveness has one of its own. Readiness
 * checks what requests need (dependencies); a dependency slow at boot then fails the startup
 * probe, and a startup failure kills the container (kubelet: startup failures count to
 * failureThreshold, then the container is restarted), over and over while the dependency is slow.
 */
final class StartupOnReadinessRule extends BaseRule {
    StartupOnReadinessRule() {
        super("L22", "startup-on-readiness-endpoint", Severity.ERROR,
                "the startupProbe asks the readiness endpoint: a dependency slow at boot kills the pod",
                "startupProbe and readinessProbe ask one endpoint and the livenessProbe asks a different one", Needs.MANIFEST);
    }

    @Override
    public void check(Target t, LintContext ctx, Consumer<Finding> out) {
        Optional<ProbeSpec> start = t.probe(ProbeType.STARTUP);
        Optional<ProbeSpec> live = t.probe(ProbeType.LIVENESS);
        Optional<ProbeSpec> ready = t.probe(ProbeType.READINESS);
        if (start.isEmpty() || live.isEmpty() || ready.isEmpty() || start.get().handler().asExec().isPresent()
                || start.get().handler().match(g -> false, s -> true, g -> false, e -> false)
                || !Probes.sameEndpoint(t, start.get().handler(), ready.get().handler())
                || Probes.sameEndpoint(t, start.get().handler(), live.get().handler())) {
            return;
        }
        String field = live.get().handler().field();
        out.accept(t.finding(this, Probes.endpointField(ProbeType.STARTUP, start.get().handler()), "the startupProbe asks the"
                + " readiness endpoint (" + start.get().handler().describe() + "), not liveness's ("
                + live.get().handler().describe() + "): readiness checks what requests need, so a dependency slow at boot fails"
                + " the startup probe and the kubelet kills the container after " + Probes.budgetSeconds(start.get())
                + "s, and again after every restart while the dependency is slow", "R16, R33, C11",
                "point startupProbe." + field + " at the liveness endpoint (" + live.get().handler().describe()
                        + "), keeping its failureThreshold and periodSeconds",
                Finding.Patch.remove("startupProbe." + start.get().handler().field()).andThen(Finding.Patch.set("startupProbe."
                        + field, t.container().path("livenessProbe").path(field)))));
    }
}
