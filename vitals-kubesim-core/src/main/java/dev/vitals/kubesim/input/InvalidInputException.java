package dev.vitals.kubesim.input;


import java.util.List;

/**
 * Bad input: an unreadable or invalid manifest, probe flag or scenario. The CLI exits with code 2.
 * The message is complete and meant for a person; {@link #violations()} lists rule-level problems.
 */
public class InvalidInputException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;
    private final transient List<Violation> violations;

    /** @param message what is wrong and where */
    public InvalidInputException(String message) {
        this(message, List.of());
    }

    /**
     * @param message what is wrong and where
     * @param violations the individual problems (may be empty)
     */
    public InvalidInputException(String message, List<Violation> violations) {
        super(message);
        this.violations = List.copyOf(violations);
    }

    /**
     * @param message what is wrong and where
     * @param cause the underlying parse error
     */
    public InvalidInputException(String message, Throwable cause) {
        super(message, cause);
        this.violations = List.of();
    }

    /** @return the rule-level problems, possibly empty */
    public List<Violation> violations() {
        return violations;
    }

    /**
     * @param e why a file could not be read
     * @return a short reason for a one-line message ("no such file", "is a directory", …)
     */
    public static String reason(java.io.IOException e) {
        if (e instanceof java.nio.file.NoSuchFileException) {
            return "no such file";
        }
        if (e instanceof java.nio.file.AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof java.nio.charset.CharacterCodingException) {
            return "not UTF-8 text (a binary file?)";
        }
        String m = e.getMessage();
        return m == null ? e.getClass().getSimpleName() : firstLine(m);
    }

    /**
     * @param message a possibly multi-line message (parsers draw carets on later lines)
     * @return its first non-blank line
     */
    public static String firstLine(String message) {
        for (String line : message.split("\\R")) {
            if (!line.isBlank()) {
                return line.strip();
            }
        }
        return message.strip();
    }
}
