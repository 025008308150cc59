package dev.vitals.demo;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Faults the {@code --chaos} routes inject. A stuck application must turn liveness DOWN with
 * the Vitals wiring (DESIGN.md P2), just as the naive endpoint fails.
 *
 * <p>{@link #deadlockWorkers(Executor)}: two workers take two locks in opposite order and
 * deadlock (visible to {@code ThreadMXBean.findDeadlockedThreads}); from then on every
 * application request blocks on the first lock ({@link #gate()}), so the whole pool wedges
 * while the process lives. Thread-safe.
 */
final class Chaos {
    private final ReentrantLock first = new ReentrantLock();
    private final ReentrantLock second = new ReentrantLock();
    private volatile boolean wedged;

    /** Called at the start of every application request: blocks forever once the workers are deadlocked. */
    void gate() {
        if (wedged) {
            first.lock(); // never acquired: held by a deadlocked worker
            first.unlock();
        }
    }

    /**
     * Submits the two deadlocking tasks to {@code workers} and turns on the gate; returns once
     * both locks are held (or at once if this was done before).
     */
    synchronized void deadlockWorkers(Executor workers) throws InterruptedException {
        if (wedged) {
            return;
        }
        CountDownLatch bothHeld = new CountDownLatch(2);
        workers.execute(() -> lockInOrder(first, second, bothHeld));
        workers.execute(() -> lockInOrder(second, first, bothHeld));
        // Bounded: on a saturated pool the two tasks start later and deadlock then.
        bothHeld.await(10, TimeUnit.SECONDS);
        wedged = true;
    }

    private static void lockInOrder(ReentrantLock a, ReentrantLock b, CountDownLatch bothHeld) {
        a.lock();
        bothHeld.countDown();
        try {
            bothHeld.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        b.lock(); // never returns: the other worker holds b and waits for a
        b.unlock();
        a.unlock();
    }
}
