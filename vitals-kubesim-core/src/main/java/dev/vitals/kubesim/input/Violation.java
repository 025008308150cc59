package dev.vitals.kubesim.input;

import java.util.Objects;

/**
 * One problem found in input: a value the API server would reject, or a lint finding.
 *
 * @param rule the rule it comes from, e.g. {@code R9} (docs/spec/kubelet-probes.md) or a lint id
 * @param field the field path, e.g. {@code containers[app].livenessProbe.successThreshold}
 * @param message what is wrong
 * @param fix a suggested fix (may be empty)
 */
public record Violation(String rule, String field, String message, String fix) {
    /**
     * Validates the components.
     *
     * @param rule the rule it comes from, e.g. {@code R9} (docs/spec/kubelet-probes.md) or a lint id
     * @param field the field path, e.g. {@code containers[app].livenessProbe.successThreshold}
     * @param message what is wrong
     * @param fix a suggested fix (may be empty)
     * @throws NullPointerException if a required component is null
     */
    public Violation {
        Objects.requireNonNull(rule, "rule");
        Objects.requireNonNull(field, "field");
        Objects.requireNonNull(message, "message");
        Objects.requireNonNull(fix, "fix");
    }

    @Override
    public String toString() {
        return "[" + rule + "] " + field + ": " + message + (fix.isEmpty() ? "" : " (fix: " + fix + ")");
    }
}
