package dev.vitals.kubesim;

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
}
