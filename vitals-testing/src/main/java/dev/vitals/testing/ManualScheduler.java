package dev.vitals.testing;

import dev.vitals.Scheduler;
import java.time.Duration;
import java.util.Arrays;
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
    // a binary min-heap of the waiting tasks, ordered by (due, sequence); the keys sit in primitive
    // arrays so that sifting compares longs without loading the tasks (kubesim's fleet model keeps
    // tens of thousands of timers: issue 37)
    private long[] dues = new long[16];
    private long[] seqs = new long[16];
    private Task[] tasks = new Task[16];
    private int size;
    private long sequence;

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
        if (size == tasks.length) {
            int n = size * 2;
            dues = Arrays.copyOf(dues, n);
            seqs = Arrays.copyOf(seqs, n);
            tasks = Arrays.copyOf(tasks, n);
        }
        siftUp(size++, clock.monotonicTime() + Math.max(0, delayNanos), sequence++, t);
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
            long due;
            synchronized (this) {
                if (size == 0 || dues[0] > target) {
                    break;
                }
                due = dues[0];
                next = tasks[0];
                removeAt(0);
            }
            clock.setMonotonic(due);
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
        return size;
    }

    private synchronized void cancel(Task t) {
        if (t.index >= 0) {
            removeAt(t.index);
        }
    }

    private void removeAt(int i) {
        Task gone = tasks[i];
        gone.index = -1;
        int last = --size;
        if (i != last) {
            long due = dues[last];
            long seq = seqs[last];
            Task t = tasks[last];
            tasks[last] = null;
            siftDown(i, due, seq, t);
            if (tasks[i] == t) {
                siftUp(i, due, seq, t);
            }
        } else {
            tasks[last] = null;
        }
    }

    private static boolean before(long due, long seq, long otherDue, long otherSeq) {
        return due < otherDue || (due == otherDue && seq < otherSeq);
    }

    private void siftUp(int i, long due, long seq, Task t) {
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            if (!before(due, seq, dues[parent], seqs[parent])) {
                break;
            }
            put(i, dues[parent], seqs[parent], tasks[parent]);
            i = parent;
        }
        put(i, due, seq, t);
    }

    private void siftDown(int i, long due, long seq, Task t) {
        int half = size >>> 1;
        while (i < half) {
            int child = 2 * i + 1;
            int right = child + 1;
            if (right < size && before(dues[right], seqs[right], dues[child], seqs[child])) {
                child = right;
            }
            if (!before(dues[child], seqs[child], due, seq)) {
                break;
            }
            put(i, dues[child], seqs[child], tasks[child]);
            i = child;
        }
        put(i, due, seq, t);
    }

    private void put(int i, long due, long seq, Task t) {
        dues[i] = due;
        seqs[i] = seq;
        tasks[i] = t;
        t.index = i;
    }

    /** A waiting task; cancelling it takes it out of the heap. */
    private final class Task implements Cancellable {
        final Runnable task;
        int index = -1;

        Task(Runnable task) {
            this.task = task;
        }

        @Override
        public void cancel() {
            ManualScheduler.this.cancel(this);
        }
    }
}
