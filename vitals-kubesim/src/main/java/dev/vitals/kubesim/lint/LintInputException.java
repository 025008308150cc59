package dev.vitals.kubesim.lint;

import dev.vitals.kubesim.input.InvalidInputException;

/**
 * Input {@code vitals lint} cannot use: an unreadable file, text that is not YAML, a Helm
 * template, an unknown rule id, a malformed option. The message is one line for a person;
 * the CLI prints it and exits 2.
 */
public final class LintInputException extends dev.vitals.kubesim.input.InvalidInputException {
    private static final long serialVersionUID = 1L;

    /** @param message what is wrong and where, one line */
    public LintInputException(String message) {
        super(message);
    }
}
