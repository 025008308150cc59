package dev.vitals.kubesim.lint;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Objects;
import java.util.Optional;

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
 * @param fix a suggested fix (empty when none is offered)
 * @param patch the fix as a change to the container, when it is one: the linter applies it to a copy,
 *        lints the copy with the same rules and offers the fix only when nothing new fires and no
 *        probe budget shrinks
 */
public record Finding(String rule, String name, Severity severity, String file, int line, String object,
        String container, String field, String message, String refs, String fix, Optional<Patch> patch) {
    /** A fix written as a change to a copy of the container's YAML. */
    @FunctionalInterface
    public interface Patch {
        /**
         * @param container a deep copy of the container, changed in place
         */
        void apply(ObjectNode container);

        /**
         * @param dotted a field path below the container, e.g. {@code livenessProbe.failureThreshold}
         * @param value the number to set
         * @return a patch setting it (parents made as needed)
         */
        static Patch set(String dotted, int value) {
            return c -> parent(c, dotted).put(leaf(dotted), value);
        }

        /**
         * @param dotted a field path below the container
         * @param value the node to set (copied)
         * @return a patch setting it
         */
        static Patch set(String dotted, JsonNode value) {
            return c -> parent(c, dotted).set(leaf(dotted), value.deepCopy());
        }

        /**
         * @param dotted a field path below the container
         * @return a patch removing it
         */
        static Patch remove(String dotted) {
            return c -> parent(c, dotted).remove(leaf(dotted));
        }

        /**
         * @param next applied after this one
         * @return both, in order
         */
        default Patch andThen(Patch next) {
            return c -> {
                apply(c);
                next.apply(c);
            };
        }

        private static ObjectNode parent(ObjectNode c, String dotted) {
            ObjectNode at = c;
            String[] parts = dotted.split("\\.");
            for (int i = 0; i < parts.length - 1; i++) {
                JsonNode n = at.get(parts[i]);
                at = n instanceof ObjectNode ? (ObjectNode) n : at.putObject(parts[i]);
            }
            return at;
        }

        private static String leaf(String dotted) {
            return dotted.substring(dotted.lastIndexOf('.') + 1);
        }
    }

    /**
     * A finding whose fix is text only.
     *
     * @param rule the rule's id
     * @param name the rule's name
     * @param severity how bad it is
     * @param file the input
     * @param line 1-based line, 0 when unknown
     * @param object {@code Kind/name}, or empty
     * @param container the container's name, or empty
     * @param field the field path
     * @param message what is wrong
     * @param refs the kubelet rules and field cases it rests on (kept for traceability, not printed)
     * @param fix a suggested fix
     */
    public Finding(String rule, String name, Severity severity, String file, int line, String object, String container,
            String field, String message, String refs, String fix) {
        this(rule, name, severity, file, line, object, container, field, message, refs, fix, Optional.empty());
    }

    /**
     * @param s another severity
     * @param note appended to the message
     * @return this finding at that severity, with the note
     */
    public Finding lowered(Severity s, String note) {
        return new Finding(rule, name, s, file, line, object, container, field, message + note, refs, fix, patch);
    }

    /** @return this finding without a fix (a fix that failed its check is not offered) */
    public Finding withoutFix() {
        return new Finding(rule, name, severity, file, line, object, container, field, message, refs, "", Optional.empty());
    }

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
     * @param fix a suggested fix (empty when none is offered)
     * @param patch the fix as a change to the container, if it is one
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
        Objects.requireNonNull(patch, "patch");
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
