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
final class SameEndpointRule implements Rule {
    @Override
    public String id() {
        return "L1";
    }

    @Override
    public String name() {
        return "same-endpoint";
    }

    @Override
    public Severity severity() {
        return Severity.WARNING;
    }

    @Override
    public String summary() {
        return "liveness and readiness probe the same httpGet path, grpc service or exec command";
    }

    @Override
    public void check(Target t, LintContext ctx, Consumer<Finding> out) {
        Optional<ProbeSpec> live = t.probe(ProbeType.LIVENESS);
        Optional<ProbeSpec> ready = t.probe(ProbeType.READINESS);
        if (live.isEmpty() || ready.isEmpty() || !Probes.sameEndpoint(t, live.get().handler(), ready.get().handler())) {
            return;
        }
        out.accept(t.finding(this, Probes.endpointField(ProbeType.LIVENESS, live.get().handler()),
                "liveness and readiness probe the same endpoint (" + live.get().handler().describe()
                        + "): whatever makes the pod unready (a slow or failed dependency, load) also restarts it",
                "R38, C10, C18", Probes.separateFix(live.get().handler())));
    }
}
