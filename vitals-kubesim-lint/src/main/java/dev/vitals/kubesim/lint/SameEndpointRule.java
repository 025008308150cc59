package dev.vitals.kubesim.lint;

import dev.vitals.kubesim.model.ProbeSpec;
import dev.vitals.kubesim.model.ProbeType;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * L1: liveness and readiness probe the same endpoint, so whatever makes the pod unready (a
 * dependency, load) also restarts it. Fires for httpGet (same port, host, scheme, path),
 * grpc (same port and service) and exec (same command); never for tcpSocket.
 */
final class SameEndpointRule extends BaseRule {
    SameEndpointRule() {
        super("L1", "same-endpoint", Severity.WARNING, "liveness and readiness probe the same httpGet path, grpc service or exec command",
                "liveness and readiness probe one endpoint (httpGet port, host, scheme, path and query; grpc port and service) that touches a bounded request pool (a JVM's) or, with --app-config, a dependency, and liveness gives up in less than 3 times readiness's failure time", Needs.MANIFEST);
    }

    /** Liveness tolerating this many times readiness's failure time is not "the same probe" in effect. */
    static final int TOLERANCE_RATIO = 3;

    @Override
    public void check(Target t, LintContext ctx, Consumer<Finding> out) {
        Optional<ProbeSpec> live = t.probe(ProbeType.LIVENESS);
        Optional<ProbeSpec> ready = t.probe(ProbeType.READINESS);
        if (live.isEmpty() || ready.isEmpty() || !Probes.asksOverNetwork(live.get().handler())
                || !Probes.sameEndpoint(t, live.get().handler(), ready.get().handler())) {
            return;
        }
        ProbeSpec l = live.get();
        ProbeSpec r = ready.get();
        if (Probes.budgetSeconds(l) >= TOLERANCE_RATIO * Probes.budgetSeconds(r)) {
            return; // liveness waits out many readiness spells: the shared endpoint sheds long before it kills
        }
        AppRuntime rt = t.runtime();
        java.util.Set<String> deps = LivenessDependencyRule.dependencies(t, ctx);
        String touches;
        if (!deps.isEmpty()) {
            touches = "it checks " + String.join(", ", deps) + ", so an outage of " + (deps.size() > 1 ? "any of them" : "it")
                    + " restarts the pod instead of only taking it out of its Service";
        } else if (rt.jvm() && l.handler().asHttpGet().isPresent()) {
            touches = "it is answered by the bounded request pool of the " + rt.application() + ", so when slow requests hold"
                    + " every worker both fail together and the pod is restarted instead of only shed";
        } else {
            return; // a trivial in-process handler of unknown cost: not a hazard this rule can show
        }
        out.accept(t.finding(this, Probes.endpointField(ProbeType.LIVENESS, l.handler()),
                "liveness and readiness probe the same endpoint (" + l.handler().describe() + ") and " + touches
                        + "; liveness gives up after " + Probes.budgetSeconds(l) + "s, readiness after "
                        + Probes.budgetSeconds(r) + "s", "R38, C10, C18", Probes.separateFix(l.handler(), rt)));
    }
}
