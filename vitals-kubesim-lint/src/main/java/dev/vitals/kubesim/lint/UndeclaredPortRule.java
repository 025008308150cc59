package dev.vitals.kubesim.lint;

import dev.vitals.kubesim.model.ProbeHandler;
import dev.vitals.kubesim.model.ProbeSpec;
import dev.vitals.kubesim.model.ProbeType;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.function.Consumer;

/**
 * L7: a probe on a port number the container does not declare, in a container that declares
 * its ports. Usually a port that moved or a typo: the probe connects to nothing and fails on
 * every try. Not fired when the container declares no ports at all (nothing to compare with)
 * or the probe names another host.
 */
final class UndeclaredPortRule extends BaseRule {
    UndeclaredPortRule() {
        super("L7", "undeclared-port", Severity.INFO, "probe on a port number the container does not declare in ports[]",
                "the container declares containerPorts and a probe without host connects to a number not among them", Needs.MANIFEST);
    }

    /** Off by default: ports[] is informational, and on public manifests the port was served every time it was judged. */
    @Override
    public boolean optIn() {
        return true;
    }

    @Override
    public void check(Target t, LintContext ctx, Consumer<Finding> out) {
        Set<Integer> declared = t.declaredPorts();
        if (declared.isEmpty()) {
            return;
        }
        java.util.Map<Integer, java.util.List<ProbeType>> byPort = new java.util.TreeMap<>();
        java.util.Map<Integer, String> firstField = new java.util.HashMap<>();
        for (ProbeType type : ProbeType.values()) {
            Optional<ProbeSpec> p = t.probe(type);
            if (p.isEmpty() || p.get().handler().host().isPresent()) {
                continue;
            }
            ProbeHandler h = p.get().handler();
            boolean named = h.portRef().map(ProbeHandler.PortRef::isNamed).orElse(false);
            OptionalInt port = Probes.port(t, h);
            if (named || port.isEmpty() || declared.contains(port.getAsInt())) {
                continue;
            }
            byPort.computeIfAbsent(port.getAsInt(), k -> new java.util.ArrayList<>()).add(type);
            firstField.putIfAbsent(port.getAsInt(), type.fieldName() + "." + h.field() + ".port");
        }
        for (java.util.Map.Entry<Integer, java.util.List<ProbeType>> e : byPort.entrySet()) {
            java.util.List<String> labels = new java.util.ArrayList<>();
            e.getValue().forEach(x -> labels.add(x.label()));
            int port = e.getKey();
            out.accept(t.finding(this, firstField.get(port), String.join(" and ", labels) + " probe"
                    + (labels.size() > 1 ? "s connect" : " connects") + " to port " + port
                    + ", which the container does not declare (ports: " + ports(t) + "): if nothing listens there the probe"
                    + " fails on every try", "R22, R56",
                    "point the probe at a declared port, or declare containerPort " + port + " (with a name) in ports[]"));
        }
    }

    private static String ports(Target t) {
        StringBuilder b = new StringBuilder();
        for (com.fasterxml.jackson.databind.JsonNode p : t.container().path("ports")) {
            if (b.length() > 0) {
                b.append(", ");
            }
            b.append(p.path("containerPort").asText("?"));
            if (p.hasNonNull("name")) {
                b.append(' ').append(p.path("name").asText());
            }
        }
        return b.toString();
    }
}
