package dev.vitals.kubesim.model;

import dev.vitals.kubesim.input.InvalidInputException;

/** Pod {@code restartPolicy} (default {@link #ALWAYS}, R6). */
public enum RestartPolicy {
    /** Restart whenever the container stops. */
    ALWAYS,
    /** Restart after a probe kill (R42) or a non-zero exit. */
    ON_FAILURE,
    /** Never restart. */
    NEVER;

    /**
     * @param text {@code Always}, {@code OnFailure} or {@code Never}
     * @return the policy
     * @throws InvalidInputException for other text
     */
    public static RestartPolicy parse(String text) {
        switch (text) {
            case "Always":
                return ALWAYS;
            case "OnFailure":
                return ON_FAILURE;
            case "Never":
                return NEVER;
            default:
                throw new InvalidInputException("restartPolicy: unsupported value \"" + text
                        + "\": supported values: \"Always\", \"OnFailure\", \"Never\"");
        }
    }

    /**
     * Whether kubelet restarts a container that exited by itself (Always: any code; OnFailure: non-zero;
     * Never: none).
     *
     * @param exitCode the container's exit code
     * @return true when a container that exited by itself with {@code exitCode} restarts
     */
    public boolean restartsAfterExit(int exitCode) {
        return this == ALWAYS || (this == ON_FAILURE && exitCode != 0);
    }
}
