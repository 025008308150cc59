package dev.vitals.testing;

import dev.vitals.Scheduler;
import java.time.Duration;
import java.util.Objects;

/**
 * A deterministic {@link Scheduler}: tasks run only inside {@link #advance(Duration)} or
 * {@link #runDue()}, in due-time order, on the calling thread, with the {@link ManualClock}
 * set to each task's due time before it runs. Tasks scheduled while advancing that fall within
 * the target time run in the same call. Thread-safe, tasks running outside the lock; or, made by
 * {@link #confined()}, for one thread only, without the lock.
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
    private final boolean confined; // used from one thread: no lock

    /** A scheduler driving a new {@link ManualClock}. */
    public ManualScheduler() {
        this(new ManualClock());
    }

    /**
     * @param clock the clock this scheduler moves
     */
    public ManualScheduler(ManualClock clock) {
        this(clock, false);
    }

    private ManualScheduler(ManualClock clock, boolean confined) {
        this.clock = Objects.requireNonNull(clock, "clock");
        this.confined = confined;
    }

    /**
     * A scheduler, driving a new {@link ManualClock}, for use from one thread only: the same
     * order and times without a lock per task (kubesim's virtual time runs tens of millions of
     * tasks; issue 37). Scheduling, cancelling or advancing it from another thread is not allowed.
     *
     * @return a new scheduler
     */
    public static ManualScheduler confined() {
        return new ManualScheduler(new ManualClock(), true);
    }

    /** @return the clock this scheduler moves */
    public ManualClock clock() {
        return clock;
    }

    @Override
    public Cancellable schedule(long delayNanos, Runnable task) {
        Objects.requireNonNull(task, "task");
        Task t = new Task(task);
        if (confined) {
            add(t, delayNanos);
        } else {
            synchronized (this) {
                add(t, delayNanos);
            }
        }
        return t;
    }

    private void add(Task t, long delayNanos) {
        long now = clock.monotonicTime();
        queue.add(t, delayNanos <= 0 ? now : now + delayNanos, delayNanos <= 0);
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
            if (confined) {
                next = (Task) queue.poll(target);
            } else {
                synchronized (this) {
                    next = (Task) queue.poll(target);
                }
            }
            if (next == null) {
                break;
            }
            moveClock(next.due);
            next.task.run();
        }
        moveClock(target);
    }

    private void moveClock(long to) {
        if (confined) {
            clock.setMonotonicConfined(to);
        } else {
            clock.setMonotonic(to);
        }
    }

    /** Runs the tasks due now, without moving the clock. */
    public void runDue() {
        advance(Duration.ZERO);
    }

    /** @return the number of tasks waiting */
    public int pending() {
        if (confined) {
            return queue.size();
        }
        synchronized (this) {
            return queue.size();
        }
    }

    private void cancel(Task t) {
        if (confined) {
            queue.remove(t);
        } else {
            synchronized (this) {
                queue.remove(t);
            }
        }
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
