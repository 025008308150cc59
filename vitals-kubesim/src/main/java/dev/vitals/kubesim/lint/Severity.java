package dev.vitals.kubesim.lint;

import java.util.Locale;

/** How bad a finding is; {@code --fail-on} picks the lowest one that fails the run. */
public enum Severity {
    /** Informational: never fails a run. */
    NOTE,
    /** A hazard under a condition the rule states; fails the run with {@code --fail-on warning}. */
    WARNING,
    /** Certain to misbehave (rejected by the API server, a probe that can never act, a kill loop). */
    ERROR;

    /** @return the lower-case name used in output ("warning") */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * @param text {@code error}, {@code warning} or {@code note} (case-insensitive)
     * @return the severity
     * @throws IllegalArgumentException for anything else, naming the accepted values
     */
    public static Severity parse(String text) {
        for (Severity s : values()) {
            if (s.label().equalsIgnoreCase(text.trim())) {
                return s;
            }
        }
        throw new IllegalArgumentException("severity must be error, warning or note, was '" + text + "'");
    }
}
