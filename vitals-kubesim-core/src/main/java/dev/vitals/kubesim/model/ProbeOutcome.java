package dev.vitals.kubesim.model;

import java.time.Duration;
import java.util.Objects;

/**
 * What one probe evaluation (one tick, R22 retries included) returned.
 *
 * @param result raw outcome; {@link ProbeResult#ERROR} when all attempts errored
 * @param message human detail (status code, exception text, exec output up to 10 KiB)
 * @param latency time from the start of the first attempt to the end of the last
 * @param attempts number of attempts made, 1–3
 */
public record ProbeOutcome(ProbeResult result, String message, Duration latency, int attempts) {
    /**
     * Validates the components.
     *
     * @param result raw outcome; {@link ProbeResult#ERROR} when all attempts errored
     * @param message human detail (status code, exception text, exec output up to 10 KiB)
     * @param latency time from the start of the first attempt to the end of the last
     * @param attempts number of attempts made, 1–3
     * @throws NullPointerException if a required component is null
     */
    public ProbeOutcome {
        Objects.requireNonNull(result, "result");
        Objects.requireNonNull(message, "message");
        Objects.requireNonNull(latency, "latency");
    }

    /**
     * One probe attempt's outcome.
     *
     * @param result the attempt's result
     * @param message what the prober reports, as kubelet's event message
     * @param latency how long the attempt took
     * @return an outcome from one attempt
     */
    public static ProbeOutcome of(ProbeResult result, String message, Duration latency) {
        return new ProbeOutcome(result, message, latency, 1);
    }
}
