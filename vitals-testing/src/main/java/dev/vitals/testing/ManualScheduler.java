package dev.vitals.testing;

import dev.vitals.Scheduler;
import java.time.Duration;
import java.util.Objects;

/**
 * A deterministic {@link Scheduler}: tasks run only inside {@link #advance(Duration)} or
 * {@link #runDue()}, in due-time order, on the calling thread, with the {@link ManualClock}
 * set to each task's due time before it runs. Tasks scheduled while advancing that fall within
 * the target time run in the same call. Thread-safe; tasks run outside the lock.
 *
 * <pre>{@code
 * ManualScheduler scheduler = new ManualScheduler();
 * HealthRegistry registry = HealthRegistry.builder()
 *         .clock(scheduler.clock()).scheduler(scheduler)
 *         ...
 * scheduler.advance(Duration.ofSeconds(10));   // runs the checks due within 10 s
 * }</pre>
 */
public final class ManualScheduler implements Scheduler {
    private final ManualClock clock;
    private final TimerQueue queue = new TimerQueue(); // the waiting tasks, in (due, scheduling order)

    /** A scheduler driving a new {@link ManualClock}. */
    public ManualScheduler() {
        this(new ManualClock());
    }

    /**
     * @param clock the clock this scheduler moves
     */
    public ManualScheduler(ManualClock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** @return the clock this scheduler moves */
    public ManualClock clock() {
        return clock;
    }

    @Override
    public synchronized Cancellable schedule(long delayNanos, Runnable task) {
        Objects.requireNonNull(task, "task");
        Task t = new Task(task);
        long now = clock.monotonicTime();
        queue.add(t, delayNanos <= 0 ? now : now + delayNanos, delayNanos <= 0);
        return t;
    }

    /**
     * Moves the clock forward by {@code d}, running every task that falls due on the way.
     *
     * @param d how far, not negative
     * @throws IllegalArgumentException if {@code d} is negative
     */
    public void advance(Duration d) {
        Objects.requireNonNull(d, "d");
        if (d.isNegative()) {
            throw new IllegalArgumentException("a clock cannot go back, was " + d);
        }
        long target = clock.monotonicTime() + d.toNanos();
        while (true) {
            Task next;
            synchronized (this) {
                next = (Task) queue.poll(target);
            }
            if (next == null) {
                break;
            }
            clock.setMonotonic(next.due);
            next.task.run();
        }
        clock.setMonotonic(target);
    }

    /** Runs the tasks due now, without moving the clock. */
    public void runDue() {
        advance(Duration.ZERO);
    }

    /** @return the number of tasks waiting */
    public synchronized int pending() {
        return queue.size();
    }

    private synchronized void cancel(Task t) {
        queue.remove(t);
    }

    /** A waiting task, its own cancel handle. */
    private final class Task extends TimerQueue.Timer implements Cancellable {
        final Runnable task;

        Task(Runnable task) {
            this.task = task;
        }

        @Override
        public void cancel() {
            ManualScheduler.this.cancel(this);
        }
    }
}
