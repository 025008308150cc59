package dev.vitals.kubesim.lint;

import java.util.Locale;

/** How bad a finding is; {@code --fail-on} picks the lowest one that fails the run. */
public enum Severity {
    /** A smell: informational, never fails a run. */
    INFO,
    /** A hazard under a condition the rule states; fails the run with {@code --fail-on warning}. */
    WARNING,
    /**
     * Will restart healthy pods, or take a Service to zero endpoints, under a condition the rule
     * states (or the API server rejects the object); the default {@code --fail-on}.
     */
    ERROR;

    /** @return the lower-case name used in output ("warning", "info") */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * @param text {@code error}, {@code warning} or {@code info} ({@code note}, SARIF's word, too; case-insensitive)
     * @return the severity
     * @throws IllegalArgumentException for anything else, naming the accepted values
     */
    public static Severity parse(String text) {
        for (Severity s : values()) {
            if (s.label().equalsIgnoreCase(text.trim())) {
                return s;
            }
            if (s == INFO && "note".equalsIgnoreCase(text.trim())) {
                return s; // SARIF's word for it
            }
        }
        throw new IllegalArgumentException("severity must be error, warning or info, was '" + text + "'");
    }
}
