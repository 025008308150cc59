package dev.vitals.kubesim.lint;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vitals.kubesim.input.InvalidInputException;
import dev.vitals.kubesim.model.KubernetesVersion;
import dev.vitals.kubesim.yaml.InputFiles;
import dev.vitals.kubesim.yaml.YamlDocs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A project's lint settings, {@code .vitals.yaml}: rules turned off, per-rule severities and
 * the Kubernetes release the manifests are for. Applied as one value over a run's findings
 * ({@link #apply}), by rule id, so it holds for any rule however it is written:
 *
 * <pre>{@code
 * # .vitals.yaml
 * kubernetesVersion: "1.33"     # as --kubernetes-version (the flag wins)
 * rules:
 *   L5: off                     # findings of L5 are not reported (counted in the summary)
 *   restart-before-shed: error  # by id or name: error, warning, info, or off
 * }</pre>
 *
 * <p>Found upward from the first input ({@link #find}: the input's directory, then each parent to
 * the file system's root), or given with {@code --config}. A file that does not follow this shape
 * (an unknown key or rule, a value other than a severity or {@code off}, a rule named twice, a key
 * written twice) is bad input: one line {@code FILE:LINE: problem}. Immutable; thread-safe.
 */
public final class LintConfig {
    /** The file name looked for upward from the inputs. */
    public static final String FILE_NAME = ".vitals.yaml";
    private static final LintConfig NONE = new LintConfig(Optional.empty(), Map.of(), Optional.empty());

    /**
     * One rule's setting.
     *
     * @param rule the rule's id (as findings carry it)
     * @param severity the severity its findings get; empty when the rule is off
     * @param line the line in the file
     */
    record Setting(String rule, Optional<Severity> severity, int line) {
    }

    private final Optional<Path> file;
    private final Map<String, Setting> rules;
    private final Optional<KubernetesVersion> kubernetesVersion;

    private LintConfig(Optional<Path> file, Map<String, Setting> rules, Optional<KubernetesVersion> kubernetesVersion) {
        this.file = file;
        this.rules = Map.copyOf(rules);
        this.kubernetesVersion = kubernetesVersion;
    }

    /** @return no settings: every finding as its rule reports it */
    public static LintConfig none() {
        return NONE;
    }

    /** @return the file the settings came from (empty for {@link #none()}) */
    public Optional<Path> file() {
        return file;
    }

    /** @return {@code kubernetesVersion}, if the file sets it */
    public Optional<KubernetesVersion> kubernetesVersion() {
        return kubernetesVersion;
    }

    /**
     * The {@code .vitals.yaml} that governs a path: in the path itself when it is a directory, else
     * in its directory, then in each parent up to the file system's root.
     *
     * @param start an input file or directory (relative paths are taken from the working directory)
     * @return the nearest {@code .vitals.yaml}, if any (relative to the working directory when under it)
     */
    public static Optional<Path> find(Path start) {
        Path p = start.toAbsolutePath().normalize();
        if (!Files.isDirectory(p)) {
            p = p.getParent();
        }
        for (; p != null; p = p.getParent()) {
            Path f = p.resolve(FILE_NAME);
            if (Files.isRegularFile(f)) {
                Path cwd = Path.of("").toAbsolutePath();
                return Optional.of(f.startsWith(cwd) ? cwd.relativize(f) : f); // named as the inputs are
            }
        }
        return Optional.empty();
    }

    /**
     * The settings for a run: {@code explicit} when given, else the {@code .vitals.yaml} found
     * upward from the first input that is a path (from the working directory when the only input
     * is standard input), else {@link #none()}.
     *
     * @param inputs the run's inputs as given ({@code -} for standard input)
     * @param explicit {@code --config FILE}, if given
     * @return the settings
     * @throws InvalidInputException as {@link #load}
     */
    public static LintConfig discover(List<String> inputs, Optional<Path> explicit) {
        if (explicit.isPresent()) {
            return load(explicit.get());
        }
        Path start = inputs.stream().filter(i -> !i.equals("-")).findFirst().map(Path::of).orElse(Path.of(""));
        return find(start).map(LintConfig::load).orElse(NONE);
    }

    /**
     * Reads a settings file.
     *
     * @param path the file
     * @return its settings
     * @throws InvalidInputException one line, {@code FILE:LINE: problem}, when the file cannot be read or
     *         does not follow the shape above
     */
    public static LintConfig load(Path path) {
        Objects.requireNonNull(path, "path");
        if (!Files.isRegularFile(path)) {
            throw new InvalidInputException(path + ": " + (Files.isDirectory(path) ? "is a directory" : "no such file")
                    + " (--config takes a " + FILE_NAME + " file)");
        }
        String name = path.toString();
        String text;
        try {
            text = InputFiles.readText(path);
        } catch (java.io.IOException e) {
            throw new InvalidInputException(name + ": cannot read: " + InvalidInputException.reason(e));
        }
        List<YamlDocs.Doc> docs = YamlDocs.readAll(text, name, "render it first");
        if (docs.size() > 1) {
            throw new InvalidInputException(name + ":" + docs.get(1).line + ": holds " + docs.size()
                    + " YAML documents ('---'); " + FILE_NAME + " is one document");
        }
        if (docs.isEmpty() || docs.get(0).root.isNull()) {
            return new LintConfig(Optional.of(path), Map.of(), Optional.empty());
        }
        JsonNode root = docs.get(0).root;
        YamlDocs.Locations at = docs.get(0).locations;
        if (!root.isObject()) {
            throw new InvalidInputException(name + ":" + docs.get(0).line + ": " + FILE_NAME
                    + " is a mapping with 'rules' and 'kubernetesVersion', was " + kind(root));
        }
        Map<String, Setting> rules = new LinkedHashMap<>();
        Optional<KubernetesVersion> version = Optional.empty();
        for (Iterator<Map.Entry<String, JsonNode>> it = root.fields(); it.hasNext();) {
            Map.Entry<String, JsonNode> e = it.next();
            int line = at.line(root, e.getKey());
            switch (e.getKey()) {
                case "kubernetesVersion":
                    if (!e.getValue().isValueNode()) {
                        throw new InvalidInputException(name + ":" + line + ": kubernetesVersion is a release like \"1.34\"");
                    }
                    try {
                        version = Optional.of(KubernetesVersion.parse(e.getValue().asText()));
                    } catch (InvalidInputException ex) {
                        if (e.getValue().isNumber()) {
                            // YAML read 1.30 as the number 1.3: the trailing zero is gone before we see it
                            throw new InvalidInputException(name + ":" + line + ": kubernetesVersion: YAML reads the unquoted "
                                    + e.getValue().asText() + " as a number (1.30 becomes 1.3); quote it, e.g. kubernetesVersion: \"1.30\"");
                        }
                        throw new InvalidInputException(name + ":" + line + ": kubernetesVersion: '" + e.getValue().asText()
                                + "' is not a release like \"1.34\" (" + KubernetesVersion.OLDEST_MINOR + "-"
                                + KubernetesVersion.NEWEST_MINOR + " after '1.')");
                    }
                    break;
                case "rules":
                    readRules(name, e.getValue(), at, line, rules);
                    break;
                default:
                    throw new InvalidInputException(name + ":" + line + ": unknown key '" + e.getKey()
                            + "' (keys: rules, kubernetesVersion)");
            }
        }
        return new LintConfig(Optional.of(path), rules, version);
    }

    private static void readRules(String name, JsonNode node, YamlDocs.Locations at, int line, Map<String, Setting> out) {
        if (node.isNull()) {
            return;
        }
        if (!node.isObject()) {
            throw new InvalidInputException(name + ":" + line + ": rules is a mapping of rule id or name to error, warning,"
                    + " info or off (e.g. 'L5: off'), was " + kind(node));
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext();) {
            Map.Entry<String, JsonNode> e = it.next();
            int l = at.line(node, e.getKey());
            Rule r = Rules.find(e.getKey());
            if (r == null) {
                throw new InvalidInputException(name + ":" + l + ": unknown rule '" + e.getKey() + "' (rules: " + Rules.ids()
                        + ")");
            }
            String v = e.getValue().isValueNode() ? e.getValue().asText("") : "";
            Optional<Severity> severity;
            if (v.equals("off")) {
                severity = Optional.empty();
            } else {
                try {
                    severity = Optional.of(Severity.parse(v));
                } catch (IllegalArgumentException ex) {
                    throw new InvalidInputException(name + ":" + l + ": rule " + e.getKey() + ": '"
                            + (e.getValue().isValueNode() ? v : kind(e.getValue())) + "' is not off or a severity ("
                            + severities() + ")");
                }
            }
            Setting before = out.put(r.id(), new Setting(r.id(), severity, l));
            if (before != null) {
                throw new InvalidInputException(name + ":" + l + ": rule " + r.id() + " is set twice (lines " + before.line()
                        + " and " + l + ")");
            }
        }
    }

    private static String severities() {
        List<String> s = new ArrayList<>();
        for (Severity v : Severity.values()) {
            s.add(v.label());
        }
        return String.join(", ", s);
    }

    private static String kind(JsonNode n) {
        return n.isArray() ? "a list" : n.isObject() ? "a mapping" : "'" + n.asText() + "'";
    }

    /**
     * The severity a rule's findings get under these settings.
     *
     * @param rule a rule
     * @return its configured severity, its own when not configured, empty when it is off
     */
    public Optional<Severity> severity(Rule rule) {
        Setting s = rules.get(rule.id());
        return s == null ? Optional.of(rule.severity()) : s.severity();
    }

    /**
     * Applies the settings to a run: findings of a rule that is off leave the report's findings
     * (kept, counted per rule, as {@link LintReport#disabled()}), and findings of a rule given a
     * severity take it (also suppressed ones). A report with {@link #none()} is returned unchanged.
     *
     * @param report a run's report
     * @return the report under these settings
     */
    public LintReport apply(LintReport report) {
        if (file.isEmpty()) {
            return report;
        }
        List<Finding> kept = new ArrayList<>();
        List<Finding> disabled = new ArrayList<>(report.disabled());
        for (Finding f : report.findings()) {
            Optional<Optional<Severity>> s = setting(f);
            if (s.isEmpty()) {
                kept.add(f);
            } else if (s.get().isEmpty()) {
                disabled.add(f);
            } else {
                kept.add(with(f, s.get().get()));
            }
        }
        List<LintReport.Suppressed> suppressed = new ArrayList<>();
        for (LintReport.Suppressed s : report.suppressed()) {
            Optional<Optional<Severity>> set = setting(s.finding());
            suppressed.add(set.isPresent() && set.get().isPresent()
                    ? new LintReport.Suppressed(with(s.finding(), set.get().get()), s.annotation(), s.reason()) : s);
        }
        return report.configured(this, kept, suppressed, disabled);
    }

    /** The setting of a finding's rule: empty when not configured; an empty severity when off. */
    private Optional<Optional<Severity>> setting(Finding f) {
        Setting s = rules.get(f.rule());
        if (s == null) {
            Rule r = Rules.find(f.rule());
            s = r == null ? null : rules.get(r.id());
        }
        return s == null ? Optional.empty() : Optional.of(s.severity());
    }

    private static Finding with(Finding f, Severity s) {
        return f.severity() == s ? f : new Finding(f.rule(), f.name(), s, f.file(), f.line(), f.object(), f.container(),
                f.field(), f.message(), f.refs(), f.fix());
    }

    /** @return {@code FILE: L5 off, L4 error} — what the settings change, for the summary */
    public String describe() {
        List<String> parts = new ArrayList<>();
        rules.values().stream().sorted(java.util.Comparator.comparingInt(Setting::line)).forEach(s -> parts.add(s.rule() + " "
                + s.severity().map(Severity::label).orElse("off")));
        kubernetesVersion.ifPresent(v -> parts.add("kubernetesVersion " + v));
        return file.map(Path::toString).orElse("") + (parts.isEmpty() ? " (no settings)" : ": " + String.join(", ", parts));
    }

    /** @return rule id → configured severity label or {@code off}, in the file's order */
    Map<String, String> settings() {
        Map<String, String> out = new LinkedHashMap<>();
        rules.values().stream().sorted(java.util.Comparator.comparingInt(Setting::line))
                .forEach(s -> out.put(s.rule(), s.severity().map(Severity::label).orElse("off")));
        return out;
    }
}
