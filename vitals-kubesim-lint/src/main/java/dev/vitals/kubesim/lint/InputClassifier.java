package dev.vitals.kubesim.lint;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vitals.kubesim.input.InvalidInputException;
import dev.vitals.kubesim.yaml.InputFiles;
import dev.vitals.kubesim.yaml.YamlDocs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What lint's inputs are, before and while they are read: Kustomize files and patches are skipped
 * (and listed), an object written twice is linted once, and an input that holds no Kubernetes
 * object is told apart. The rules, each one an observation a reader can check:
 *
 * <ul>
 *   <li>a file named {@code kustomization.yaml}, {@code kustomization.yml} or {@code Kustomization}
 *       is Kustomize's own file, not a manifest;</li>
 *   <li>a file listed under {@code patches} ({@code path:}), {@code patchesStrategicMerge} or
 *       {@code patchesJson6902} ({@code path:}) of such a file, among the inputs or beside an input,
 *       is a patch;</li>
 *   <li>an {@code apps/v1} Deployment, StatefulSet, DaemonSet or ReplicaSet without
 *       {@code spec.selector} and with no container that names an {@code image} is a strategic-merge
 *       patch: {@code apps/v1} requires the selector (the API server rejects the object without it,
 *       "spec.selector: Required value") and a workload runs images, while a patch leaves both out
 *       because it merges onto a base that has them (one missing alone is a broken object, linted);</li>
 *   <li>a document that is a list of mappings each with {@code op} and {@code path} is a JSON patch
 *       (RFC 6902);</li>
 *   <li>an object is a mapping with a non-empty {@code kind}; a second one is a copy of the first
 *       when kind, namespace ({@code default} when not written) and name are equal and so is every
 *       field written in it (the same object listed twice: a file named and found in its directory,
 *       a rendering concatenated with its sources). Two objects of one identity with different
 *       fields are two manifests of it (an environment's variant, another application's
 *       {@code Deployment/frontend} in a tree of examples): both are linted.</li>
 * </ul>
 *
 * Stateless; thread-safe.
 */
final class InputClassifier {
    /** The names Kustomize looks for in a directory. */
    static final Set<String> KUSTOMIZATION_NAMES = Set.of("kustomization.yaml", "kustomization.yml", "Kustomization");
    private static final Set<String> APPS_V1_SELECTOR_REQUIRED = Set.of("Deployment", "StatefulSet", "DaemonSet", "ReplicaSet");

    private InputClassifier() {
    }

    /**
     * The inputs to read, and those skipped.
     *
     * @param lint the inputs to read, in the order given
     * @param skipped Kustomize files and patches, with why
     */
    record Split(List<LintInput> lint, List<LintReport.Skipped> skipped) {
    }

    /**
     * Separates Kustomize files and the patches they list from the manifests.
     *
     * @param inputs the run's inputs
     * @return what to read and what is skipped
     */
    static Split split(List<LintInput> inputs) {
        Map<Path, String> patches = new LinkedHashMap<>();
        List<Path> kustomizations = new ArrayList<>();
        for (LintInput in : inputs) {
            Optional<Path> p = path(in);
            if (p.isEmpty()) {
                continue;
            }
            if (isKustomization(p.get())) {
                kustomizations.add(p.get());
            } else if (p.get().getParent() != null) {
                for (String n : KUSTOMIZATION_NAMES) {
                    Path k = p.get().getParent().resolve(n);
                    if (Files.isRegularFile(k) && !kustomizations.contains(k)) {
                        kustomizations.add(k);
                    }
                }
            }
        }
        for (Path k : kustomizations) {
            Path cwd = Path.of("").toAbsolutePath();
            Path shown = k.startsWith(cwd) ? cwd.relativize(k) : k;
            patches(k).forEach((p, field) -> patches.putIfAbsent(p, field + " of " + shown));
        }
        List<LintInput> lint = new ArrayList<>();
        List<LintReport.Skipped> skipped = new ArrayList<>();
        for (LintInput in : inputs) {
            Optional<Path> p = path(in);
            if (p.isPresent() && isKustomization(p.get())) {
                skipped.add(new LintReport.Skipped(in.name(), "a Kustomize file (render it with kustomize build DIR |"
                        + " vitals lint -)"));
            } else if (p.isPresent() && patches.containsKey(norm(p.get()))) {
                skipped.add(new LintReport.Skipped(in.name(), "a Kustomize patch (" + patches.get(norm(p.get())) + ")"));
            } else {
                lint.add(in);
            }
        }
        return new Split(lint, skipped);
    }

    private static Optional<Path> path(LintInput in) {
        if (in.name().equals("-")) {
            return Optional.empty();
        }
        try {
            Path p = Path.of(in.name());
            return Files.isRegularFile(p) ? Optional.of(norm(p)) : Optional.empty();
        } catch (java.nio.file.InvalidPathException e) {
            return Optional.empty();
        }
    }

    private static Path norm(Path p) {
        return p.toAbsolutePath().normalize();
    }

    private static boolean isKustomization(Path p) {
        return KUSTOMIZATION_NAMES.contains(p.getFileName().toString());
    }

    /** The files a kustomization lists as patches (absolute), with the field that lists them; none when it cannot be read. */
    private static Map<Path, String> patches(Path kustomization) {
        Map<Path, String> out = new LinkedHashMap<>();
        List<YamlDocs.Doc> docs;
        try {
            docs = YamlDocs.readAll(InputFiles.readText(kustomization), kustomization.toString(), "kustomize build");
        } catch (IOException | InvalidInputException e) {
            return out; // it is skipped anyway; a broken kustomization lists nothing
        }
        Path dir = kustomization.toAbsolutePath().getParent();
        for (YamlDocs.Doc d : docs) {
            for (String field : List.of("patchesStrategicMerge", "patches", "patchesJson6902")) {
                for (JsonNode e : d.root.path(field)) {
                    String rel = e.isTextual() ? e.asText() : e.path("path").asText("");
                    if (!rel.isEmpty() && !rel.contains("\n")) {
                        try {
                            out.put(dir.resolve(rel).normalize(), field);
                        } catch (java.nio.file.InvalidPathException ignored) {
                            // not a path (an inline patch): nothing to skip
                        }
                    }
                }
            }
        }
        return out;
    }

    /**
     * @param obj a document or a List's item
     * @return whether it is a Kubernetes object (a mapping with a non-empty {@code kind})
     */
    static boolean isObject(JsonNode obj) {
        return obj.isObject() && !obj.path("kind").asText("").isBlank();
    }

    /**
     * @param doc a document
     * @return whether it is a JSON patch (RFC 6902): a non-empty list of mappings each with {@code op} and {@code path}
     */
    static boolean isJsonPatch(JsonNode doc) {
        if (!doc.isArray() || doc.isEmpty()) {
            return false;
        }
        for (JsonNode op : doc) {
            if (!op.isObject() || !op.has("op") || !op.has("path")) {
                return false;
            }
        }
        return true;
    }

    /**
     * @param obj a workload
     * @return why it is a strategic-merge patch rather than an object, or empty
     */
    static Optional<String> patchReason(JsonNode obj) {
        String kind = obj.path("kind").asText("");
        if (!APPS_V1_SELECTOR_REQUIRED.contains(kind) || !obj.path("apiVersion").asText("").equals("apps/v1")
                || !obj.path("spec").path("selector").isMissingNode()) {
            return Optional.empty();
        }
        for (JsonNode c : obj.path("spec").path("template").path("spec").path("containers")) {
            if (!c.path("image").asText("").isBlank()) {
                return Optional.empty();
            }
        }
        return Optional.of("a strategic-merge patch: no spec.selector, which apps/v1 requires of a " + kind
                + ", and no container with an image (a patch merges onto a base that has both)");
    }

    /**
     * @param obj an object
     * @return a digest (FNV-1a, 64 bits, and a length) of every field written in it, mapping keys sorted (YAML key order has no meaning;
     *         sequence order has): equal for a copy of the object, whatever order its keys are written in
     */
    static String content(JsonNode obj) {
        // FNV-1a (64 bits) and the length of the canonical text: no MessageDigest, no ObjectMapper on lint's path
        // (bench/budget counts the classes a lint loads); two different objects of one identity colliding on both is
        // a chance of about 2^-64
        String c = canonical(obj, new StringBuilder()).toString();
        long h = 0xcbf29ce484222325L;
        for (int i = 0; i < c.length(); i++) {
            h ^= c.charAt(i);
            h *= 0x100000001b3L;
        }
        return Long.toHexString(h) + "/" + c.length();
    }

    /**
     * Writes {@code n} with every mapping's keys sorted, recursively; each key and scalar as its node type,
     * its length and its text, so the encoding is unambiguous without escaping (and without Jackson's
     * serialiser: {@code JsonNode.toString()} builds an ObjectMapper).
     */
    private static StringBuilder canonical(JsonNode n, StringBuilder b) {
        if (n.isObject()) {
            List<String> keys = new java.util.ArrayList<>();
            n.fieldNames().forEachRemaining(keys::add);
            java.util.Collections.sort(keys);
            b.append('{');
            for (String k : keys) {
                b.append(k.length()).append(':').append(k);
                canonical(n.get(k), b);
            }
            return b.append('}');
        }
        if (n.isArray()) {
            b.append('[');
            for (int i = 0; i < n.size(); i++) {
                canonical(n.get(i), b);
            }
            return b.append(']');
        }
        String text = n.asText();
        return b.append(n.getNodeType().ordinal()).append(',').append(text.length()).append(':').append(text);
    }

    /**
     * @param obj an object
     * @return {@code Kind/namespace/name}, the identity the API server gives it (namespace {@code default} when not
     *         written); empty when it has no name
     */
    static Optional<String> identity(JsonNode obj) {
        String name = obj.path("metadata").path("name").asText("");
        if (name.isEmpty()) {
            return Optional.empty();
        }
        String ns = obj.path("metadata").path("namespace").asText("");
        return Optional.of(obj.path("kind").asText("") + "/" + (ns.isEmpty() ? "default" : ns) + "/" + name);
    }
}
