package dev.vitals.kubesim.lint;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vitals.kubesim.manifest.ManifestReader;
import dev.vitals.kubesim.model.PodSpec;
import dev.vitals.kubesim.model.ProbeHandler;
import dev.vitals.kubesim.model.ProbeSpec;
import dev.vitals.kubesim.model.ProbeType;
import dev.vitals.kubesim.yaml.YamlDocs;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/**
 * One container of one workload as a rule sees it: its raw fields with their lines, and (when
 * the API server would accept its probes) the kubelet model of its probes. Immutable; built by
 * the linter for each container of each document.
 */
public final class Target {
    private final String file;
    private final String kind;
    private final String name;
    private final ManifestReader.ContainerEntry entry;
    private final JsonNode workloadNode;
    private final YamlDocs.Locations locations;
    private final Optional<PodSpec> pod;
    private final Map<String, String> annotations;
    private AppRuntime runtime;

    Target(String file, String kind, String name, ManifestReader.ContainerEntry entry, JsonNode workloadNode,
            YamlDocs.Locations locations, Optional<PodSpec> pod, Map<String, String> annotations) {
        this.file = Objects.requireNonNull(file, "file");
        this.kind = kind;
        this.name = name;
        this.entry = entry;
        this.workloadNode = workloadNode;
        this.locations = locations;
        this.pod = pod;
        this.annotations = Map.copyOf(annotations);
    }

    /** @return the input this container was read from */
    public String file() {
        return file;
    }

    /** @return the workload's kind, e.g. {@code Deployment} */
    public String kind() {
        return kind;
    }

    /** @return {@code Kind/name} */
    public String object() {
        return kind + "/" + (name.isEmpty() ? "(unnamed)" : name);
    }

    /** @return the container's name */
    public String containerName() {
        return entry.name();
    }

    /** @return where it sits in the pod (container, sidecar, init, ephemeral) */
    public ManifestReader.Role role() {
        return entry.role();
    }

    /** @return what runs in the container, as far as its manifest tells (computed once) */
    AppRuntime runtime() {
        AppRuntime r = runtime;
        if (r == null) {
            r = AppRuntime.of(entry.node());
            runtime = r; // a benign race: every thread computes the same value
        }
        return r;
    }

    /** @return the workload's namespace ({@code default} when not written) */
    public String namespace() {
        return Routing.namespace(workloadNode);
    }

    /** @return the pod's labels (the pod template's; a Pod's own) */
    public Map<String, String> podLabels() {
        JsonNode meta = kind.equals("Pod") ? workloadNode.path("metadata") : kind.equals("CronJob")
                ? workloadNode.path("spec").path("jobTemplate").path("spec").path("template").path("metadata")
                : workloadNode.path("spec").path("template").path("metadata");
        Map<String, String> out = new LinkedHashMap<>();
        meta.path("labels").fields().forEachRemaining(e -> out.put(e.getKey(), e.getValue().asText("")));
        return out;
    }

    /** @return the container's raw YAML */
    public JsonNode container() {
        return entry.node();
    }

    /** @return the pod spec's raw YAML */
    public JsonNode podSpecNode() {
        return entry.podSpec();
    }

    /** @return the kubelet model of the probes, when the API server would accept them */
    public Optional<PodSpec> pod() {
        return pod;
    }

    /**
     * This container's probe of one type.
     *
     * @param t startup, liveness or readiness
     * @return the probe of that type, when valid
     */
    public Optional<ProbeSpec> probe(ProbeType t) {
        return pod.flatMap(p -> p.probe(t));
    }

    /** @return the manifest reader's view of this container (validation) */
    ManifestReader.ContainerEntry entry() {
        return entry;
    }

    /** @return annotations of the workload and of its pod template, merged */
    public Map<String, String> annotations() {
        return annotations;
    }

    /** @return {@code spec.replicas} when written (Deployment, StatefulSet, ReplicaSet) */
    public OptionalInt replicas() {
        JsonNode r = workloadNode.path("spec").path("replicas");
        return r.canConvertToInt() ? OptionalInt.of(r.asInt()) : OptionalInt.empty();
    }

    /** @return declared port names → numbers */
    public Map<String, Integer> portNames() {
        return entry.ports();
    }

    /** @return every declared {@code containerPort} number */
    public Set<Integer> declaredPorts() {
        Set<Integer> out = new LinkedHashSet<>();
        for (JsonNode p : entry.node().path("ports")) {
            if (p.path("containerPort").canConvertToInt()) {
                out.add(p.path("containerPort").asInt());
            }
        }
        return out;
    }

    /** @return literal {@code env} values (name → value); references are left out */
    public Map<String, String> literalEnv() {
        Map<String, String> out = new LinkedHashMap<>();
        for (JsonNode e : entry.node().path("env")) {
            if (e.hasNonNull("name") && e.has("value") && !e.has("valueFrom")) {
                out.put(e.path("name").asText(), e.path("value").asText(""));
            }
        }
        return out;
    }

    /**
     * @param ref a probe's port
     * @return the port number, resolving a name against the container's ports
     */
    public OptionalInt portNumber(ProbeHandler.PortRef ref) {
        if (!ref.isNamed()) {
            return OptionalInt.of(ref.number());
        }
        Integer n = portNames().get(ref.name().get());
        return n == null ? OptionalInt.empty() : OptionalInt.of(n);
    }

    /**
     * @param dotted a field path below the container, such as {@code livenessProbe.httpGet.path}
     * @return its 1-based line (the deepest existing key on the path), or the container's line
     */
    public int line(String dotted) {
        return locations.lineOf(entry.node(), dotted);
    }

    /** @return the line of the container (its first key) */
    public int line() {
        return locations.line(entry.node());
    }

    /**
     * The label of one of this container's fields, for findings.
     *
     * @param dotted the field under the container, e.g. {@code livenessProbe}
     * @return the field label used in findings, e.g. {@code containers[app].livenessProbe}
     */
    public String field(String dotted) {
        String base = (entry.role() == ManifestReader.Role.CONTAINER ? "containers" : entry.role() == ManifestReader.Role.EPHEMERAL
                ? "ephemeralContainers" : "initContainers") + "[" + entry.name() + "]";
        return dotted.isEmpty() ? base : base + "." + dotted;
    }

    /**
     * Builds a finding about a field of this container.
     *
     * @param rule the rule
     * @param dotted field path below the container (for the line)
     * @param message what is wrong
     * @param refs kubelet rules and cases
     * @param fix the fix
     * @return the finding
     */
    public Finding finding(Rule rule, String dotted, String message, String refs, String fix) {
        return new Finding(rule.id(), rule.name(), rule.severity(), file, line(dotted), object(), containerName(),
                field(dotted), message, refs, fix);
    }

    /**
     * Builds a finding whose fix is a change to the container, checked by the linter before it is offered.
     *
     * @param rule the rule
     * @param dotted field path below the container (for the line)
     * @param message what is wrong
     * @param refs kubelet rules and cases
     * @param fix the fix, in words
     * @param patch the fix, as a change to the container
     * @return the finding
     */
    public Finding finding(Rule rule, String dotted, String message, String refs, String fix, Finding.Patch patch) {
        return new Finding(rule.id(), rule.name(), rule.severity(), file, line(dotted), object(), containerName(),
                field(dotted), message, refs, fix, Optional.of(patch));
    }

    /**
     * @param container a changed copy of this container's YAML
     * @return this target with that container, its pod spec copied with the container replaced
     *         and its probes re-read; empty when the API server would reject the copy
     */
    Optional<Target> with(com.fasterxml.jackson.databind.node.ObjectNode container) {
        JsonNode podCopy = entry.podSpec().deepCopy();
        for (String list : new String[] {"containers", "initContainers", "ephemeralContainers"}) {
            JsonNode arr = entry.podSpec().path(list);
            for (int i = 0; i < arr.size(); i++) {
                if (arr.get(i) == entry.node()) {
                    ((com.fasterxml.jackson.databind.node.ArrayNode) podCopy.get(list)).set(i, container);
                }
            }
        }
        ManifestReader.ContainerEntry e = new ManifestReader.ContainerEntry(entry.source(), entry.workload(), entry.name(),
                entry.role(), container, podCopy);
        if (!e.validate().isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(new Target(file, kind, name, e, workloadNode, locations, Optional.of(e.toPodSpec()), annotations));
        } catch (dev.vitals.kubesim.input.InvalidInputException ex) {
            return Optional.empty();
        }
    }
}
