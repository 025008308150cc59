package dev.vitals.kubesim.lint;

import dev.vitals.kubesim.model.ProbeSpec;
import dev.vitals.kubesim.model.ProbeType;
import java.util.Map;
import java.util.OptionalInt;

/**
 * What a finding held for the input's Services needs to know of its pod: namespace, labels,
 * container ports, and the port its liveness probe asks over the network (httpGet, grpc).
 * Immutable.
 *
 * @param namespace the pod's namespace
 * @param labels the pod's labels
 * @param namedPorts the container's named ports
 * @param livenessPort the port an httpGet or grpc liveness probe asks, if it has one
 */
record PodRef(String namespace, Map<String, String> labels, Map<String, Integer> namedPorts, OptionalInt livenessPort) {
    PodRef {
        labels = Map.copyOf(labels);
        namedPorts = Map.copyOf(namedPorts);
    }

    static PodRef of(Target t) {
        OptionalInt live = OptionalInt.empty();
        java.util.Optional<ProbeSpec> l = t.probe(ProbeType.LIVENESS);
        if (l.isPresent() && Probes.asksOverNetwork(l.get().handler()) && l.get().handler().host().isEmpty()) {
            live = Probes.port(t, l.get().handler());
        }
        return new PodRef(t.namespace(), t.podLabels(), t.portNames(), live);
    }
}
