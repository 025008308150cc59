package dev.vitals.kubesim.manifest;

import dev.vitals.kubesim.input.InvalidInputException;
import dev.vitals.kubesim.input.Violation;
import dev.vitals.kubesim.model.PodSpec;
import dev.vitals.kubesim.model.PortResolver;
import dev.vitals.kubesim.model.ProbeHandler;
import dev.vitals.kubesim.model.ProbeSpec;
import dev.vitals.kubesim.model.ProbeType;
import dev.vitals.kubesim.model.RestartPolicy;
import dev.vitals.kubesim.yaml.YamlDocs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeType;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Reads containers and their probes from Kubernetes manifests: Pod, Deployment, StatefulSet,
 * DaemonSet, ReplicaSet, ReplicationController, Job, CronJob and List, in multi-document YAML
 * (JSON is YAML too). Other kinds (Service, ConfigMap, …) are skipped. Stateless and thread-safe.
 */
public final class ManifestReader {
    private static final Set<String> TEMPLATE_KINDS =
            Set.of("Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "ReplicationController", "Job");
    /**
     * The fields of each probe handler (Kubernetes core/v1 HTTPGetAction, TCPSocketAction, GRPCAction,
     * ExecAction; GRPCAction is GA since 1.27, feature gate GRPCContainerProbe, and has no TLS).
     */
    private static final Map<String, Set<String>> HANDLER_FIELDS = java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(Map.of(
            "httpGet", Set.of("host", "path", "port", "scheme", "httpHeaders"),
            "tcpSocket", Set.of("host", "port"),
            "grpc", Set.of("port", "service"),
            "exec", Set.of("command"))));
    /** What to do instead, for unknown handler fields people write. */
    private static final Map<String, String> HANDLER_HINTS = Map.of(
            "grpc.mode", "; the kubelet's gRPC probe is always plaintext (GRPCAction has no TLS field): for TLS use an"
                    + " exec probe (grpc_health_probe -tls) or a plaintext health port",
            "grpc.tls", "; the kubelet's gRPC probe is always plaintext (GRPCAction has no TLS field): for TLS use an"
                    + " exec probe (grpc_health_probe -tls) or a plaintext health port",
            "httpGet.headers", "; request headers are httpHeaders: [{name, value}]",
            "httpGet.timeoutSeconds", "; timeoutSeconds belongs to the probe, beside httpGet");
    private static final Set<String> PROBE_FIELDS = Set.of("exec", "httpGet", "tcpSocket", "grpc",
            "initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold",
            "terminationGracePeriodSeconds");

    private ManifestReader() {
    }

    /**
     * @param file a YAML or JSON manifest
     * @return every container found, in document order
     * @throws InvalidInputException when the file cannot be read, is not YAML, or holds no container
     */
    public static Manifest read(Path file) {
        String text;
        try {
            text = dev.vitals.kubesim.yaml.InputFiles.readText(file);
        } catch (IOException e) {
            throw new InvalidInputException("cannot read manifest " + file + ": " + InvalidInputException.reason(e), e);
        }
        return parse(text, file.toString());
    }

    /**
     * @param yaml manifest text (one or more YAML documents)
     * @param source name used in messages
     * @return every container found
     * @throws InvalidInputException when the text is not YAML, a document is not an object, or
     *         no workload with containers is found
     */
    public static Manifest parse(String yaml, String source) {
        List<ContainerEntry> out = new ArrayList<>();
        List<String> kinds = new ArrayList<>();
        // the same reading as lint's (merge keys, anchors, core schema), strict about duplicate keys
        for (YamlDocs.Doc d : YamlDocs.readAll(yaml, source, "helm template RELEASE CHART > deploy.yaml")) {
            if (!d.root.isObject()) {
                throw new InvalidInputException(source + ":" + d.line + ": document " + d.index
                        + " is not a Kubernetes object (expected a mapping with apiVersion/kind, got "
                        + d.root.getNodeType().toString().toLowerCase(java.util.Locale.ROOT) + ")");
            }
            collect(d.root, source, "document " + d.index, out, kinds);
        }
        if (out.isEmpty()) {
            throw new InvalidInputException(source + ": no containers found (kinds seen: "
                    + (kinds.isEmpty() ? "none" : String.join(", ", kinds))
                    + "; expected a Pod, Deployment, StatefulSet, DaemonSet, ReplicaSet, Job or CronJob with"
                    + " spec.containers)");
        }
        return new Manifest(source, out);
    }

    private static void collect(JsonNode obj, String source, String where, List<ContainerEntry> out,
            List<String> kinds) {
        String kind = obj.path("kind").asText("");
        String name = obj.path("metadata").path("name").asText("");
        kinds.add(kind.isEmpty() ? "no kind" : kind);
        JsonNode podSpec;
        if (kind.equals("List")) {
            for (JsonNode item : obj.path("items")) {
                collect(item, source, where, out, kinds);
            }
            return;
        } else if (kind.equals("Pod")) {
            podSpec = obj.path("spec");
        } else if (TEMPLATE_KINDS.contains(kind)) {
            podSpec = obj.path("spec").path("template").path("spec");
        } else if (kind.equals("CronJob")) {
            podSpec = obj.path("spec").path("jobTemplate").path("spec").path("template").path("spec");
        } else {
            return;
        }
        String workload = kind + "/" + (name.isEmpty() ? "(unnamed)" : name);
        if (!podSpec.path("containers").isMissingNode() && !podSpec.path("containers").isArray()) {
            throw new InvalidInputException(source + ": " + workload + ": spec.containers must be a list of containers"
                    + " ('- name: app'), was a " + podSpec.path("containers").getNodeType().toString().toLowerCase()
                    + "; the API server rejects it");
        }
        for (JsonNode c : podSpec.path("containers")) {
            out.add(new ContainerEntry(source, workload, c.path("name").asText(""), Role.CONTAINER, c, podSpec));
        }
        for (JsonNode c : podSpec.path("initContainers")) {
            Role role = "Always".equals(c.path("restartPolicy").asText("")) ? Role.SIDECAR : Role.INIT_CONTAINER;
            out.add(new ContainerEntry(source, workload, c.path("name").asText(""), role, c, podSpec));
        }
        for (JsonNode c : podSpec.path("ephemeralContainers")) {
            out.add(new ContainerEntry(source, workload, c.path("name").asText(""), Role.EPHEMERAL, c, podSpec));
        }
    }

    /** Where a container sits in the pod spec; decides whether probes are allowed (R12). */
    public enum Role {
        /** {@code spec.containers[]}. */
        CONTAINER,
        /** {@code spec.initContainers[]} with {@code restartPolicy: Always}. */
        SIDECAR,
        /** Another init container: probes forbidden. */
        INIT_CONTAINER,
        /** An ephemeral container: probes forbidden. */
        EPHEMERAL
    }

    /** The containers of a manifest. Immutable. */
    public static final class Manifest {
        private final String source;
        private final List<ContainerEntry> containers;

        Manifest(String source, List<ContainerEntry> containers) {
            this.source = source;
            this.containers = List.copyOf(containers);
        }

        /** @return every container, in document order */
        public List<ContainerEntry> containers() {
            return containers;
        }

        /**
         * Picks the container to simulate: the named one, or the only regular container.
         *
         * @param name the {@code --container} value, if given
         * @return the container
         * @throws InvalidInputException when the name matches nothing or no name is given and
         *         several regular containers exist
         */
        public ContainerEntry select(Optional<String> name) {
            List<String> names = new ArrayList<>();
            Set<String> workloads = new java.util.LinkedHashSet<>();
            for (ContainerEntry c : containers) {
                // a sidecar or init container can be picked too; say which it is
                names.add(c.workload() + ":" + c.name() + (c.role() == Role.SIDECAR ? " (sidecar)"
                        : c.role() == Role.INIT_CONTAINER ? " (init container)" : c.role() == Role.EPHEMERAL
                        ? " (ephemeral container)" : ""));
                workloads.add(c.workload());
            }
            if (name.isPresent()) {
                List<ContainerEntry> hits = new ArrayList<>();
                for (ContainerEntry c : containers) {
                    if (c.name().equals(name.get()) || (c.workload() + ":" + c.name()).equals(name.get())) {
                        hits.add(c);
                    }
                }
                if (hits.isEmpty()) {
                    throw new InvalidInputException(source + ": no container named '" + name.get()
                            + "' (containers: " + String.join(", ", names) + ")");
                }
                if (hits.size() > 1) {
                    throw new InvalidInputException(source + ": container name '" + name.get()
                            + "' is ambiguous; use WORKLOAD:NAME, one of: " + String.join(", ", names));
                }
                return hits.get(0);
            }
            List<ContainerEntry> regular = new ArrayList<>();
            for (ContainerEntry c : containers) {
                if (c.role() == Role.CONTAINER) {
                    regular.add(c);
                }
            }
            if (regular.size() == 1) {
                return regular.get(0);
            }
            // the count is of regular containers, the list of everything --container accepts
            throw new InvalidInputException(source + ": " + (regular.isEmpty() ? "no regular container" : regular.size()
                    + " containers") + " in " + (workloads.size() == 1 ? workloads.iterator().next() : workloads.size()
                    + " workloads") + "; pick one with --container NAME (or WORKLOAD:NAME): " + String.join(", ", names));
        }
    }

    /**
     * One container of a workload with its raw YAML.
     *
     * @param source the manifest's name
     * @param workload {@code Kind/name}
     * @param name the container name
     * @param role where it sits (R12)
     * @param node the container's YAML
     * @param podSpec the pod spec's YAML
     */
    public record ContainerEntry(String source, String workload, String name, Role role, JsonNode node,
            JsonNode podSpec) {

        /** @return the field prefix used in messages */
        public String prefix() {
            return workload + " containers[" + name + "]";
        }

        /** @return container port names → numbers */
        public Map<String, Integer> ports() {
            Map<String, Integer> ports = new LinkedHashMap<>();
            for (JsonNode p : node.path("ports")) {
                if (p.hasNonNull("name") && p.path("containerPort").canConvertToInt()) {
                    ports.put(p.path("name").asText(), p.path("containerPort").asInt());
                }
            }
            return ports;
        }

        /** @return raw builders of the probes present, keyed by type, with parse problems recorded */
        public Map<ProbeType, ProbeSpec.Builder> probeBuilders() {
            Map<ProbeType, ProbeSpec.Builder> out = new LinkedHashMap<>();
            for (ProbeType t : ProbeType.values()) {
                JsonNode p = node.get(t.fieldName());
                if (p != null && !p.isNull()) {
                    out.put(t, parseProbe(t, p, prefix() + "." + t.fieldName()));
                }
            }
            return out;
        }

        /**
         * Every problem the API server would reject, plus named ports that resolve to no
         * container port (R22: such a probe errors on every tick and never counts).
         *
         * @return violations, empty when valid
         */
        public List<Violation> validate() {
            List<Violation> out = new ArrayList<>();
            Map<ProbeType, ProbeSpec.Builder> builders = probeBuilders();
            if ((role == Role.INIT_CONTAINER || role == Role.EPHEMERAL) && !builders.isEmpty()) {
                out.add(new Violation("R12", prefix(), "probes are forbidden on "
                        + (role == Role.EPHEMERAL ? "ephemeral containers" : "init containers without restartPolicy: Always"),
                        "move the probes to a regular container, or make it a sidecar (restartPolicy: Always)"));
            }
            for (ProbeSpec.Builder b : builders.values()) {
                out.addAll(b.validate());
            }
            Map<String, Integer> ports = ports();
            for (Map.Entry<ProbeType, ProbeSpec.Builder> e : builders.entrySet()) {
                e.getValue().singleHandler().flatMap(h -> PortResolver.unknownPortName(h, ports)).ifPresent(name ->
                        out.add(new Violation("R22", prefix() + "." + e.getKey().fieldName() + ".port",
                                "port name '" + name + "' matches no container port (ports: "
                                        + (ports.isEmpty() ? "none" : String.join(", ", ports.keySet()))
                                        + "); kubelet would error on every tick and discard it, so this probe never acts (G4)",
                                "add the port to ports[] with that name, or use the port number")));
            }
            try {
                containerRestart();
            } catch (InvalidInputException e) {
                out.add(new Violation("R6", prefix() + ".restartPolicy", e.getMessage(),
                        "restartPolicy Always, OnFailure or Never; restartPolicyRules [{action: Restart, exitCodes:"
                                + " {operator: In|NotIn, values: [...]}}] need restartPolicy"));
            }
            try {
                lifecycle();
            } catch (InvalidInputException e) {
                out.add(new Violation("schema", prefix() + ".lifecycle", e.getMessage(),
                        "each hook has exactly one of exec {command: [...]}, httpGet {port, path}, sleep {seconds}"));
            }
            String rp = podSpec.path("restartPolicy").asText("Always");
            if (!Set.of("Always", "OnFailure", "Never").contains(rp)) {
                out.add(new Violation("R6", workload + " spec.restartPolicy", "unsupported value \"" + rp + "\"",
                        "use Always, OnFailure or Never"));
            }
            JsonNode grace = podSpec.path("terminationGracePeriodSeconds");
            if (!grace.isMissingNode() && !grace.isNull() && (!grace.canConvertToLong() || grace.asLong() < 0)) {
                out.add(new Violation("R6", workload + " spec.terminationGracePeriodSeconds",
                        "must be a number ≥ 0, was " + grace, "use seconds, e.g. 30"));
            }
            return out;
        }

        /**
         * @return the pod model of this container
         * @throws InvalidInputException listing every violation of {@link #validate()}
         */
        public PodSpec toPodSpec() {
            List<Violation> problems = validate();
            if (!problems.isEmpty()) {
                StringBuilder sb = new StringBuilder(source + ": invalid probes for container '" + name + "':");
                for (Violation v : problems) {
                    sb.append("\n  ").append(v);
                }
                throw new InvalidInputException(sb.toString(), problems);
            }
            Map<ProbeType, ProbeSpec.Builder> b = probeBuilders();
            RestartPolicy rp = RestartPolicy.parse(podSpec.path("restartPolicy").asText("Always"));
            long grace = podSpec.path("terminationGracePeriodSeconds").asLong(30);
            // with the container's literal env, which exec probes expand $(VAR) from (R68), as simulate has it
            return new PodSpec(name, ports(), Optional.ofNullable(b.get(ProbeType.STARTUP)).map(ProbeSpec.Builder::build),
                    Optional.ofNullable(b.get(ProbeType.LIVENESS)).map(ProbeSpec.Builder::build),
                    Optional.ofNullable(b.get(ProbeType.READINESS)).map(ProbeSpec.Builder::build), rp, grace,
                    ContainerProcess.staticEnv(node), containerRestart(), lifecycle());
        }

        /**
         * @return the container's {@code lifecycle} hooks ({@code postStart}, {@code preStop}), as the
         *         API server accepts them (validation.go validateLifecycleHandler: exactly one of
         *         exec/httpGet/sleep; sleep.seconds ≥ 0 and not above the pod's grace period)
         * @throws InvalidInputException on a hook the API server rejects, or a {@code tcpSocket}
         *         hook (kept by the API for compatibility; the kubelet cannot run it)
         */
        public dev.vitals.kubesim.model.Lifecycle lifecycle() {
            JsonNode l = node.path("lifecycle");
            if (l.isMissingNode() || l.isNull()) {
                return dev.vitals.kubesim.model.Lifecycle.NONE;
            }
            if (!l.isObject()) {
                throw new InvalidInputException("lifecycle must be a mapping, was " + l.getNodeType());
            }
            Iterator<String> names = l.fieldNames();
            while (names.hasNext()) {
                String f = names.next();
                if (!Set.of("postStart", "preStop", "stopSignal").contains(f)) {
                    throw new InvalidInputException("lifecycle: unknown field \"" + f + "\" (postStart, preStop, stopSignal)");
                }
            }
            return new dev.vitals.kubesim.model.Lifecycle(hook(l, "postStart"), hook(l, "preStop"));
        }

        private Optional<dev.vitals.kubesim.model.Lifecycle.Hook> hook(JsonNode l, String name) {
            JsonNode h = l.get(name);
            if (h == null || h.isNull()) {
                return Optional.empty();
            }
            String at = "lifecycle." + name;
            if (!h.isObject()) {
                throw new InvalidInputException(at + " must be a mapping, was " + h.getNodeType());
            }
            List<String> kinds = new ArrayList<>();
            Iterator<String> names = h.fieldNames();
            while (names.hasNext()) {
                String f = names.next();
                if (!Set.of("exec", "httpGet", "sleep", "tcpSocket").contains(f)) {
                    throw new InvalidInputException(at + ": unknown field \"" + f + "\" (exec, httpGet, sleep)");
                }
                kinds.add(f);
            }
            if (kinds.size() != 1) {
                throw new InvalidInputException(at + ": must specify exactly one handler (exec, httpGet or sleep), found "
                        + (kinds.isEmpty() ? "none" : String.join(", ", kinds)));
            }
            JsonNode v = h.get(kinds.get(0));
            switch (kinds.get(0)) {
                case "exec" -> {
                    return Optional.of(execHook(at, v));
                }
                case "httpGet" -> {
                    return Optional.of(httpGetHook(at, v));
                }
                case "sleep" -> {
                    return Optional.of(sleepHook(at, v));
                }
                default -> throw new InvalidInputException(at + ".tcpSocket: kept by the API for compatibility, but the kubelet"
                        + " cannot run it (\"Cannot run handler\"); use exec, httpGet or sleep");
            }
        }

        private dev.vitals.kubesim.model.Lifecycle.Hook execHook(String at, JsonNode v) {
            List<String> cmd = new ArrayList<>();
            for (JsonNode c : v.path("command")) {
                if (!c.isTextual()) {
                    throw new InvalidInputException(at + ".exec.command: every element must be a string, was " + c);
                }
                cmd.add(c.asText());
            }
            if (cmd.isEmpty()) {
                throw new InvalidInputException(at + ".exec.command: Required value");
            }
            return new dev.vitals.kubesim.model.Lifecycle.Handler(new ProbeHandler.Exec(cmd));
        }

        private dev.vitals.kubesim.model.Lifecycle.Hook httpGetHook(String at, JsonNode v) {
            JsonNode port = v.path("port");
            ProbeHandler.PortRef ref;
            if (port.isIntegralNumber() && port.asInt() >= 1 && port.asInt() <= 65535) {
                ref = ProbeHandler.PortRef.of(port.asInt());
            } else if (port.isTextual() && ports().containsKey(port.asText())) {
                ref = ProbeHandler.PortRef.named(port.asText());
            } else {
                throw new InvalidInputException(at + ".httpGet.port: " + (port.isMissingNode() ? "Required value"
                        : "must be 1-65535 or the name of a container port, was " + port));
            }
            String scheme = v.path("scheme").asText("HTTP");
            if (!scheme.equals("HTTP") && !scheme.equals("HTTPS")) {
                throw new InvalidInputException(at + ".httpGet.scheme: must be HTTP or HTTPS, was \"" + scheme + "\"");
            }
            List<ProbeHandler.HttpHeader> headers = new ArrayList<>();
            for (JsonNode hd : v.path("httpHeaders")) {
                headers.add(new ProbeHandler.HttpHeader(hd.path("name").asText(""), hd.path("value").asText("")));
            }
            String path = v.path("path").asText("");
            return new dev.vitals.kubesim.model.Lifecycle.Handler(new ProbeHandler.HttpGet(host(v), ref,
                    path.isEmpty() ? "/" : path, scheme, headers));
        }

        /** {@code sleep: {seconds}}: within the pod's grace period, as the API server checks. */
        private dev.vitals.kubesim.model.Lifecycle.Hook sleepHook(String at, JsonNode v) {
            JsonNode sec = v.path("seconds");
            if (!sec.isIntegralNumber() || !sec.canConvertToLong() || sec.asLong() < 0) {
                throw new InvalidInputException(at + ".sleep.seconds: must be a whole number ≥ 0, was "
                        + (sec.isMissingNode() ? "missing" : sec.toString()));
            }
            long grace = podSpec.path("terminationGracePeriodSeconds").asLong(30);
            dev.vitals.kubesim.model.Lifecycle.Sleep.checkGrace(at, sec.asLong(), grace);
            return new dev.vitals.kubesim.model.Lifecycle.Sleep(sec.asLong());
        }

        /**
         * @return a regular container's own {@code restartPolicy} and {@code restartPolicyRules}
         *         (KEP-5307); {@link dev.vitals.kubesim.model.ContainerRestart#NONE} for other roles (an init
         *         container's {@code restartPolicy: Always} makes it a sidecar) or when not written
         * @throws InvalidInputException on a value the API server rejects
         */
        public dev.vitals.kubesim.model.ContainerRestart containerRestart() {
            JsonNode p = node.path("restartPolicy");
            JsonNode rules = node.path("restartPolicyRules");
            if (role != Role.CONTAINER || (p.isMissingNode() && rules.isMissingNode())) {
                return dev.vitals.kubesim.model.ContainerRestart.NONE;
            }
            if (p.isMissingNode() || p.isNull()) {
                throw new InvalidInputException("restartPolicyRules need the container's restartPolicy");
            }
            RestartPolicy policy = RestartPolicy.parse(p.asText());
            List<dev.vitals.kubesim.model.ContainerRestart.Rule> out = new ArrayList<>();
            for (JsonNode r : rules) {
                String action = r.path("action").asText("");
                if (!action.equals("Restart")) {
                    throw new InvalidInputException("restartPolicyRules: unsupported action \"" + action + "\": supported: \"Restart\"");
                }
                String op = r.path("exitCodes").path("operator").asText("");
                if (!op.equals("In") && !op.equals("NotIn")) {
                    throw new InvalidInputException("restartPolicyRules: exitCodes.operator must be In or NotIn, was \"" + op + "\"");
                }
                Set<Integer> values = new java.util.LinkedHashSet<>();
                for (JsonNode v : r.path("exitCodes").path("values")) {
                    if (!v.canConvertToInt()) {
                        throw new InvalidInputException("restartPolicyRules: exit code " + v + " is not a number");
                    }
                    values.add(v.asInt());
                }
                out.add(new dev.vitals.kubesim.model.ContainerRestart.Rule(action, op.equals("In"), values));
            }
            return new dev.vitals.kubesim.model.ContainerRestart(Optional.of(policy), out);
        }

        /**
         * @return the container's {@code resources} (limits.cpu, requests.cpu, limits.memory)
         * @throws InvalidInputException when a value is not a Kubernetes quantity, or a request is
         *         above its limit (the API server refuses the pod: pkg/apis/core/validation
         *         ValidateResourceRequirements, "must be less than or equal to cpu limit of 200m")
         */
        public dev.vitals.kubesim.model.Resources resources() {
            JsonNode r = node.path("resources");
            String at = prefix() + ".resources.";
            java.util.OptionalLong cpuLimit = cpu(r.path("limits").path("cpu"), at + "limits.cpu");
            java.util.OptionalLong cpuRequest = cpu(r.path("requests").path("cpu"), at + "requests.cpu");
            java.util.OptionalLong memoryLimit = memory(r.path("limits").path("memory"), at + "limits.memory");
            java.util.OptionalLong memoryRequest = memory(r.path("requests").path("memory"), at + "requests.memory");
            if (cpuLimit.isPresent() && cpuRequest.isPresent() && cpuRequest.getAsLong() > cpuLimit.getAsLong()) {
                throw new InvalidInputException(at + "requests: Invalid value: \"" + r.path("requests").path("cpu").asText()
                        + "\": must be less than or equal to cpu limit of " + r.path("limits").path("cpu").asText());
            }
            if (memoryLimit.isPresent() && memoryRequest.isPresent() && memoryRequest.getAsLong() > memoryLimit.getAsLong()) {
                throw new InvalidInputException(at + "requests: Invalid value: \"" + r.path("requests").path("memory").asText()
                        + "\": must be less than or equal to memory limit of " + r.path("limits").path("memory").asText());
            }
            return new dev.vitals.kubesim.model.Resources(cpuLimit, cpuRequest, memoryLimit);
        }

        private static java.util.OptionalLong cpu(JsonNode n, String at) {
            return n.isMissingNode() || n.isNull() ? java.util.OptionalLong.empty()
                    : java.util.OptionalLong.of(dev.vitals.kubesim.model.Resources.cpuMillis(at, n.asText()));
        }

        private static java.util.OptionalLong memory(JsonNode n, String at) {
            return n.isMissingNode() || n.isNull() ? java.util.OptionalLong.empty()
                    : java.util.OptionalLong.of(dev.vitals.kubesim.model.Resources.bytes(at, n.asText()));
        }
    }

    /**
     * Parses one probe object into a raw builder; type errors and unknown fields become problems.
     *
     * @param type the probe type
     * @param p the probe's YAML
     * @param prefix field path for messages
     * @return the builder (call {@code validate()} or {@code build()})
     */
    public static ProbeSpec.Builder parseProbe(ProbeType type, JsonNode p, String prefix) {
        ProbeSpec.Builder b = ProbeSpec.builder(type).fieldPrefix(prefix);
        if (!p.isObject()) {
            b.problem(new Violation("schema", prefix, "must be a mapping, was " + p.getNodeType(), ""));
            return b;
        }
        unknownFields(b, p, prefix);
        b.initialDelaySeconds(integer(b, p, "initialDelaySeconds", prefix));
        b.timeoutSeconds(integer(b, p, "timeoutSeconds", prefix));
        b.periodSeconds(integer(b, p, "periodSeconds", prefix));
        b.successThreshold(integer(b, p, "successThreshold", prefix));
        b.failureThreshold(integer(b, p, "failureThreshold", prefix));
        if (p.has("terminationGracePeriodSeconds") && !p.get("terminationGracePeriodSeconds").isNull()) {
            b.terminationGracePeriodSeconds(integer(b, p, "terminationGracePeriodSeconds", prefix));
        }
        handlers(b, p, prefix);
        return b;
    }

    /** Unknown fields of the probe and of its handlers: problems, as kubectl's strict decoding refuses them. */
    private static void unknownFields(ProbeSpec.Builder b, JsonNode p, String prefix) {
        Iterator<String> names = p.fieldNames();
        while (names.hasNext()) {
            String f = names.next();
            if (!PROBE_FIELDS.contains(f)) {
                b.problem(new Violation("schema", prefix + "." + f, "unknown field \"" + f + "\"",
                        "check the spelling; probe fields are " + String.join(", ", new java.util.TreeSet<>(PROBE_FIELDS))));
            }
        }
        for (Map.Entry<String, Set<String>> handler : HANDLER_FIELDS.entrySet()) {
            JsonNode node = p.get(handler.getKey());
            if (node == null || !node.isObject()) {
                continue;
            }
            Iterator<String> fields = node.fieldNames();
            while (fields.hasNext()) {
                String f = fields.next();
                if (!handler.getValue().contains(f)) {
                    // kubectl's strict decoding refuses it; dropping it would simulate another probe (issue 40)
                    b.problem(new Violation("schema", prefix + "." + handler.getKey() + "." + f, "unknown field \"" + f + "\"",
                            handler.getKey() + " takes " + String.join(", ", new java.util.TreeSet<>(handler.getValue()))
                                    + HANDLER_HINTS.getOrDefault(handler.getKey() + "." + f, "")));
                }
            }
        }
    }

    /** The probe's handlers, each one given (more than one is a problem {@code build()} names). */
    private static void handlers(ProbeSpec.Builder b, JsonNode p, String prefix) {
        JsonNode h = p.get("httpGet");
        if (h != null && !h.isNull()) {
            List<ProbeHandler.HttpHeader> headers = new ArrayList<>();
            for (JsonNode hd : h.path("httpHeaders")) {
                headers.add(new ProbeHandler.HttpHeader(hd.path("name").asText(""), hd.path("value").asText("")));
            }
            String path = h.path("path").asText("");
            String scheme = h.path("scheme").asText("");
            b.handler(new ProbeHandler.HttpGet(host(h), port(b, h, prefix + ".httpGet.port"),
                    path.isEmpty() ? "/" : path, scheme.isEmpty() ? "HTTP" : scheme, headers));
        }
        JsonNode t = p.get("tcpSocket");
        if (t != null && !t.isNull()) {
            b.handler(new ProbeHandler.TcpSocket(host(t), port(b, t, prefix + ".tcpSocket.port")));
        }
        JsonNode g = p.get("grpc");
        if (g != null && !g.isNull()) {
            JsonNode port = g.path("port");
            int n = 0;
            if (!port.isIntegralNumber()) {
                b.problem(new Violation("R11", prefix + ".grpc.port", "must be a port number, was " + port,
                        "use the numeric gRPC port; grpc does not accept port names"));
            } else {
                n = port.asInt();
            }
            b.handler(new ProbeHandler.Grpc(n, g.path("service").asText("")));
        }
        JsonNode e = p.get("exec");
        if (e != null && !e.isNull()) {
            List<String> cmd = new ArrayList<>();
            for (JsonNode c : e.path("command")) {
                cmd.add(c.asText());
            }
            b.handler(new ProbeHandler.Exec(cmd));
        }
    }

    private static Optional<String> host(JsonNode h) {
        String host = h.path("host").asText("");
        return host.isEmpty() ? Optional.empty() : Optional.of(host);
    }

    private static ProbeHandler.PortRef port(ProbeSpec.Builder b, JsonNode h, String field) {
        JsonNode port = h.path("port");
        if (port.isIntegralNumber()) {
            return ProbeHandler.PortRef.of(port.asInt());
        }
        if (port.isTextual()) {
            return ProbeHandler.PortRef.named(port.asText());
        }
        b.problem(new Violation("R11", field, port.isMissingNode() ? "is required" : "must be a number or a name, was " + port,
                "use a port number 1-65535 or a container port's name"));
        return ProbeHandler.PortRef.of(1);
    }

    private static long integer(ProbeSpec.Builder b, JsonNode p, String f, String prefix) {
        JsonNode v = p.get(f);
        if (v == null || v.isNull()) {
            return 0;
        }
        if (v.getNodeType() != JsonNodeType.NUMBER || !v.isIntegralNumber()) {
            b.problem(new Violation("schema", prefix + "." + f, "must be an integer, was " + v,
                    "write a whole number of " + (f.endsWith("Seconds") ? "seconds" : "probes")));
            return 0;
        }
        if (!v.canConvertToLong()) {
            // beyond 64 bits: asLong() would wrap; report the value as written
            boolean negative = v.bigIntegerValue().signum() < 0;
            b.problem(new Violation("R8", prefix + "." + f, negative
                    ? "must be greater than or equal to 0, was " + v.asText()
                    : "is too large: " + v.asText(), negative
                    ? "use 0 (the default) or a positive value" : "use a value that fits in 32 bits"));
            return 0;
        }
        return v.asLong();
    }
}
