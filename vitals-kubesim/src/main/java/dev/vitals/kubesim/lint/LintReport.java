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
    private final boolean servicesSeen;

    LintReport(List<Finding> findings, List<Suppressed> suppressed, List<FileSummary> files, List<Rule> rules) {
        this(findings, suppressed, files, rules, true);
    }

    LintReport(List<Finding> findings, List<Suppressed> suppressed, List<FileSummary> files, List<Rule> rules,
            boolean servicesSeen) {
        this.servicesSeen = servicesSeen;
        this.findings = List.copyOf(findings);
        this.suppressed = List.copyOf(suppressed);
        this.files = List.copyOf(files);
        this.rules = List.copyOf(rules);
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
