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
 *   <li>{@code GET /test/dependency} → {@link #dependency()}: the request calls the dependency
 *       (system property {@code faults.dependency}, {@code host:port}) and waits for its answer
 *       with no timeout, as a database driver with no socket timeout does: a blackholed dependency
 *       (accepts, never answers) wedges the worker;</li>
 *   <li>the framework's readiness check also calls {@link #checkDependency()}: DOWN while the
 *       dependency refuses connections (a dependency down at boot);</li>
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

    /** @return the dependency's address from {@code faults.dependency}, or null when none is configured */
    private static java.net.InetSocketAddress dependencyAddress() {
        String d = System.getProperty("faults.dependency");
        if (d == null || d.isBlank()) {
            return null;
        }
        int colon = d.lastIndexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException("faults.dependency must be host:port, was " + d);
        }
        return new java.net.InetSocketAddress(d.substring(0, colon), Integer.parseInt(d.substring(colon + 1)));
    }

    /**
     * The readiness part for the dependency: connects (500 ms bound) and closes.
     *
     * @throws java.io.IOException when the dependency refuses or does not accept in time
     */
    public static void checkDependency() throws java.io.IOException {
        java.net.InetSocketAddress a = dependencyAddress();
        if (a == null) {
            return;
        }
        try (java.net.Socket s = new java.net.Socket()) {
            s.connect(a, 500);
        }
    }

    /**
     * Calls the dependency: connects, sends one line and waits for one byte back with no read
     * timeout.
     *
     * @return {@code "dependency answered\n"}
     * @throws java.io.IOException when the dependency is down or none is configured
     */
    public static String dependency() throws java.io.IOException {
        java.net.InetSocketAddress a = dependencyAddress();
        if (a == null) {
            throw new java.io.IOException("no faults.dependency configured");
        }
        try (java.net.Socket s = new java.net.Socket()) {
            s.connect(a, 2000);
            s.getOutputStream().write("ping\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
            s.getInputStream().read(); // no timeout: wedged while the dependency never answers
        }
        return "dependency answered\n";
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
