package dev.vitals.kubesim.model;

import dev.vitals.testing.ManualScheduler;
import java.time.Duration;

/**
 * A discrete-event clock: time moves only when {@link #awaitUntil(long)} or
 * {@link #advance(Duration)} runs the queued tasks in time order (ties in scheduling order),
 * each with the clock set to its due time. It is vitals-core's {@link ManualScheduler} (the
 * project's one manual scheduler) seen as a {@link SimTime}: work that would block runs at
 * once, on the caller's thread. Monotonic time starts at 0 ns. Used by rule tests, by
 * {@code vitals lint} to replay kubelet's rules without waiting, and by the fleet simulation.
 * Use it from one thread.
 */
public final class VirtualTime implements SimTime {
    private final ManualScheduler scheduler = ManualScheduler.confined(); // one thread: no lock per task
    private boolean closed;
    private long scheduled;

    @Override
    public long wallTime() {
        return scheduler.clock().wallTime();
    }

    @Override
    public long monotonicTime() {
        return scheduler.clock().monotonicTime();
    }

    @Override
    public Cancellable schedule(long delayNanos, Runnable task) {
        if (closed) {
            return () -> { };
        }
        scheduled++;
        return scheduler.schedule(delayNanos, task);
    }

    @Override
    public void awaitUntil(long monotonicNanos) {
        long now = monotonicTime();
        if (monotonicNanos >= now) {
            scheduler.advance(Duration.ofNanos(monotonicNanos - now));
        }
    }

    /**
     * Runs everything due within {@code d} from now, then sets the clock to now + d.
     *
     * @param d how far, not negative
     */
    public void advance(Duration d) {
        scheduler.advance(d);
    }

    @Override
    public void offload(Runnable task) {
        task.run();
    }

    @Override
    public void runAndWait(Runnable task) {
        task.run();
    }

    /** @return how many tasks were scheduled so far (the benchmarks' count of timer events) */
    public long scheduled() {
        return scheduled;
    }

    /** Later schedules are dropped; tasks still queued never run. */
    @Override
    public void close() {
        closed = true;
    }
}
