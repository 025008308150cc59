package dev.vitals.kubesim.lint;

import dev.vitals.kubesim.model.ProbeSpec;
import dev.vitals.kubesim.model.ProbeType;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * L17: a probe sets {@code host}. The kubelet then connects to that address instead of the
 * pod IP, from the node: the probe tests something other than the container, and the
 * baseline Pod Security level refuses the field in probes and lifecycle hooks from
 * Kubernetes 1.34 (KEP-4940), so a namespace enforcing it rejects the pod.
 */
final class ProbeHostRule extends BaseRule {
    ProbeHostRule() {
        super("L17", "probe-host", Severity.WARNING, "a probe sets host: it tests another address than the pod's, and baseline Pod Security refuses it (1.34+)",
                "a probe's httpGet.host or tcpSocket.host is set", Needs.MANIFEST);
    }

    @Override
    public void check(Target t, LintContext ctx, Consumer<Finding> out) {
        for (ProbeType type : ProbeType.values()) {
            Optional<ProbeSpec> p = t.probe(type);
            if (p.isEmpty()) {
                continue;
            }
            Optional<String> host = p.get().handler().host();
            if (host.isEmpty() || host.get().isEmpty()) {
                continue;
            }
            String kind = p.get().handler().field();
            out.accept(t.finding(this, type.fieldName() + "." + kind + ".host", type.label() + " probe connects to host "
                    + host.get() + " instead of the pod IP: it does not test this container, and a namespace enforcing the"
                    + " baseline Pod Security level refuses the pod from Kubernetes 1.34 (KEP-4940)", "KEP-4940",
                    "remove host (the kubelet probes the pod IP); for a virtual host, set an httpHeaders Host header instead",
                    Finding.Patch.remove(type.fieldName() + "." + kind + ".host")));
        }
    }
}
