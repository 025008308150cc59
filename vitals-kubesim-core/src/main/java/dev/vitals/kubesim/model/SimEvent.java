package dev.vitals.kubesim.model;


import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * One thing that happened in a simulation. Immutable.
 *
 * @param at time since the simulation started (when the kubelet learned of it; for probes,
 *        when the evaluation completed)
 * @param type what happened
 * @param instance the container instance (1, 2, …; 0 before the first start)
 * @param probe the probe type, for probe-related events
 * @param result the raw outcome, for {@link Type#PROBE} events
 * @param latency the evaluation time, for {@link Type#PROBE} events
 * @param detail human detail
 */
public record SimEvent(Duration at, Type type, int instance, Optional<ProbeType> probe, Optional<ProbeResult> result,
        Optional<Duration> latency, String detail) {

    /**
     * Validates the components.
     *
     * @param at time since the simulation started (when the kubelet learned of it; for probes, when the
     *        evaluation completed)
     * @param type what happened
     * @param instance the container instance (1, 2, …; 0 before the first start)
     * @param probe the probe type, for probe-related events
     * @param result the raw outcome, for {@link Type#PROBE} events
     * @param latency the evaluation time, for {@link Type#PROBE} events
     * @param detail human detail
     * @throws NullPointerException if a required component is null
     */
    public SimEvent {
        Objects.requireNonNull(at, "at");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(probe, "probe");
        Objects.requireNonNull(result, "result");
        Objects.requireNonNull(latency, "latency");
        Objects.requireNonNull(detail, "detail");
    }

    /** Event kinds. The first six are the JSON report's {@code events}; the rest are notes. */
    public enum Type {
        /** A container instance started. */
        START,
        /** A probe evaluation completed (result may be ERROR: see R22). */
        PROBE,
        /** The Ready condition became true. */
        READY,
        /** The Ready condition became false. */
        NOT_READY,
        /** Liveness or startup Failure verdict: the kubelet kills the container. */
        KILL,
        /** A container instance exited. */
        EXIT,
        /** The container became started (startup Success, or no startup probe). */
        STARTED,
        /** A restart waits in CrashLoopBackOff. */
        BACKOFF,
        /** A probe verdict changed a published result. */
        VERDICT,
        /** A scenario action ran. */
        ACTION,
        /** A lifecycle hook ended, failed (FailedPostStartHook, FailedPreStopHook) or ran out of grace. */
        HOOK;

        /** @return the JSON name, e.g. {@code not-ready} */
        public String label() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }

        /** @return true for the six core event types of the JSON report */
        public boolean core() {
            return ordinal() <= EXIT.ordinal();
        }
    }
}
