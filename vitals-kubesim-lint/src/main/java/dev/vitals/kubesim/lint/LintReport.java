package dev.vitals.kubesim.lint;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The outcome of one {@code vitals lint} run: findings in input order, suppressed findings with
 * their reasons, what each input held, and inputs that could not be read. Immutable.
 */
public final class LintReport {
    /**
     * What one input held.
     *
     * @param name the input's name
     * @param workloads objects with a pod template (or Pods)
     * @param containers containers linted
     * @param otherKinds kinds seen that are not workloads, with counts
     * @param error why the input could not be linted (one line), if so
     */
    public record FileSummary(String name, int workloads, int containers, Map<String, Integer> otherKinds,
            Optional<String> error) {
        /**
         * Validates the components.
         *
         * @param name the input's name
         * @param workloads objects with a pod template (or Pods)
         * @param containers containers linted
         * @param otherKinds kinds seen that are not workloads, with counts
         * @param error why the input could not be linted (one line), if so
         * @throws NullPointerException if a required component is null
         */
        public FileSummary {
            Objects.requireNonNull(name, "name");
            otherKinds = java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(otherKinds));
            Objects.requireNonNull(error, "error");
        }
    }

    /** A finding silenced by an annotation, with the annotation's reason. */
    public record Suppressed(Finding finding, String annotation, String reason) {
    }

    private final List<Finding> findings;
    private final List<Suppressed> suppressed;
    private final List<FileSummary> files;
    private final List<Rule> rules;
    private final LintConfig config;
    private final List<Finding> disabled;
    private final Inputs inputs;
    private final List<String> notices;
    private final boolean servicesSeen;

    LintReport(List<Finding> findings, List<Suppressed> suppressed, List<FileSummary> files, List<Rule> rules) {
        this(findings, suppressed, files, rules, true);
    }

    LintReport(List<Finding> findings, List<Suppressed> suppressed, List<FileSummary> files, List<Rule> rules,
            boolean servicesSeen) {
        this(findings, suppressed, files, rules, LintConfig.none(), List.of(), Inputs.NONE, List.of(), servicesSeen);
    }

    private LintReport(List<Finding> findings, List<Suppressed> suppressed, List<FileSummary> files, List<Rule> rules,
            LintConfig config, List<Finding> disabled, Inputs inputs, List<String> notices, boolean servicesSeen) {
        this.servicesSeen = servicesSeen;
        this.findings = List.copyOf(findings);
        this.suppressed = List.copyOf(suppressed);
        this.files = List.copyOf(files);
        this.rules = List.copyOf(rules);
        this.config = config;
        this.disabled = List.copyOf(disabled);
        this.inputs = inputs;
        this.notices = List.copyOf(notices);
    }

    /** This report under a configuration ({@link LintConfig#apply}). */
    LintReport configured(LintConfig c, List<Finding> kept, List<Suppressed> sup, List<Finding> off) {
        return new LintReport(kept, sup, files, rules, c, off, inputs, notices, servicesSeen);
    }

    /** This report with what {@link InputClassifier} made of the inputs, and the notices of the run. */
    LintReport classified(Inputs in, List<String> runNotices) {
        return new LintReport(findings, suppressed, files, rules, config, disabled, in, runNotices, servicesSeen);
    }

    /**
     * @return lines {@code FILE:LINE: Kind/name: annotation … silences nothing} for
     *         {@code ignore-check.vitals.dev/…} annotations without a reason or naming no rule
     */
    public List<String> notices() {
        return notices;
    }

    /** @return the configuration applied ({@link LintConfig#none()} when none was) */
    public LintConfig config() {
        return config;
    }

    /** @return findings of rules the configuration turns off: not reported as findings, counted in the summary */
    public List<Finding> disabled() {
        return disabled;
    }

    /** @return inputs skipped (Kustomize files and patches) and objects found twice */
    public Inputs inputs() {
        return inputs;
    }

    /**
     * The severity a rule's findings have in this report.
     *
     * @param rule a rule that ran
     * @return the configured severity, else the rule's own (also for a rule the configuration turns off)
     */
    public Severity severity(Rule rule) {
        return config.severity(rule).orElse(rule.severity());
    }

    /**
     * What reading the inputs left out, so that nothing is left out unseen.
     *
     * @param skipped inputs not linted, with why (a Kustomize file, a strategic-merge patch)
     * @param duplicates objects written in more than one input, linted once (where each copy is)
     */
    public record Inputs(List<Skipped> skipped, List<Duplicate> duplicates) {
        static final Inputs NONE = new Inputs(List.of(), List.of());

        /**
         * @param skipped inputs not linted, with why
         * @param duplicates objects written more than once
         */
        public Inputs {
            skipped = List.copyOf(skipped);
            duplicates = List.copyOf(duplicates);
        }
    }

    /**
     * An input not linted.
     *
     * @param name the input's name
     * @param reason why, e.g. {@code Kustomize patch (patches of k8s/kustomization.yaml)}
     */
    public record Skipped(String name, String reason) {
    }

    /**
     * An object written again (the same kind, namespace and name, and every field equal: a copy);
     * the first copy is linted, this one is not.
     *
     * @param object {@code Kind/namespace/name}
     * @param first {@code file:line} of the copy linted
     * @param again {@code file:line} of the copy skipped
     */
    public record Duplicate(String object, String first, String again) {
    }

    /** @return the findings, by input then line */
    public List<Finding> findings() {
        return findings;
    }

    /** @return findings silenced by annotations */
    public List<Suppressed> suppressed() {
        return suppressed;
    }

    /** @return one summary per input */
    public List<FileSummary> files() {
        return files;
    }

    /**
     * @return true when the input held a Service: rules whose hazard needs one (a Service sending the
     *         pod traffic) then judged each pod by the Services that select it; else their findings
     *         are lowered one severity and say so
     */
    public boolean servicesSeen() {
        return servicesSeen;
    }

    /** @return the rules that ran */
    public List<Rule> rules() {
        return rules;
    }

    /** @return inputs that could not be linted */
    public List<FileSummary> errors() {
        List<FileSummary> out = new ArrayList<>();
        for (FileSummary f : files) {
            if (f.error().isPresent()) {
                out.add(f);
            }
        }
        return out;
    }

    /**
     * Counts the findings of one severity.
     *
     * @param s the severity
     * @return how many findings have that severity
     */
    public int count(Severity s) {
        int n = 0;
        for (Finding f : findings) {
            if (f.severity() == s) {
                n++;
            }
        }
        return n;
    }

    /** @return total workloads over all inputs */
    public int workloads() {
        return files.stream().mapToInt(FileSummary::workloads).sum();
    }

    /** @return total containers over all inputs */
    public int containers() {
        return files.stream().mapToInt(FileSummary::containers).sum();
    }

    /**
     * @param failOn the lowest severity that fails the run (empty: findings never fail it)
     * @return 2 when an input could not be linted, 1 when a finding reaches {@code failOn}, else 0
     */
    public int exitCode(Optional<Severity> failOn) {
        if (!errors().isEmpty()) {
            return 2;
        }
        if (failOn.isPresent()) {
            for (Finding f : findings) {
                if (f.severity().compareTo(failOn.get()) >= 0) {
                    return 1;
                }
            }
        }
        return 0;
    }
}
