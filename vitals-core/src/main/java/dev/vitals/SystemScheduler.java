package dev.vitals;

import dev.vitals.internal.Logs;
import java.lang.System.Logger.Level;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/** The production scheduler: one daemon thread named {@code vitals-scheduler}. */
final class SystemScheduler implements Scheduler {
    private static final System.Logger LOG = Logs.get("dev.vitals");
    private final ScheduledThreadPoolExecutor executor;

    SystemScheduler() {
        executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "vitals-scheduler");
            t.setDaemon(true);
            return t;
        });
        executor.setRemoveOnCancelPolicy(true);
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    @Override
    public Cancellable schedule(long delayNanos, Runnable task) {
        ScheduledFuture<?> f = executor.schedule(() -> {
            try {
                task.run();
            } catch (RuntimeException | Error e) {
                LOG.log(Level.WARNING, "scheduled task failed", e);
            }
        }, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
        return () -> f.cancel(false);
    }

    void shutdown() {
        executor.shutdownNow();
    }
}
