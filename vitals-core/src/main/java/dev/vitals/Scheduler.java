package dev.vitals;

/**
 * Runs short tasks after a delay: Vitals' check schedules, timeouts and drain delays go
 * through it. Tasks must not block; the default scheduler has a single daemon thread named
 * {@code vitals-scheduler}. Tests inject a deterministic scheduler driven by a manual clock
 * (see the {@code vitals-testing} artifact).
 *
 * <p>Implementations must be thread-safe. {@link #schedule} may be called while the engine holds
 * a lock of its own (a check's recording queues its transition log line as a task, in recording
 * order): it must only queue the task, never block nor run it or call into the registry.
 */
public interface Scheduler {
    /**
     * Runs {@code task} once, {@code delayNanos} from now (at once when zero or negative).
     *
     * @param delayNanos delay in nanoseconds
     * @param task the task; exceptions it throws are logged and otherwise ignored
     * @return a handle that cancels the task if it has not started
     * @throws java.util.concurrent.RejectedExecutionException if the scheduler is shut down
     */
    Cancellable schedule(long delayNanos, Runnable task);

    /** A scheduled task that can be cancelled. */
    @FunctionalInterface
    interface Cancellable {
        /** Cancels the task if it has not started; does nothing otherwise. */
        void cancel();
    }
}
