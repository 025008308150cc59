package dev.vitals.examples.agent.faults;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.ReentrantLock;

/**
 * What the agent's framework examples do behind their test routes, the same in every framework
 * (each example only maps its routes and its health check onto these methods):
 * <ul>
 *   <li>{@code GET /test/readiness/{ok|slow|hang}} → {@link #readiness(String)}, and the
 *       framework's readiness check calls {@link #gate()}: from then on it takes 3 s, or blocks
 *       forever;</li>
 *   <li>{@code GET /test/block} → {@link #block()}: the request blocks its worker forever;</li>
 *   <li>{@code GET /test/work?ms=N} → {@link #work(long)}: the request holds its worker N ms,
 *       then completes;</li>
 *   <li>{@code GET /test/deadlock} → {@link #deadlock()}: two application threads deadlock;</li>
 *   <li>{@code GET /test/hello} → {@link #hello()}.</li>
 * </ul>
 * Thread-safe: the mode is a volatile field, shared by the whole JVM (one application per JVM).
 */
public final class Faults {
    private static volatile String mode = "ok";
    private static final CountDownLatch NEVER = new CountDownLatch(1);

    private Faults() {
    }

    /** @return {@code "hello\n"} */
    public static String hello() {
        return "hello\n";
    }

    /**
     * @param m {@code ok}, {@code slow} (the check takes 3 s) or {@code hang} (it never returns)
     * @return the answer's body, naming the mode
     */
    public static String readiness(String m) {
        mode = m;
        return "readiness check: " + m + "\n";
    }

    /**
     * The framework's readiness check: returns at once, after 3 s, or never, as the mode says.
     *
     * @throws InterruptedException when interrupted while slow or hung
     */
    public static void gate() throws InterruptedException {
        String m = mode;
        if (m.equals("slow")) {
            Thread.sleep(3000);
        } else if (m.equals("hang")) {
            NEVER.await();
        }
    }

    /**
     * {@link #gate()} for a check that cannot throw: an interrupt ends the wait and is kept.
     */
    public static void gateUninterruptibly() {
        try {
            gate();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Blocks the calling request thread forever.
     *
     * @return never
     * @throws InterruptedException when interrupted
     */
    public static String block() throws InterruptedException {
        NEVER.await();
        return "never\n";
    }

    /**
     * Holds the calling request thread for {@code ms}, then completes: work that saturates a pool
     * and keeps completing.
     *
     * @param ms 0 to 10000
     * @return {@code "worked N ms\n"}
     * @throws IllegalArgumentException if {@code ms} is out of range
     * @throws InterruptedException when interrupted
     */
    public static String work(long ms) throws InterruptedException {
        if (ms < 0 || ms > 10_000) {
            throw new IllegalArgumentException("ms must be 0-10000, was " + ms);
        }
        Thread.sleep(ms);
        return "worked " + ms + " ms\n";
    }

    /**
     * Starts two application threads ({@code app-deadlock-1}, {@code app-deadlock-2}) that take
     * two locks in opposite order and deadlock.
     *
     * @return the answer's body
     */
    public static String deadlock() {
        ReentrantLock a = new ReentrantLock();
        ReentrantLock b = new ReentrantLock();
        CountDownLatch both = new CountDownLatch(2);
        new Thread(() -> lock(a, b, both), "app-deadlock-1").start();
        new Thread(() -> lock(b, a, both), "app-deadlock-2").start();
        return "deadlocked\n";
    }

    private static void lock(ReentrantLock first, ReentrantLock second, CountDownLatch both) {
        first.lock();
        both.countDown();
        try {
            both.await();
        } catch (InterruptedException e) {
            return;
        }
        second.lock();
    }
}
