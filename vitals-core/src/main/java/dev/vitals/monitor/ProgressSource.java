package dev.vitals.monitor;

import java.util.Objects;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.function.LongSupplier;

/**
 * Where a {@link ProgressWatchdog} reads completed, busy and queued task counts. Called only by
 * the watchdog's sampler, once per interval, on Vitals' scheduler: an implementation must not
 * block and should be cheap.
 *
 * <p>For O(1) sampling of any executor (a {@link java.util.concurrent.ForkJoinPool}, an event
 * loop, a servlet container's pool with hooks), count with a {@link ProgressTracker}, which is a
 * source too.
 */
@FunctionalInterface
public interface ProgressSource {
    /**
     * @return the current figures; {@code completed} must never decrease between calls
     * @throws RuntimeException if the source cannot be read (the sample is skipped and logged)
     */
    ProgressSnapshot sample();

    /**
     * A {@link ThreadPoolExecutor}: completed = {@link ThreadPoolExecutor#getCompletedTaskCount()},
     * busy = {@link ThreadPoolExecutor#getActiveCount()}, queued = size of its queue.
     *
     * <p>Cost: the two counts each take the pool's main lock briefly and walk its workers,
     * O(workers), bounded by the maximum pool size; acceptable once per interval. For O(1) and no
     * lock, wrap the pool's tasks with a {@link ProgressTracker} instead.
     *
     * @param pool the pool
     * @return a source reading it
     * @throws NullPointerException if {@code pool} is null
     */
    static ProgressSource of(ThreadPoolExecutor pool) {
        Objects.requireNonNull(pool, "pool");
        return () -> {
            // Read queued and busy before completed: a task moving on between the reads can only
            // make this sample look like more progress, never like a stall.
            long queued = pool.getQueue().size();
            long busy = pool.getActiveCount();
            return ProgressSnapshot.of(pool.getCompletedTaskCount(), busy, queued);
        };
    }

    /**
     * Any executor, from three functions. Negative readings are clamped to 0.
     *
     * @param completed tasks completed so far, never decreasing
     * @param busy tasks running now
     * @param queued tasks waiting
     * @return a source calling the functions on each sample
     * @throws NullPointerException if an argument is null
     */
    static ProgressSource of(LongSupplier completed, LongSupplier busy, LongSupplier queued) {
        Objects.requireNonNull(completed, "completed");
        Objects.requireNonNull(busy, "busy");
        Objects.requireNonNull(queued, "queued");
        return () -> ProgressSnapshot.of(Math.max(0, completed.getAsLong()), Math.max(0, busy.getAsLong()),
                Math.max(0, queued.getAsLong()));
    }
}
