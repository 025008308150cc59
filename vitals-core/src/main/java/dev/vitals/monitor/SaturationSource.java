package dev.vitals.monitor;

import java.util.Objects;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.function.LongSupplier;

/**
 * Where a {@link SaturationMonitor} reads busy, capacity and queued. Called only by the monitor's
 * sampler, once per interval, on Vitals' scheduler: an implementation must not block and should
 * be cheap (the built-in ones state their cost).
 *
 * <p>A servlet container's pool, a connection pool or any other limiter plugs in with
 * {@link #of(LongSupplier, LongSupplier, LongSupplier)}; an executor that Vitals should count
 * for itself in O(1) is wrapped by a {@link ProgressTracker}, which is also a source.
 */
@FunctionalInterface
public interface SaturationSource {
    /**
     * @return the current figures
     * @throws RuntimeException if the source cannot be read (the sample is skipped and logged)
     */
    SaturationSnapshot sample();

    /**
     * A {@link ThreadPoolExecutor}: busy = {@link ThreadPoolExecutor#getActiveCount()}, capacity =
     * {@link ThreadPoolExecutor#getMaximumPoolSize()}, queued = size of its queue.
     *
     * <p>Cost: {@code getActiveCount()} takes the pool's main lock briefly and walks its workers,
     * O(workers), bounded by the maximum pool size; the queue's {@code size()} is O(1) for the
     * JDK's array and linked blocking queues. An unbounded maximum (a cached pool) reads as
     * saturation near 0.
     *
     * @param pool the pool
     * @return a source reading it
     * @throws NullPointerException if {@code pool} is null
     */
    static SaturationSource of(ThreadPoolExecutor pool) {
        Objects.requireNonNull(pool, "pool");
        return () -> SaturationSnapshot.of(pool.getActiveCount(), pool.getMaximumPoolSize(), pool.getQueue().size());
    }

    /**
     * A {@link ForkJoinPool}: busy = {@link ForkJoinPool#getActiveThreadCount()}, capacity =
     * {@link ForkJoinPool#getParallelism()}, queued = queued submissions + queued tasks.
     *
     * <p>Cost: O(work queues) (about twice the parallelism), lock-free; the figures are estimates,
     * as the JDK documents.
     *
     * @param pool the pool
     * @return a source reading it
     * @throws NullPointerException if {@code pool} is null
     */
    static SaturationSource of(ForkJoinPool pool) {
        Objects.requireNonNull(pool, "pool");
        return () -> SaturationSnapshot.of(pool.getActiveThreadCount(), pool.getParallelism(),
                Math.max(0, pool.getQueuedSubmissionCount()) + Math.max(0, pool.getQueuedTaskCount()));
    }

    /**
     * A {@link Semaphore} used as a limiter of {@code permits} permits: busy = permits −
     * available permits (clamped to 0–permits), capacity = permits, queued =
     * {@link Semaphore#getQueueLength()}.
     *
     * <p>Cost: {@code availablePermits()} is O(1); {@code getQueueLength()} walks the waiters,
     * O(waiting threads), lock-free.
     *
     * @param limiter the semaphore
     * @param permits the number of permits the limiter was created with, at least 1
     * @return a source reading it
     * @throws NullPointerException if {@code limiter} is null
     * @throws IllegalArgumentException if {@code permits} is under 1
     */
    static SaturationSource of(Semaphore limiter, int permits) {
        Objects.requireNonNull(limiter, "limiter");
        if (permits < 1) {
            throw new IllegalArgumentException("permits must be at least 1, was " + permits);
        }
        return () -> {
            long busy = Math.min(permits, Math.max(0, permits - limiter.availablePermits()));
            return SaturationSnapshot.of(busy, permits, limiter.getQueueLength());
        };
    }

    /**
     * Any pool or limiter, from three functions (for example a servlet container's
     * {@code busyThreads}, {@code maxThreads} and {@code queueSize}). Negative readings are
     * clamped to 0.
     *
     * @param busy units in use
     * @param capacity units in total
     * @param queued work waiting
     * @return a source calling the three functions, in that order, on each sample
     * @throws NullPointerException if an argument is null
     */
    static SaturationSource of(LongSupplier busy, LongSupplier capacity, LongSupplier queued) {
        Objects.requireNonNull(busy, "busy");
        Objects.requireNonNull(capacity, "capacity");
        Objects.requireNonNull(queued, "queued");
        return () -> SaturationSnapshot.of(Math.max(0, busy.getAsLong()), Math.max(0, capacity.getAsLong()),
                Math.max(0, queued.getAsLong()));
    }
}
