package dev.vitals.kubesim.lint;

import java.util.Objects;

/**
 * One finding of {@code vitals lint}: a rule, where (file and 1-based line of the field it is
 * about), what is wrong with the numbers, the rules and field cases it rests on, and a fix.
 * Immutable.
 *
 * @param rule the rule's id, e.g. {@code L4}, or an API rule such as {@code R9}
 * @param name the rule's name, e.g. {@code restart-before-shed}
 * @param severity how bad it is
 * @param file the input it was found in ({@code -} for standard input, or an app-config file)
 * @param line 1-based line of the field, 0 when unknown
 * @param object {@code Kind/name} of the workload, or empty for a file-level finding
 * @param container the container's name, or empty
 * @param field the field path, e.g. {@code containers[app].livenessProbe.periodSeconds}
 * @param message what is wrong, with the numbers
 * @param refs the kubelet rules (R…) and field cases (C…) it rests on
 * @param fix a suggested fix
 */
public record Finding(String rule, String name, Severity severity, String file, int line, String object,
        String container, String field, String message, String refs, String fix) {
    /**
     * Validates the components.
     *
     * @param rule the rule's id, e.g. {@code L4}, or an API rule such as {@code R9}
     * @param name the rule's name, e.g. {@code restart-before-shed}
     * @param severity how bad it is
     * @param file the input it was found in ({@code -} for standard input, or an app-config file)
     * @param line 1-based line of the field, 0 when unknown
     * @param object {@code Kind/name} of the workload, or empty for a file-level finding
     * @param container the container's name, or empty
     * @param field the field path, e.g. {@code containers[app].livenessProbe.periodSeconds}
     * @param message what is wrong, with the numbers
     * @param refs the kubelet rules (R…) and field cases (C…) it rests on
     * @param fix a suggested fix
     * @throws NullPointerException if a required component is null
     */
    public Finding {
        Objects.requireNonNull(rule, "rule");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(severity, "severity");
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(object, "object");
        Objects.requireNonNull(container, "container");
        Objects.requireNonNull(field, "field");
        Objects.requireNonNull(message, "message");
        Objects.requireNonNull(refs, "refs");
        Objects.requireNonNull(fix, "fix");
    }

    /** @return {@code file:line} (or the file alone when the line is unknown) */
    public String location() {
        return line > 0 ? file + ":" + line : file;
    }

    /** @return {@code Kind/name container[c]}, or the file-level label */
    public String subject() {
        if (object.isEmpty()) {
            return field;
        }
        return object + (container.isEmpty() ? "" : " container " + container);
    }
}
