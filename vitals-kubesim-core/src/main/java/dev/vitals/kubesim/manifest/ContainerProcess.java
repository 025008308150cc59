package dev.vitals.kubesim.manifest;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vitals.kubesim.model.EnvExpansion;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What the kubelet would start for one container, as far as a local process can have it: the
 * environment of {@code env} (literal values, with {@code $(VAR)} references to variables
 * defined before them expanded; {@code valueFrom.fieldRef} for the pod's name, namespace, IP,
 * node and service account) and the container's {@code command}/{@code args}, expanded with
 * that environment ({@code $(VAR)}, {@code $$} escapes; kubelet: kubecontainer.ExpandContainerCommandAndArgs,
 * expansion.Expand). Secret and config-map references, resource fields and {@code envFrom}
 * cannot be had locally: they are listed in {@link #unavailable()}. Immutable.
 *
 * <p>How the manifest relates to the command after {@code --}: that command stands for the
 * image (its entrypoint and default arguments). As in Kubernetes, a manifest {@code command}
 * replaces the entrypoint and its arguments; {@code args} alone are appended to the
 * entrypoint — here, to the command after {@code --}.
 *
 * @param env the environment, in manifest order
 * @param unavailable variables and sources that cannot be resolved locally, e.g. {@code DB_PASSWORD (secretKeyRef db/password)}
 * @param command the container's {@code command}, expanded, if written
 * @param args the container's {@code args}, expanded, if written
 */
public record ContainerProcess(Map<String, String> env, List<String> unavailable, Optional<List<String>> command,
        Optional<List<String>> args) {

    /**
     * Validates the components and copies the collections (unmodifiable).
     *
     * @param env the environment, in manifest order
     * @param unavailable variables and sources that cannot be resolved locally, e.g. {@code DB_PASSWORD
     *        (secretKeyRef db/password)}
     * @param command the container's {@code command}, expanded, if written
     * @param args the container's {@code args}, expanded, if written
     * @throws NullPointerException if a required component is null
     */
    public ContainerProcess {
        env = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(env));
        unavailable = List.copyOf(unavailable);
        Objects.requireNonNull(command, "command");
        Objects.requireNonNull(args, "args");
    }

    /**
     * @param container the container's YAML
     * @param pod the pod's identity for {@code fieldRef}s
     * @return the process description
     */
    public static ContainerProcess of(JsonNode container, PodIdentity pod) {
        Map<String, String> env = new LinkedHashMap<>();
        List<String> unavailable = new ArrayList<>();
        for (JsonNode e : container.path("env")) {
            String name = e.path("name").asText("");
            if (name.isEmpty()) {
                continue;
            }
            if (e.has("valueFrom")) {
                JsonNode from = e.get("valueFrom");
                if (from.has("fieldRef")) {
                    String path = from.path("fieldRef").path("fieldPath").asText("");
                    Optional<String> v = pod.field(path);
                    if (v.isPresent()) {
                        env.put(name, v.get());
                    } else {
                        unavailable.add(name + " (fieldRef " + path + ")");
                    }
                } else if (from.has("secretKeyRef")) {
                    unavailable.add(name + " (secretKeyRef " + ref(from.get("secretKeyRef")) + ")");
                } else if (from.has("configMapKeyRef")) {
                    unavailable.add(name + " (configMapKeyRef " + ref(from.get("configMapKeyRef")) + ")");
                } else if (from.has("resourceFieldRef")) {
                    unavailable.add(name + " (resourceFieldRef " + from.path("resourceFieldRef").path("resource").asText("")
                            + ")");
                } else {
                    unavailable.add(name + " (valueFrom)");
                }
                continue;
            }
            env.put(name, EnvExpansion.expand(e.path("value").asText(""), env));
        }
        for (JsonNode f : container.path("envFrom")) {
            String kind = f.has("secretRef") ? "secretRef" : f.has("configMapRef") ? "configMapRef" : "source";
            unavailable.add("envFrom " + kind + " " + f.path(kind).path("name").asText("?")
                    + (f.has("prefix") ? " (prefix " + f.path("prefix").asText() + ")" : ""));
        }
        return new ContainerProcess(env, unavailable, strings(container.get("command"), env), strings(container.get("args"), env));
    }

    /**
     * @param container the container's YAML
     * @return the map the kubelet expands exec probe commands with (kubecontainer.ExpandContainerCommandOnlyStatic
     *         over EnvVarsToMap, R68): each {@code env[]} name with its {@code value} as written, and a
     *         {@code valueFrom} variable with an empty string (its {@code value} is empty), so {@code $(POD_NAME)}
     *         in an exec probe expands to "" while an undeclared {@code $(NAME)} stays as written
     */
    public static Map<String, String> staticEnv(JsonNode container) {
        Map<String, String> out = new LinkedHashMap<>();
        for (JsonNode e : container.path("env")) {
            if (!e.path("name").asText("").isEmpty()) {
                out.put(e.path("name").asText(), e.has("valueFrom") ? "" : e.path("value").asText(""));
            }
        }
        return out;
    }

    private static String ref(JsonNode r) {
        return r.path("name").asText("?") + "/" + r.path("key").asText("?");
    }

    private static Optional<List<String>> strings(JsonNode n, Map<String, String> env) {
        if (n == null || !n.isArray() || n.isEmpty()) {
            return Optional.empty();
        }
        List<String> out = new ArrayList<>();
        n.forEach(x -> out.add(x.asText()));
        return Optional.of(EnvExpansion.expand(out, env));
    }

    /**
     * @param image the command after {@code --} (the image's entrypoint and default arguments); may be empty
     * @return the command line the container runs: the manifest's {@code command} (+ {@code args})
     *         when written, else {@code image} + {@code args}
     */
    public List<String> effectiveCommand(List<String> image) {
        List<String> out = new ArrayList<>();
        if (command.isPresent()) {
            out.addAll(command.get());
            args.ifPresent(out::addAll);
        } else {
            out.addAll(image);
            args.ifPresent(out::addAll);
        }
        return out;
    }

    /** @return how the effective command was made, for the run's header */
    public String origin() {
        if (command.isPresent()) {
            return "the manifest's command" + (args.isPresent() ? " and args" : "") + " (they replace the command after --)";
        }
        return args.isPresent() ? "the command after -- (the image) with the manifest's args" : "the command after -- (the image)";
    }

    /**
     * The pod fields a {@code fieldRef} can name.
     *
     * @param name {@code metadata.name}
     * @param namespace {@code metadata.namespace}
     * @param podIp {@code status.podIP} (and {@code status.hostIP})
     * @param labels {@code metadata.labels}
     * @param annotations {@code metadata.annotations}
     * @param serviceAccount {@code spec.serviceAccountName}
     */
    public record PodIdentity(String name, String namespace, String podIp, Map<String, String> labels,
            Map<String, String> annotations, String serviceAccount) {

        /**
         * Resolves a downward-API {@code fieldRef}.
         *
         * @param path the {@code fieldPath}, e.g. {@code metadata.name} or {@code status.podIP}
         * @return the value of a {@code fieldPath}, if this simulation has it
         */
        public Optional<String> field(String path) {
            switch (path) {
                case "metadata.name":
                    return Optional.of(name);
                case "metadata.namespace":
                    return Optional.of(namespace);
                case "status.podIP":
                case "status.hostIP":
                    return Optional.of(podIp);
                case "status.podIPs":
                case "status.hostIPs":
                    return Optional.of(podIp);
                case "spec.nodeName":
                    return Optional.of("kubesim-node");
                case "spec.serviceAccountName":
                    return Optional.of(serviceAccount);
                case "metadata.uid":
                    return Optional.of(java.util.UUID.nameUUIDFromBytes((namespace + "/" + name).getBytes(
                            java.nio.charset.StandardCharsets.UTF_8)).toString());
                default:
                    if (path.startsWith("metadata.labels['") && path.endsWith("']")) {
                        return Optional.ofNullable(labels.get(path.substring(17, path.length() - 2)));
                    }
                    if (path.startsWith("metadata.annotations['") && path.endsWith("']")) {
                        return Optional.ofNullable(annotations.get(path.substring(22, path.length() - 2)));
                    }
                    return Optional.empty();
            }
        }
    }
}
