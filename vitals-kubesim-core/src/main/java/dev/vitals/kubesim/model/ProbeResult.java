package dev.vitals.kubesim.model;

import java.util.Locale;

/**
 * A probe's raw outcome and, after R21, its counted result. Published results use only
 * {@link #SUCCESS}, {@link #FAILURE} and {@link #UNKNOWN} (kubelet: pkg/kubelet/prober/results).
 */
public enum ProbeResult {
    /** Counted as Success. */
    SUCCESS,
    /** A raw outcome counted as Success with a ProbeWarning event (HTTP 3xx, R21, R61). */
    WARNING,
    /** Counted as Failure. */
    FAILURE,
    /** Raw: counted as Failure when no error (R21). Published: "not started" for startup (R24). */
    UNKNOWN,
    /** A probe error: retried up to 3 times in the tick, then the tick is discarded (R22). */
    ERROR;

    /** @return the lower-case name used in output */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * R21: Warning → Success; Unknown → Failure; Error has no counted result.
     *
     * @return SUCCESS or FAILURE
     * @throws IllegalStateException for ERROR
     */
    public ProbeResult counted() {
        switch (this) {
            case SUCCESS:
            case WARNING:
                return SUCCESS;
            case FAILURE:
            case UNKNOWN:
                return FAILURE;
            default:
                throw new IllegalStateException("an errored probe has no counted result (R22)");
        }
    }
}
