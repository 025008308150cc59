package dev.vitals.kubesim.lint;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vitals.kubesim.yaml.YamlDocs;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The Services and Ingresses of a lint run's input: which pods a Service selects (kube-proxy:
 * the selector's labels all on the pod, same namespace; a Service without selector selects no
 * pod), the ports it routes to, and what pins a client to one endpoint — {@code sessionAffinity:
 * ClientIP}, {@code internalTrafficPolicy: Local}, {@code trafficDistribution: PreferSameNode}, and
 * ingress-nginx's {@code nginx.ingress.kubernetes.io/affinity: cookie} or {@code upstream-hash-by}
 * on an Ingress in front of it. Filled while the input is read; not thread-safe.
 */
final class Routing {
    /** ingress-nginx annotations that pin a client (cookie) or a key (hash) to one upstream. */
    static final String AFFINITY = "nginx.ingress.kubernetes.io/affinity";
    static final String HASH_BY = "nginx.ingress.kubernetes.io/upstream-hash-by";

    /**
     * One port of a Service.
     *
     * @param port the Service's port
     * @param target its targetPort: a number, or a name resolved against the pod's container ports
     */
    record ServicePort(int port, String target) {
    }

    /**
     * A Service.
     *
     * @param file input
     * @param line its line
     * @param namespace namespace
     * @param name name
     * @param selector label selector (empty: selects no pod)
     * @param ports ports
     * @param pinning what pins a client to one endpoint, with its line, e.g. "sessionAffinity: ClientIP"
     */
    record Service(String file, int line, String namespace, String name, Map<String, String> selector,
            List<ServicePort> ports, Map<String, Integer> pinning) {
        boolean selects(String ns, Map<String, String> labels) {
            return !selector.isEmpty() && namespace.equals(ns) && labels.entrySet().containsAll(selector.entrySet());
        }

        /** @return true when one of its ports routes to {@code containerPort} of a container with these named ports */
        boolean routesTo(int containerPort, Map<String, Integer> named) {
            for (ServicePort p : ports) {
                Integer n = p.target().chars().allMatch(Character::isDigit) ? Integer.valueOf(p.target()) : named.get(p.target());
                if (n != null && n == containerPort) {
                    return true;
                }
            }
            return false;
        }
    }

    /**
     * An Ingress that pins clients to one upstream, with the Services it sends to.
     *
     * @param file input
     * @param line line of the pinning annotation
     * @param namespace namespace
     * @param name name
     * @param pinning e.g. "nginx.ingress.kubernetes.io/affinity: cookie"
     * @param services backend Service names
     */
    record Ingress(String file, int line, String namespace, String name, String pinning, Set<String> services) {
    }

    private final List<Service> services = new ArrayList<>();
    private final List<Ingress> ingresses = new ArrayList<>();

    /** @return the Services read */
    List<Service> services() {
        return services;
    }

    /** @return the pinning Ingresses read */
    List<Ingress> ingresses() {
        return ingresses;
    }

    /**
     * Services that select a pod.
     *
     * @param namespace the pod's namespace
     * @param labels its labels
     * @return those Services, in input order
     */
    List<Service> selecting(String namespace, Map<String, String> labels) {
        List<Service> out = new ArrayList<>();
        for (Service s : services) {
            if (s.selects(namespace, labels)) {
                out.add(s);
            }
        }
        return out;
    }

    /**
     * Reads a Service; a malformed one is described in one line.
     *
     * @return empty when read, else the line saying what is wrong
     */
    Optional<String> addService(String file, JsonNode obj, YamlDocs.Locations loc) {
        JsonNode spec = obj.path("spec");
        String name = obj.path("metadata").path("name").asText("");
        Map<String, String> selector = new LinkedHashMap<>();
        if (!spec.path("selector").isMissingNode() && !spec.path("selector").isNull() && !spec.path("selector").isObject()) {
            return Optional.of("spec.selector must be a mapping of labels, was "
                    + spec.path("selector").getNodeType().toString().toLowerCase(java.util.Locale.ROOT));
        }
        spec.path("selector").fields().forEachRemaining(e -> selector.put(e.getKey(), e.getValue().asText("")));
        List<ServicePort> ports = new ArrayList<>();
        for (JsonNode p : spec.path("ports")) {
            int port = p.path("port").asInt(0);
            JsonNode tp = p.path("targetPort");
            ports.add(new ServicePort(port, tp.isMissingNode() || tp.isNull() ? Integer.toString(port) : tp.asText()));
        }
        Map<String, Integer> pinning = new LinkedHashMap<>();
        String affinity = spec.path("sessionAffinity").asText("None");
        if (!affinity.equals("None") && !affinity.equals("ClientIP")) {
            return Optional.of("spec.sessionAffinity must be ClientIP or None, was '" + affinity + "'");
        }
        if (affinity.equals("ClientIP")) {
            pinning.put("sessionAffinity: ClientIP", loc.line(spec, "sessionAffinity"));
        }
        String itp = spec.path("internalTrafficPolicy").asText("Cluster");
        if (!itp.equals("Cluster") && !itp.equals("Local")) {
            return Optional.of("spec.internalTrafficPolicy must be Cluster or Local, was '" + itp + "'");
        }
        if (itp.equals("Local")) {
            pinning.put("internalTrafficPolicy: Local", loc.line(spec, "internalTrafficPolicy"));
        }
        String td = spec.path("trafficDistribution").asText("");
        if (td.equals("PreferSameNode")) {
            pinning.put("trafficDistribution: PreferSameNode", loc.line(spec, "trafficDistribution"));
        }
        services.add(new Service(file, loc.line(obj), namespace(obj), name, selector, ports, pinning));
        return Optional.empty();
    }

    /**
     * Reads an Ingress; kept only when an annotation pins clients.
     *
     * @return empty when read, else the line saying what is wrong
     */
    Optional<String> addIngress(String file, JsonNode obj, YamlDocs.Locations loc) {
        JsonNode ann = obj.path("metadata").path("annotations");
        String name = obj.path("metadata").path("name").asText("");
        String pinning = null;
        int line = loc.line(obj);
        String affinity = ann.path(AFFINITY).asText("");
        if (!affinity.isEmpty()) {
            if (!affinity.equals("cookie")) {
                return Optional.of(AFFINITY + " must be cookie, was '" + affinity + "'");
            }
            pinning = AFFINITY + ": cookie";
            line = loc.line(ann, AFFINITY);
        } else if (!ann.path(HASH_BY).asText("").isEmpty()) {
            pinning = HASH_BY + ": " + ann.path(HASH_BY).asText();
            line = loc.line(ann, HASH_BY);
        }
        if (pinning == null) {
            return Optional.empty();
        }
        Set<String> backends = new java.util.LinkedHashSet<>();
        collectBackends(obj.path("spec").path("defaultBackend"), backends);
        collectBackends(obj.path("spec").path("backend"), backends);
        for (JsonNode rule : obj.path("spec").path("rules")) {
            for (JsonNode path : rule.path("http").path("paths")) {
                collectBackends(path.path("backend"), backends);
            }
        }
        if (backends.isEmpty()) {
            return Optional.of(pinning + " but no backend service (spec.rules[].http.paths[]"
                    + ".backend.service.name)");
        }
        ingresses.add(new Ingress(file, line, namespace(obj), name, pinning, backends));
        return Optional.empty();
    }

    private static void collectBackends(JsonNode backend, Set<String> out) {
        String n = backend.path("service").path("name").asText(backend.path("serviceName").asText(""));
        if (!n.isEmpty()) {
            out.add(n);
        }
    }

    /** @return an object's namespace, {@code default} when not written */
    static String namespace(JsonNode obj) {
        String ns = obj.path("metadata").path("namespace").asText("");
        return ns.isEmpty() ? "default" : ns;
    }
}
