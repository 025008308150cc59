package dev.vitals.monitor;

import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts an executor's tasks as they are submitted, start and complete, with
 * {@link LongAdder}s, so that sampling progress and saturation is O(1) and takes no lock. It is
 * a {@link ProgressSource}, and {@link #saturationSource()} is its {@link SaturationSource} view.
 *
 * <p>Either let it wrap the executor, or call the three hooks yourself (from a
 * {@code ThreadPoolExecutor} subclass's {@code execute}, {@code beforeExecute} and
 * {@code afterExecute}, a servlet filter, an event-loop wrapper):
 * <pre>{@code
 * ProgressTracker tracker = ProgressTracker.create(40);      // 40 workers
 * Executor workers = tracker.wrap(pool);                     // submit through this
 * ProgressWatchdog watchdog = ProgressWatchdog.builder("workers", tracker).build();
 * SaturationMonitor saturation = SaturationMonitor.builder("workers-saturation", tracker.saturationSource()).build();
 * }</pre>
 *
 * <p>Figures: busy = started − completed, queued = submitted − started, completed counts tasks
 * that returned or threw. Each wrapped task costs one small wrapper object and three counter
 * increments. Only tasks that go through the tracker are counted. Thread-safe.
 */
public final class ProgressTracker implements ProgressSource {
    private final int capacity;
    private final LongAdder submitted = new LongAdder();
    private final LongAdder started = new LongAdder();
    private final LongAdder completed = new LongAdder();

    private ProgressTracker(int capacity) {
        this.capacity = capacity;
    }

    /**
     * @param capacity the number of workers (threads, permits) of the tracked executor, used as
     *     the capacity of saturation figures; at least 1
     * @return a tracker with all counts at zero
     * @throws IllegalArgumentException if {@code capacity} is under 1
     */
    public static ProgressTracker create(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1, was " + capacity);
        }
        return new ProgressTracker(capacity);
    }

    /** @return the capacity given at creation */
    public int capacity() {
        return capacity;
    }

    /**
     * An executor that submits each task to {@code executor} wrapped by {@link #track(Runnable)},
     * counting it as submitted; a task the executor rejects is not counted.
     *
     * @param executor the executor to track
     * @return the tracking executor
     * @throws NullPointerException if {@code executor} is null
     */
    public Executor wrap(Executor executor) {
        Objects.requireNonNull(executor, "executor");
        return task -> {
            Runnable tracked = track(task);
            submitted.increment();
            try {
                executor.execute(tracked);
            } catch (RuntimeException | Error e) {
                // RejectedExecutionException above all: a rejected task never becomes queued work.
                submitted.decrement();
                throw e;
            }
        };
    }

    /**
     * Wraps a task so that it counts as started and completed when it runs; it does not count
     * it as submitted (do that with {@link #taskSubmitted()}, or use {@link #wrap(Executor)}).
     *
     * @param task the task
     * @return the counting task
     * @throws NullPointerException if {@code task} is null
     */
    public Runnable track(Runnable task) {
        Objects.requireNonNull(task, "task");
        return () -> {
            started.increment();
            try {
                task.run();
            } finally {
                completed.increment();
            }
        };
    }

    /** Hook: a task was handed to the executor. */
    public void taskSubmitted() {
        submitted.increment();
    }

    /** Hook: a task started running (for hooks that count submissions too, call after {@link #taskSubmitted()}). */
    public void taskStarted() {
        started.increment();
    }

    /** Hook: a task finished, normally or by throwing. */
    public void taskCompleted() {
        completed.increment();
    }

    /** @return tasks completed so far */
    public long completedCount() {
        return completed.sum();
    }

    /**
     * O(1), no lock. Counters are read in the order completed, started, submitted, so that a
     * task moving on between the reads can never make a figure negative.
     */
    @Override
    public ProgressSnapshot sample() {
        long c = completed.sum();
        long s = started.sum();
        long sub = submitted.sum();
        return ProgressSnapshot.of(c, Math.max(0, s - c), Math.max(0, sub - s));
    }

    private SaturationSnapshot saturation() {
        long c = completed.sum();
        long s = started.sum();
        long sub = submitted.sum();
        return SaturationSnapshot.of(Math.max(0, s - c), capacity, Math.max(0, sub - s));
    }

    /** @return a saturation source view of this tracker (busy, capacity, queued) */
    public SaturationSource saturationSource() {
        return this::saturation;
    }

    @Override
    public String toString() {
        return "ProgressTracker{capacity=" + capacity + ", " + sample() + '}';
    }
}
