package dev.vitals.kubesim.replay;

/**
 * The kubelet timing fields of one probe, in the API's units (whole seconds, counts).
 * Immutable.
 *
 * @param periodSeconds {@code periodSeconds}, ≥ 1
 * @param timeoutSeconds {@code timeoutSeconds}, ≥ 1
 * @param failureThreshold {@code failureThreshold}, ≥ 1
 */
public record ProbeTiming(int periodSeconds, int timeoutSeconds, int failureThreshold) {
    /**
     * Validates the components.
     *
     * @param periodSeconds {@code periodSeconds}, ≥ 1
     * @param timeoutSeconds {@code timeoutSeconds}, ≥ 1
     * @param failureThreshold {@code failureThreshold}, ≥ 1
     * @throws IllegalArgumentException if a component is outside its documented range
     */
    public ProbeTiming {
        if (periodSeconds < 1 || timeoutSeconds < 1 || failureThreshold < 1) {
            throw new IllegalArgumentException("periodSeconds, timeoutSeconds and failureThreshold must be ≥ 1, were "
                    + periodSeconds + ", " + timeoutSeconds + ", " + failureThreshold);
        }
    }

    /** @return e.g. {@code period 2s, timeout 3s, failureThreshold 3} */
    public String describe() {
        return "period " + periodSeconds + "s, timeout " + timeoutSeconds + "s, failureThreshold " + failureThreshold;
    }
}
