package dev.vitals.kubesim.lint;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vitals.kubesim.input.InvalidInputException;
import dev.vitals.kubesim.input.Violation;
import dev.vitals.kubesim.manifest.IngressNginx;
import dev.vitals.kubesim.manifest.ManifestReader;
import dev.vitals.kubesim.model.PodSpec;
import dev.vitals.kubesim.yaml.YamlDocs;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Runs the selected rules over every container of every workload in the inputs, one document
 * at a time (memory: the largest document plus the findings). Kinds: Pod, Deployment,
 * StatefulSet, DaemonSet, ReplicaSet, ReplicationController, Job, CronJob, and List of
 * them; other kinds are counted and skipped. A finding is silenced by an annotation on the
 * workload or its pod template, {@code ignore-check.vitals.dev/<rule id or name>: "<reason>"};
 * an annotation without a reason silences nothing. Not thread-safe; one run at a time.
 */
public final class Linter {
    /** Annotation prefix that silences a rule for one object (the value is the reason). */
    public static final String IGNORE_PREFIX = "ignore-check.vitals.dev/";
    private static final Set<String> TEMPLATE_KINDS =
            Set.of("Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "ReplicationController", "Job");

    /**
     * A workload's pod template: a Pod's own spec, a template's, or a CronJob's job template's.
     *
     * @param spec the pod spec
     * @param metadata the template's metadata (a Pod's own)
     */
    private record PodTemplate(JsonNode spec, JsonNode metadata) {
        /** @return the template of a Pod, a workload with a template, or a CronJob; empty for any other kind */
        static Optional<PodTemplate> of(String kind, JsonNode obj) {
            if (kind.equals("Pod")) {
                return Optional.of(new PodTemplate(obj.path("spec"), obj.path("metadata")));
            }
            if (TEMPLATE_KINDS.contains(kind)) {
                return Optional.of(new PodTemplate(obj.path("spec").path("template").path("spec"),
                        obj.path("spec").path("template").path("metadata")));
            }
            if (kind.equals("CronJob")) {
                JsonNode t = obj.path("spec").path("jobTemplate").path("spec").path("template");
                return Optional.of(new PodTemplate(t.path("spec"), t.path("metadata")));
            }
            return Optional.empty();
        }
    }

    private final List<Rule> rules;
    private final LintContext context;
    private final Optional<String> container;
    private final boolean allowEmpty;

    /**
     * @param rules the rules to run (see {@link Rules#select})
     * @param context start-up time, application configuration, latencies
     * @param container only containers of this name ({@code name} or {@code Kind/name:container}), if given
     */
    public Linter(List<Rule> rules, LintContext context, Optional<String> container) {
        this(rules, context, container, false);
    }

    private Linter(List<Rule> rules, LintContext context, Optional<String> container, boolean allowEmpty) {
        this.rules = List.copyOf(rules);
        this.context = Objects.requireNonNull(context, "context");
        this.container = Objects.requireNonNull(container, "container");
        this.allowEmpty = allowEmpty;
    }

    /**
     * {@code --allow-empty}: an input named on the command line that holds no Kubernetes object
     * (no document with a {@code kind}: an empty file, {@code /etc/passwd}, a plain JSON or YAML
     * file) is reported as holding nothing instead of as bad input. A file found in a directory
     * is never bad input for that: it is listed as skipped.
     *
     * @param allow whether such an input is accepted
     * @return a linter like this one with that setting
     */
    public Linter allowEmpty(boolean allow) {
        return new Linter(rules, context, container, allow);
    }

    /**
     * Lints every input. An input that cannot be read or is not YAML is recorded in its
     * {@link LintReport.FileSummary} and the others are still linted.
     *
     * @param inputs the inputs
     * @return the report
     */
    public LintReport lint(List<LintInput> inputs) {
        List<List<Finding>> byInput = new ArrayList<>();
        List<LintReport.Suppressed> suppressed = new ArrayList<>();
        List<LintReport.FileSummary> files = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        InputClassifier.Split split = InputClassifier.split(inputs);
        List<LintReport.Skipped> skipped = new ArrayList<>(split.skipped());
        List<LintReport.Duplicate> duplicates = new ArrayList<>();
        List<String> notices = new ArrayList<>();
        Map<String, String> objects = new java.util.HashMap<>();
        Routing routing = new Routing();
        List<Pending> pending = new ArrayList<>();
        for (LintInput in : split.lint()) {
            List<Finding> findings = new ArrayList<>();
            byInput.add(findings);
            Run run = new Run(in.name(), findings, suppressed, seen, objects, skipped, duplicates, notices, routing, pending,
                    byInput.size() - 1);
            Optional<String> error = read(in, run);
            if (error.isEmpty() && run.objects == 0) {
                if (run.jsonPatches > 0) {
                    skipped.add(new LintReport.Skipped(in.name(), "a JSON patch (RFC 6902), applied by Kustomize"));
                } else if (in.found()) {
                    skipped.add(new LintReport.Skipped(in.name(), "not a Kubernetes manifest (no document has a kind)"));
                } else if (!allowEmpty) {
                    error = Optional.of(in.name() + ": not a Kubernetes manifest: " + (run.otherKinds.isEmpty() ? "no documents"
                            : "no document has a kind (" + String.join(", ", run.otherKinds.keySet()) + ")")
                            + "; --allow-empty accepts an input without objects");
                }
            }
            files.add(new LintReport.FileSummary(in.name(), run.workloads, run.containers, run.otherKinds, error));
        }
        // findings whose premise is a Service: judged once every Service of the input is known
        for (Pending p : pending) {
            p.rule().resolve(p.finding(), p.pod(), routing).ifPresent(byInput.get(p.input())::add);
        }
        List<Finding> findings = new ArrayList<>();
        for (int i = 0; i < byInput.size(); i++) {
            String name = files.get(i).name();
            List<Finding> mine = byInput.get(i);
            // this input's findings by line (stable: rule order within a line); app-config findings last
            mine.sort(java.util.Comparator.comparing((Finding f) -> !f.file().equals(name)).thenComparingInt(Finding::line));
            findings.addAll(mine);
        }
        return new LintReport(findings, suppressed, files, rules, !routing.services().isEmpty())
                .classified(new LintReport.Inputs(skipped, duplicates), notices);
    }

    /** A finding held until the input's Services are known. */
    private record Pending(Finding finding, BaseRule rule, PodRef pod, int input) {
    }

    /** The state of one input's run. */
    private final class Run {
        final String file;
        final List<Finding> findings;
        final List<LintReport.Suppressed> suppressed;
        final Set<String> seen;
        final Map<String, String> objectsSeen;
        final List<LintReport.Skipped> skipped;
        final List<LintReport.Duplicate> duplicates;
        final List<String> notices;
        final Routing routing;
        final List<Pending> pending;
        final int input;
        int workloads;
        int containers;
        int objects;
        int jsonPatches;
        final Map<String, Integer> otherKinds = new TreeMap<>();

        Run(String file, List<Finding> findings, List<LintReport.Suppressed> suppressed, Set<String> seen,
                Map<String, String> objectsSeen, List<LintReport.Skipped> skipped, List<LintReport.Duplicate> duplicates,
                List<String> notices, Routing routing, List<Pending> pending, int input) {
            this.file = file;
            this.findings = findings;
            this.suppressed = suppressed;
            this.seen = seen;
            this.objectsSeen = objectsSeen;
            this.skipped = skipped;
            this.duplicates = duplicates;
            this.notices = notices;
            this.routing = routing;
            this.pending = pending;
            this.input = input;
        }

        void document(YamlDocs.Doc d, YamlDocs docs) {
            if (!d.root.isObject()) {
                if (docs.templateLine() > 0) {
                    throw docs.templateOr(null);
                }
                if (InputClassifier.isJsonPatch(d.root)) {
                    jsonPatches++;
                }
                otherKinds.merge("not an object: " + d.root.getNodeType().toString().toLowerCase(java.util.Locale.ROOT),
                        1, Integer::sum);
                return;
            }
            String kind = d.root.path("kind").asText("");
            if (kind.contains("{{") || d.root.path("apiVersion").asText("").contains("{{")) {
                throw docs.templateOr(new YamlDocs.YamlInputException("kind is a template expression", d.line));
            }
            Map<String, String> docAnnotations = annotations(d.root.path("metadata"));
            for (YamlDocs.DuplicateKey k : d.duplicates) {
                report(new Finding(Rules.DUPLICATE_KEY.id(), Rules.DUPLICATE_KEY.name(), Severity.ERROR, file, k.secondLine(),
                        label(d.root), "", k.key(), "key '" + k.key() + "' is written twice in one mapping (lines "
                        + k.firstLine() + " and " + k.secondLine() + "): the API server's strict decoding rejects the object"
                        + " (kubectl: duplicate field), and tools that accept it keep only one of the two",
                        "strict decoding", "keep one '" + k.key() + "' (merge the two)"), docAnnotations);
            }
            collect(d.root, d);
        }

        private void collect(JsonNode obj, YamlDocs.Doc d) {
            String kind = obj.path("kind").asText("");
            if (InputClassifier.isObject(obj)) {
                objects++;
            }
            if (kind.equals("List")) {
                for (JsonNode item : obj.path("items")) {
                    collect(item, d);
                }
                return;
            }
            Optional<PodTemplate> template = PodTemplate.of(kind, obj);
            if (template.isEmpty()) {
                other(kind, obj, d);
                return;
            }
            if (skippedAsPatchOrDuplicate(obj, d)) {
                return;
            }
            workloads++;
            JsonNode podSpec = template.get().spec();
            String name = obj.path("metadata").path("name").asText("");
            Map<String, String> ann = workloadAnnotations(obj, template.get().metadata(), d);
            String workload = kind + "/" + (name.isEmpty() ? "(unnamed)" : name);
            if (podSpec.path("containers").isObject()) {
                report(new Finding(Rules.API.id(), Rules.API.name(), Severity.ERROR, file, d.locations.line(podSpec, "containers"),
                        workload, "", "spec.containers", "containers must be a list of containers, was a mapping: the API"
                        + " server rejects the object", "R11", "write containers as a list: '- name: app'"), ann);
            }
            for (ManifestReader.ContainerEntry e : entries(workload, podSpec)) {
                if (container.isPresent() && !container.get().equals(e.name())
                        && !container.get().equals(workload + ":" + e.name())) {
                    continue;
                }
                if (!e.node().isObject()) {
                    continue;
                }
                containers++;
                lintContainer(kind, name, e, obj, d, ann);
            }
        }

        /** An object with no pod template: counted by kind; a Service or Ingress is kept for the routing rules. */
        private void other(String kind, JsonNode obj, YamlDocs.Doc d) {
            otherKinds.merge(kind.isEmpty() ? "no kind" : kind, 1, Integer::sum);
            Optional<String> bad = kind.equals("Service") ? routing.addService(file, obj, d.locations)
                    : kind.equals("Ingress") ? routing.addIngress(file, obj, d.locations) : Optional.empty();
            bad.ifPresent(b -> report(new Finding(Rules.API.id(), Rules.API.name(), Severity.ERROR, file,
                    d.locations.line(obj), label(obj), "", "spec", b, "", "correct the value"), annotations(obj.path("metadata"))));
            if (kind.equals("Ingress") && rules.contains(Rules.INGRESS_ANNOTATION)) {
                unmodelledAnnotations(obj, d);
            }
        }

        /** I1: an ingress-nginx annotation the routing model does not read, one info finding each. */
        private void unmodelledAnnotations(JsonNode obj, YamlDocs.Doc d) {
            JsonNode ann = obj.path("metadata").path("annotations");
            for (String a : IngressNginx.unmodelled(ann)) {
                report(new Finding(Rules.INGRESS_ANNOTATION.id(), Rules.INGRESS_ANNOTATION.name(), Severity.INFO, file,
                        d.locations.line(ann, a), label(obj), "", "metadata.annotations", "annotation " + a + " is "
                        + IngressNginx.why() + "; the routing rules (L24) judge this Ingress without it", "",
                        "nothing to change if it does not decide which pod holds a client (affinity-mode,"
                        + " session-cookie-*) or how long a request waits; otherwise judge that part by hand"),
                        annotations(obj.path("metadata")));
            }
        }

        /**
         * @return the workload's annotations and its template's (the workload's win); a bad suppression
         *         annotation is a notice with its line
         */
        private Map<String, String> workloadAnnotations(JsonNode obj, JsonNode templateMeta, YamlDocs.Doc d) {
            Map<String, String> ann = new LinkedHashMap<>(annotations(templateMeta));
            ann.putAll(annotations(obj.path("metadata")));
            for (Map.Entry<String, String> p : Suppressions.problems(ann)) {
                int l = d.locations.line(obj.path("metadata").path("annotations"), p.getKey());
                l = l > 0 ? l : d.locations.line(templateMeta.path("annotations"), p.getKey());
                notices.add(file + ":" + l + ": " + label(obj) + ": annotation " + p.getKey() + " " + p.getValue());
            }
            return ann;
        }

        /** @return the pod's containers, init containers (sidecars: restartPolicy Always) and ephemeral containers */
        private List<ManifestReader.ContainerEntry> entries(String workload, JsonNode podSpec) {
            List<ManifestReader.ContainerEntry> entries = new ArrayList<>();
            for (JsonNode c : podSpec.path("containers")) {
                entries.add(new ManifestReader.ContainerEntry(file, workload, c.path("name").asText(""),
                        ManifestReader.Role.CONTAINER, c, podSpec));
            }
            for (JsonNode c : podSpec.path("initContainers")) {
                ManifestReader.Role role = "Always".equals(c.path("restartPolicy").asText("")) ? ManifestReader.Role.SIDECAR
                        : ManifestReader.Role.INIT_CONTAINER;
                entries.add(new ManifestReader.ContainerEntry(file, workload, c.path("name").asText(""), role, c, podSpec));
            }
            for (JsonNode c : podSpec.path("ephemeralContainers")) {
                entries.add(new ManifestReader.ContainerEntry(file, workload, c.path("name").asText(""),
                        ManifestReader.Role.EPHEMERAL, c, podSpec));
            }
            return entries;
        }

        private void lintContainer(String kind, String name, ManifestReader.ContainerEntry e, JsonNode obj, YamlDocs.Doc d,
                Map<String, String> ann) {
            List<Violation> violations = e.validate();
            Optional<PodSpec> pod = Optional.empty();
            Target t = new Target(file, kind, name, e, obj, d.locations, Optional.empty(), ann);
            if (violations.isEmpty()) {
                try {
                    pod = Optional.of(e.toPodSpec());
                } catch (InvalidInputException ex) {
                    violations = ex.violations();
                }
            }
            for (Violation v : violations) {
                Rule rule = v.rule().equals("R22") ? Rules.PORT_NAME : Rules.API;
                if (!rules.contains(rule)) {
                    continue;
                }
                String prefix = e.prefix() + ".";
                boolean podLevel = !v.field().startsWith(prefix);
                String dotted = podLevel ? "" : handlerPath(e.node(), v.field().substring(prefix.length()));
                int line = podLevel ? podLevelLine(d, v.field(), e) : t.line(dotted);
                String field = podLevel ? v.field().substring(v.field().indexOf(' ') + 1) : t.field(dotted);
                report(new Finding(v.rule().equals("R22") ? "R22" : Rules.API.id(), rule.name(), Severity.ERROR, file, line,
                        t.object(), e.name(), field, (v.rule().equals("R22") ? "" : "the API server would reject this: ") + v.message(), v.rule(), v.fix().isEmpty() ? "correct the value" : v.fix()), ann);
            }
            if (pod.isEmpty()) {
                return;
            }
            Target valid = new Target(file, kind, name, e, obj, d.locations, pod, ann);
            PodRef ref = PodRef.of(valid);
            List<Finding> raw = new ArrayList<>();
            List<Rule> by = new ArrayList<>();
            for (Rule r : rules) {
                if (r.needsAppConfig() && !context.hasAppConfig()) {
                    continue;
                }
                r.check(valid, context, f -> {
                    raw.add(f);
                    by.add(r);
                });
            }
            for (int i = 0; i < raw.size(); i++) {
                Finding f = raw.get(i);
                // a fix is offered only when, applied to a copy and linted again, it holds (FixCheck)
                if (FixCheck.problem(f, valid, raw, rules, context).isPresent()) {
                    f = f.withoutFix();
                }
                Rule r = by.get(i);
                if (r.needsService() && r instanceof BaseRule) {
                    if (!suppress(f, ann)) {
                        pending.add(new Pending(f, (BaseRule) r, ref, input));
                    }
                } else {
                    report(f, ann);
                }
            }
        }

        /** Records a strategic-merge patch or a second copy of an object (both not linted); false for anything else. */
        private boolean skippedAsPatchOrDuplicate(JsonNode obj, YamlDocs.Doc d) {
            int l = d.locations.line(obj);
            String at = file + ":" + (l > 0 ? l : d.line);
            Optional<String> patch = InputClassifier.patchReason(obj);
            if (patch.isPresent()) {
                skipped.add(new LintReport.Skipped(at + " " + label(obj), patch.get()));
                return true;
            }
            Optional<String> id = InputClassifier.identity(obj);
            if (id.isPresent()) {
                // a copy has every field equal; the same identity with other fields is another manifest of it, linted
                String first = objectsSeen.putIfAbsent(id.get() + "\u0000" + InputClassifier.content(obj), at);
                if (first != null) {
                    duplicates.add(new LintReport.Duplicate(id.get(), first, at));
                    return true;
                }
            }
            return false;
        }

        /** {@code livenessProbe.port} (how R22 names the field) → {@code livenessProbe.httpGet.port}. */
        private String handlerPath(JsonNode c, String dotted) {
            int dot = dotted.indexOf('.');
            if (dot > 0 && dotted.substring(dot).equals(".port")) {
                String probe = dotted.substring(0, dot);
                for (String h : new String[] {"httpGet", "tcpSocket", "grpc"}) {
                    if (c.path(probe).has(h)) {
                        return probe + "." + h + ".port";
                    }
                }
            }
            return dotted;
        }

        private int podLevelLine(YamlDocs.Doc d, String field, ManifestReader.ContainerEntry e) {
            String key = field.substring(field.lastIndexOf('.') + 1);
            return d.locations.line(e.podSpec(), key);
        }

        void report(Finding f, Map<String, String> ann) {
            String key = f.rule() + "\u0000" + f.file() + "\u0000" + f.line() + "\u0000" + f.object() + "\u0000"
                    + f.container() + "\u0000" + f.message();
            if (!f.object().isEmpty() || f.file().equals(file)) {
                if (!seen.add(key)) {
                    return;
                }
            } else if (!seen.add(f.rule() + "\u0000" + f.file() + "\u0000" + f.line() + "\u0000" + f.message())) {
                return;
            }
            if (!suppress(f, ann)) {
                findings.add(f);
            }
        }

        /** @return true when an annotation silences the finding (then listed as suppressed) */
        boolean suppress(Finding f, Map<String, String> ann) {
            Optional<LintReport.Suppressed> s = Suppressions.match(f, ann);
            s.ifPresent(suppressed::add);
            return s.isPresent();
        }
    }

    /**
     * Reads every document of {@code in} into {@code run}.
     *
     * @return why the input could not be read (its line for bad YAML), if so
     */
    private static Optional<String> read(LintInput in, Run run) {
        try (Reader r = in.open()) {
            YamlDocs docs = new YamlDocs(r, in.name(), "helm template RELEASE CHART | vitals lint -");
            while (true) {
                Optional<YamlDocs.Doc> d = docs.next();
                if (d.isEmpty()) {
                    return Optional.empty();
                }
                run.document(d.get(), docs);
            }
        } catch (YamlDocs.YamlInputException e) {
            return Optional.of(in.name() + (e.line > 0 ? ":" + e.line : "") + ": " + e.getMessage());
        } catch (IOException e) {
            return Optional.of(in.name() + ": cannot read: " + InvalidInputException.reason(e));
        } catch (UncheckedIOException e) {
            return Optional.of(in.name() + ": cannot read: " + InvalidInputException.reason(e.getCause()));
        }
    }

    private static Map<String, String> annotations(JsonNode meta) {
        Map<String, String> out = new LinkedHashMap<>();
        Iterator<Map.Entry<String, JsonNode>> it = meta.path("annotations").fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            out.put(e.getKey(), e.getValue().asText(""));
        }
        return out;
    }

    private static String label(JsonNode root) {
        String kind = root.path("kind").asText("");
        String name = root.path("metadata").path("name").asText("");
        return kind.isEmpty() ? "" : kind + "/" + (name.isEmpty() ? "(unnamed)" : name);
    }
}
