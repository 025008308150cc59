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
    public ProbeOutcome {
        Objects.requireNonNull(result, "result");
        Objects.requireNonNull(message, "message");
        Objects.requireNonNull(latency, "latency");
    }

    /** @return an outcome from one attempt */
    public static ProbeOutcome of(ProbeResult result, String message, Duration latency) {
        return new ProbeOutcome(result, message, latency, 1);
    }
}
