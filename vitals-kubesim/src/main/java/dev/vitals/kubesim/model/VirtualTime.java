package dev.vitals.kubesim.model;

import java.time.Duration;
import java.util.PriorityQueue;

/**
 * A discrete-event clock: time moves only when {@link #awaitUntil(long)} or
 * {@link #advance(Duration)} runs the queued tasks in time order (ties in scheduling order).
 * Starts at 0 ns. Used by rule tests and by {@code vitals lint} to replay kubelet's rules
 * without waiting. Not thread-safe: use it from one thread.
 */
public final class VirtualTime implements SimTime {
    private final PriorityQueue<Task> queue = new PriorityQueue<>();
    private long now;
    private long seq;

    @Override
    public long wallTime() {
        return now / 1_000_000L;
    }

    @Override
    public long monotonicTime() {
        return now;
    }

    @Override
    public Cancellable schedule(long delayNanos, Runnable task) {
        Task t = new Task(now + Math.max(0, delayNanos), seq++, task);
        queue.add(t);
        return () -> t.cancelled = true;
    }

    @Override
    public void awaitUntil(long monotonicNanos) {
        while (!queue.isEmpty() && queue.peek().at <= monotonicNanos) {
            Task t = queue.poll();
            now = Math.max(now, t.at);
            if (!t.cancelled) {
                t.task.run();
            }
        }
        now = Math.max(now, monotonicNanos);
    }

    /** Runs everything due within {@code d} from now, then sets the clock to now + d. */
    public void advance(Duration d) {
        awaitUntil(now + d.toNanos());
    }

    @Override
    public void offload(Runnable task) {
        task.run();
    }

    @Override
    public void runAndWait(Runnable task) {
        task.run();
    }

    @Override
    public void close() {
        queue.clear();
    }

    private static final class Task implements Comparable<Task> {
        final long at;
        final long seq;
        final Runnable task;
        boolean cancelled;

        Task(long at, long seq, Runnable task) {
            this.at = at;
            this.seq = seq;
            this.task = task;
        }

        @Override
        public int compareTo(Task o) {
            int c = Long.compare(at, o.at);
            return c != 0 ? c : Long.compare(seq, o.seq);
        }
    }
}
