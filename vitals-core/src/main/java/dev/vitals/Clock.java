package dev.vitals;

/**
 * The one time source of Vitals: wall-clock time for timestamps and a monotonic counter for
 * every duration, timeout, interval, max age and TTL. Inject a manual implementation in tests
 * (the {@code vitals-testing} artifact has one) to make time-dependent behaviour
 * deterministic.
 *
 * <p>Implementations must be thread-safe.
 */
public interface Clock {
    /** The system clock: {@link System#currentTimeMillis()} and {@link System#nanoTime()}. */
    Clock SYSTEM = new Clock() {
        @Override
        public long wallTime() {
            return System.currentTimeMillis();
        }

        @Override
        public long monotonicTime() {
            return System.nanoTime();
        }

        @Override
        public String toString() {
            return "Clock.SYSTEM";
        }
    };

    /** @return wall-clock time in milliseconds since the epoch; for timestamps only */
    long wallTime();

    /** @return a monotonic time in nanoseconds from an arbitrary origin; for durations only */
    long monotonicTime();
}
