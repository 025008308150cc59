package dev.vitals.testing;

import dev.vitals.Scheduler;
import java.time.Duration;
import java.util.ArrayDeque;
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
    // a 4-ary min-heap of the waiting tasks ordered by (due, sequence), the two keys of entry i at
    // keys[2i] and keys[2i + 1]: a node's four children share one cache line, and sifting compares
    // longs without loading the tasks (kubesim's fleet model keeps tens of thousands of timers, issue 37)
    private long[] keys = new long[32];
    private Task[] tasks = new Task[16];
    private int size;
    private long sequence;
    // tasks scheduled with no delay skip the heap: they are due when they were scheduled, so in
    // scheduling order they are also in (due, sequence) order, and a run merges them with the heap
    private final ArrayDeque<Task> now = new ArrayDeque<>();
    private int nowWaiting; // of them, not cancelled

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
        if (delayNanos <= 0) {
            t.due = clock.monotonicTime();
            t.seq = sequence++;
            t.index = IN_NOW;
            now.addLast(t);
            nowWaiting++;
            return t;
        }
        if (size == tasks.length) {
            keys = Arrays.copyOf(keys, 4 * size);
            tasks = Arrays.copyOf(tasks, 2 * size);
        }
        siftUp(size++, clock.monotonicTime() + delayNanos, sequence++, t);
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
                while (!now.isEmpty() && now.peekFirst().index == CANCELLED) {
                    now.pollFirst();
                }
                Task first = now.peekFirst();
                if (size > 0 && (first == null || keys[0] < first.due || (keys[0] == first.due && keys[1] < first.seq))) {
                    if (keys[0] > target) {
                        break;
                    }
                    due = keys[0];
                    next = tasks[0];
                    removeAt(0);
                } else if (first != null && first.due <= target) {
                    due = first.due;
                    next = now.pollFirst();
                    next.index = -1;
                    nowWaiting--;
                } else {
                    break;
                }
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
        return size + nowWaiting;
    }

    private synchronized void cancel(Task t) {
        if (t.index >= 0) {
            removeAt(t.index);
        } else if (t.index == IN_NOW) {
            t.index = CANCELLED; // dropped when it reaches the head
            nowWaiting--;
        }
    }

    private void removeAt(int i) {
        tasks[i].index = -1;
        int last = --size;
        Task t = tasks[last];
        tasks[last] = null;
        if (i != last) {
            long due = keys[2 * last];
            long seq = keys[2 * last + 1];
            siftDown(i, due, seq, t);
            if (tasks[i] == t) {
                siftUp(i, due, seq, t);
            }
        }
    }

    private boolean before(int i, long due, long seq) {
        long d = keys[2 * i];
        return d < due || (d == due && keys[2 * i + 1] < seq);
    }

    private void siftUp(int i, long due, long seq, Task t) {
        while (i > 0) {
            int parent = (i - 1) >>> 2;
            if (before(parent, due, seq)) {
                break;
            }
            move(parent, i);
            i = parent;
        }
        put(i, due, seq, t);
    }

    private void siftDown(int i, long due, long seq, Task t) {
        while (true) {
            int first = 4 * i + 1;
            if (first >= size) {
                break;
            }
            int least = first;
            int end = Math.min(first + 4, size);
            for (int c = first + 1; c < end; c++) {
                if (before(c, keys[2 * least], keys[2 * least + 1])) {
                    least = c;
                }
            }
            if (!before(least, due, seq)) {
                break;
            }
            move(least, i);
            i = least;
        }
        put(i, due, seq, t);
    }

    private void move(int from, int to) {
        keys[2 * to] = keys[2 * from];
        keys[2 * to + 1] = keys[2 * from + 1];
        Task t = tasks[from];
        tasks[to] = t;
        t.index = to;
    }

    private void put(int i, long due, long seq, Task t) {
        keys[2 * i] = due;
        keys[2 * i + 1] = seq;
        tasks[i] = t;
        t.index = i;
    }

    private static final int IN_NOW = -2;
    private static final int CANCELLED = -3;

    /** A waiting task; cancelling it takes it out of the heap, or marks it in the no-delay queue. */
    private final class Task implements Cancellable {
        final Runnable task;
        int index = -1; // its place in the heap; IN_NOW, CANCELLED; -1 when it ran or was taken out
        long due; // in the no-delay queue only
        long seq;

        Task(Runnable task) {
            this.task = task;
        }

        @Override
        public void cancel() {
            ManualScheduler.this.cancel(this);
        }
    }
}
