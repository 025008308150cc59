package dev.vitals.monitor;

import java.time.Duration;
import java.util.Objects;

/**
 * The outcome of a {@link ListenerMonitor}'s latest connect attempt and of the streak it belongs
 * to. Immutable and thread-safe.
 */
public final class ListenerSnapshot {
    /** How a connect attempt ended. */
    public enum Result {
        /** The connection was accepted (by the kernel, on the listener's behalf). */
        ACCEPTED,
        /** The connection was refused: nothing listens on the port (closed or lost listener). */
        REFUSED,
        /** Another I/O error (unreachable address, reset); treated like {@link #REFUSED}. */
        ERROR,
        /**
         * No answer within the connect timeout: typically a full accept backlog (a listener that
         * is alive but not accepting fast enough, or wedged).
         */
        TIMED_OUT
    }

    private final Result result;
    private final Duration connectTime;
    private final Duration lostFor;
    private final Duration timingOutFor;

    ListenerSnapshot(Result result, Duration connectTime, Duration lostFor, Duration timingOutFor) {
        this.result = Objects.requireNonNull(result, "result");
        this.connectTime = connectTime;
        this.lostFor = lostFor;
        this.timingOutFor = timingOutFor;
    }

    /** @return how the latest attempt ended */
    public Result result() {
        return result;
    }

    /** @return how long the latest attempt took */
    public Duration connectTime() {
        return connectTime;
    }

    /**
     * @return since when, counted from the start of the first attempt of the streak, every attempt
     *     was refused or failed; zero unless the latest attempt was {@link Result#REFUSED} or
     *     {@link Result#ERROR}
     */
    public Duration lostFor() {
        return lostFor;
    }

    /**
     * @return how long every attempt has timed out, counted from the start of the first attempt of
     *     the streak; zero unless the latest attempt was {@link Result#TIMED_OUT}
     */
    public Duration timingOutFor() {
        return timingOutFor;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof ListenerSnapshot)) {
            return false;
        }
        ListenerSnapshot s = (ListenerSnapshot) o;
        return result == s.result && connectTime.equals(s.connectTime) && lostFor.equals(s.lostFor)
                && timingOutFor.equals(s.timingOutFor);
    }

    @Override
    public int hashCode() {
        return Objects.hash(result, connectTime, lostFor, timingOutFor);
    }

    @Override
    public String toString() {
        return "Listener{" + result + ", connectMs=" + connectTime.toMillis() + ", lostForMs=" + lostFor.toMillis()
                + ", timingOutForMs=" + timingOutFor.toMillis() + '}';
    }
}
