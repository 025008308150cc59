package dev.vitals.kubesim.model;

import dev.vitals.Clock;
import dev.vitals.Scheduler;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The time a simulation runs on: a {@link Clock} and a single-threaded {@link Scheduler} on
 * which every kubelet decision is made (so the kubelet model needs no locks), plus a way to
 * let time pass. {@link #real()} is wall time with one daemon thread named
 * {@code vitals-kubesim-kubelet}; {@link VirtualTime} is a discrete-event clock for rule tests
 * and predictions.
 */
public interface SimTime extends Clock, Scheduler, AutoCloseable {

    /**
     * Lets time pass until {@link #monotonicTime()} reaches {@code monotonicNanos}, running
     * every task due before then. Real time sleeps; virtual time runs the tasks on the
     * caller's thread.
     *
     * @param monotonicNanos the target time
     * @throws InterruptedException if the real-time wait is interrupted
     */
    void awaitUntil(long monotonicNanos) throws InterruptedException;

    /**
     * Runs {@code task} on the scheduler thread and waits for it (real time), or runs it at
     * once (virtual time).
     *
     * @param task the task
     * @throws InterruptedException if interrupted while waiting
     */
    void runAndWait(Runnable task) throws InterruptedException;

    /**
     * Runs work that may block (spawning a process, sending signals, starting a load) away
     * from the scheduler thread, so probe ticks are never delayed by it, nor one piece of work
     * by another (a process start never waits for a load to begin). Real time uses a cached
     * pool of daemon threads named {@code vitals-kubesim-io-N}; virtual time runs it at once. The task
     * posts its results back with {@link #schedule(long, Runnable)}.
     *
     * @param task the blocking work
     */
    void offload(Runnable task);

    /** Stops the scheduler thread, if any. Idempotent. */
    @Override
    void close();

    /** @return wall time with a new single-threaded daemon scheduler */
    static SimTime real() {
        return new RealTime();
    }

    /** Wall-clock implementation. */
    final class RealTime implements SimTime {
        private final ScheduledThreadPoolExecutor executor;
        private final java.util.concurrent.atomic.AtomicInteger ioThreads = new java.util.concurrent.atomic.AtomicInteger();
        private final java.util.concurrent.ExecutorService io = java.util.concurrent.Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "vitals-kubesim-io-" + ioThreads.incrementAndGet());
            t.setDaemon(true);
            return t;
        });

        RealTime() {
            executor = new ScheduledThreadPoolExecutor(1, r -> {
                Thread t = new Thread(r, "vitals-kubesim-kubelet");
                t.setDaemon(true);
                return t;
            });
            executor.setRemoveOnCancelPolicy(true);
            executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        }

        @Override
        public long wallTime() {
            return Clock.SYSTEM.wallTime();
        }

        @Override
        public long monotonicTime() {
            return Clock.SYSTEM.monotonicTime();
        }

        @Override
        public Cancellable schedule(long delayNanos, Runnable task) {
            ScheduledFuture<?> f;
            try {
                f = executor.schedule(() -> {
                    try {
                        task.run();
                    } catch (RuntimeException | Error e) {
                        if (!executor.isShutdown()) { // after the run ended (or a signal), a late task's failure is not news
                            System.getLogger("dev.vitals.kubesim").log(System.Logger.Level.WARNING, "kubelet task failed", e);
                        }
                    }
                }, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                if (executor.isShutdown()) {
                    return () -> { }; // the run has ended (or was interrupted): a late timer is dropped
                }
                throw e;
            }
            return () -> f.cancel(false);
        }

        @Override
        public void awaitUntil(long monotonicNanos) throws InterruptedException {
            long left;
            while ((left = monotonicNanos - System.nanoTime()) > 0) {
                TimeUnit.NANOSECONDS.sleep(Math.min(left, TimeUnit.MILLISECONDS.toNanos(200)));
            }
        }

        @Override
        public void runAndWait(Runnable task) throws InterruptedException {
            java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
            RuntimeException[] failure = new RuntimeException[1];
            executor.execute(() -> {
                try {
                    task.run();
                } catch (RuntimeException e) {
                    failure[0] = e;
                } finally {
                    done.countDown();
                }
            });
            if (!done.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("kubelet thread did not answer within 30 s");
            }
            if (failure[0] != null) {
                throw failure[0];
            }
        }

        @Override
        public void offload(Runnable task) {
            if (io.isShutdown()) {
                return; // the run has ended: nothing left to offload to
            }
            io.execute(() -> {
                try {
                    task.run();
                } catch (RuntimeException | Error e) {
                    System.getLogger("dev.vitals.kubesim").log(System.Logger.Level.WARNING, "offloaded task failed", e);
                }
            });
        }

        @Override
        public void close() {
            executor.shutdownNow();
            io.shutdown();
        }
    }
}
