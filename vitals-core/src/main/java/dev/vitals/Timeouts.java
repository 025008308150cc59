package dev.vitals;

import dev.vitals.internal.Logs;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;

/**
 * The one timer behind every check's timeout (DESIGN.md section 5, "Engine details"): at most one
 * task on the scheduler, due at the earliest deadline of the executions in flight. An execution
 * whose deadline is no earlier than the armed one schedules nothing, so a quick on-demand check
 * costs no scheduler task, no queue removal and no wake-up of the scheduler thread (issue 37: it
 * was one of each per execution). When the timer fires it asks every runner to time out what is
 * due ({@link CheckRunner#expireIfDue(long)}) and arms itself for the earliest deadline left.
 * Thread-safe: the armed state is guarded by a private lock; the runners are visited without it.
 */
final class Timeouts {
    private static final System.Logger LOG = Logs.get("dev.vitals");

    private final Scheduler scheduler;
    private final Clock clock;
    private final Object lock = new Object();
    private volatile List<CheckRunner> runners = List.of();
    // Guarded by lock.
    private boolean armed;
    private long armedAt;
    private Scheduler.Cancellable timer;

    Timeouts(Scheduler scheduler, Clock clock) {
        this.scheduler = scheduler;
        this.clock = clock;
    }

    /** Sets the runners the timer visits; called once, after they are made. */
    void watch(List<CheckRunner> all) {
        runners = List.copyOf(all);
    }

    /**
     * Makes sure the timer fires no later than {@code deadline}.
     *
     * @param deadline a monotonic time ({@link Clock#monotonicTime()}, ns)
     * @throws RejectedExecutionException if the scheduler refuses the task (shut down)
     */
    void arm(long deadline) {
        synchronized (lock) {
            if (armed && armedAt - deadline <= 0) {
                return;
            }
            Scheduler.Cancellable previous = armed ? timer : null;
            timer = scheduler.schedule(Math.max(0, deadline - clock.monotonicTime()), this::fire);
            armed = true;
            armedAt = deadline;
            if (previous != null) {
                previous.cancel();
            }
        }
    }

    private void fire() {
        synchronized (lock) {
            armed = false;
            timer = null;
        }
        long now = clock.monotonicTime();
        long next = Long.MAX_VALUE; // nanoseconds from now to the earliest deadline left
        for (CheckRunner r : runners) {
            long left = r.expireIfDue(now);
            if (left > 0 && left < next) {
                next = left;
            }
        }
        if (next != Long.MAX_VALUE) {
            try {
                arm(now + next);
            } catch (RejectedExecutionException e) {
                LOG.log(Level.DEBUG, "scheduler refused the next timeout (registry closing)");
            }
        }
    }
}
