package dev.vitals.agent.impl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.vitals.Health;
import dev.vitals.HealthRegistry;
import dev.vitals.Status;
import dev.vitals.agent.boot.WorkerCounter;
import dev.vitals.testing.ManualScheduler;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.jboss.threads.EnhancedQueueExecutor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The stall rule on real pools with real threads, instrumented as the agent does: a JDK
 * {@code ThreadPoolExecutor} and {@code ForkJoinPool}, JBoss Threads' {@code EnhancedQueueExecutor}
 * (Quarkus) and Jetty's {@code QueuedThreadPool}. The watchdogs' time is a {@link ManualScheduler}:
 * each step samples the real pools, then moves the clock by one second.
 */
class WorkerPoolsTest {
    private static final Duration STALL_AFTER = Duration.ofSeconds(5);
    private final ManualScheduler scheduler = new ManualScheduler();
    private final CountDownLatch release = new CountDownLatch(1);
    private HealthRegistry registry;
    private WorkerPools pools;

    @BeforeAll
    static void instrument() {
        TestInstrumentation.install();
    }

    private WorkerPools pools(String... prefixes) {
        registry = HealthRegistry.builder().clock(scheduler.clock()).scheduler(scheduler).build();
        pools = new WorkerPools(List.of(prefixes), STALL_AFTER, registry, true);
        return pools;
    }

    @AfterEach
    void close() {
        release.countDown();
        if (pools != null) {
            pools.close();
        }
        if (registry != null) {
            registry.close();
        }
    }

    /** Samples the real pools and moves the watchdogs' clock by one second, {@code seconds} times. */
    private Health steps(int seconds) {
        for (int i = 0; i < seconds; i++) {
            pools.sample();
            scheduler.advance(Duration.ofSeconds(1));
        }
        return pools.health();
    }

    /** Samples (without moving the clock) until the pool's reading matches; bounded. */
    private WorkerPools.Reading awaitReading(String pool, Predicate<WorkerPools.Reading> p) {
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20)).until(() -> {
            pools.sample();
            WorkerPools.Reading r = pools.reading(pool);
            return r != null && p.test(r);
        });
        return pools.reading(pool);
    }

    private static ThreadFactory named(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    private void block() {
        try {
            release.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static ThreadPoolExecutor tpe(String prefix, int threads) {
        return new ThreadPoolExecutor(threads, threads, 1, TimeUnit.MINUTES, new LinkedBlockingQueue<>(), named(prefix));
    }

    private static EnhancedQueueExecutor eqe(String prefix, int threads) {
        return new EnhancedQueueExecutor.Builder().setCorePoolSize(threads).setMaximumPoolSize(threads)
                .setThreadFactory(named(prefix)).build();
    }

    private static void runAndWait(ExecutorService pool, int tasks) throws Exception {
        for (int i = 0; i < tasks; i++) {
            pool.submit(() -> { }).get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void idlePoolsOfEveryKindNeverStall() throws Exception {
        pools("tpe-idle-", "fjp-idle-");
        ThreadPoolExecutor tpe = tpe("tpe-idle-", 2);
        ForkJoinPool fjp = new ForkJoinPool(2, p -> {
            var t = ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(p);
            t.setName("fjp-idle-" + t.getPoolIndex());
            return t;
        }, null, false);
        EnhancedQueueExecutor eqe = eqe("executor-thread-", 2); // Quarkus' pool: parked in PoolThreadNode.park
        QueuedThreadPool qtp = new QueuedThreadPool(4, 4);
        qtp.setName("qtp-idle");
        try {
            qtp.start();
            runAndWait(tpe, 5);
            runAndWait(fjp, 5);
            runAndWait(eqe, 5);
            CountDownLatch ran = new CountDownLatch(3);
            for (int i = 0; i < 3; i++) {
                qtp.execute(ran::countDown);
            }
            assertThat(ran.await(30, TimeUnit.SECONDS)).isTrue();
            qtp.execute(new ReservedThreadExecutor.ReservedThread(new AtomicInteger(), release)); // lent, not busy
            awaitReading("tpe-idle-", r -> r.completed() == 5 && r.busy() == 0);
            awaitReading("fjp-idle-", r -> r.completed() >= 5 && r.busy() == 0);
            awaitReading("executor-thread-", r -> r.completed() == 5 && r.busy() == 0);
            awaitReading("qtp-idle-", r -> r.completed() == 3 && r.busy() == 0);

            Health h = steps(3 * (int) STALL_AFTER.toSeconds());

            assertThat(h.status()).isEqualTo(Status.UP);
            assertThat(h.details()).containsKeys("tpe-idle-*", "fjp-idle-*", "executor-thread-*", "qtp-idle-*");
            assertThat(h.details().values()).allSatisfy(d -> assertThat(d.toString()).startsWith("UP measured"));
        } finally {
            tpe.shutdownNow();
            fjp.shutdownNow();
            eqe.shutdownNow();
            qtp.stop();
        }
    }

    @Test
    void aSaturatedPoolThatKeepsCompletingStaysUp() throws Exception {
        pools("tpe-busy-");
        ThreadPoolExecutor tpe = tpe("tpe-busy-", 2);
        Semaphore permits = new Semaphore(0);
        try {
            for (int i = 0; i < 40; i++) {
                tpe.execute(permits::acquireUninterruptibly);
            }
            awaitReading("tpe-busy-", r -> r.busy() == 2 && r.queued() == 38);
            for (int i = 0; i < 3 * STALL_AFTER.toSeconds(); i++) {
                long before = pools.reading("tpe-busy-").completed();
                permits.release(); // one task completes per second
                awaitReading("tpe-busy-", r -> r.completed() > before);
                assertThat(steps(1).status()).as("second %d", i).isEqualTo(Status.UP);
            }
            assertThat(pools.reading("tpe-busy-").queued()).isGreaterThan(0);
        } finally {
            permits.release(100);
            tpe.shutdownNow();
        }
    }

    @Test
    void everyWorkerWedgedWithWorkQueuedIsStalledWithinStallAfter() throws Exception {
        pools("tpe-wedged-");
        ThreadPoolExecutor tpe = tpe("tpe-wedged-", 2);
        EnhancedQueueExecutor eqe = eqe("eqe-wedged-", 2);
        QueuedThreadPool qtp = new AppQueuedThreadPool(3); // a subclass, as Dropwizard's InstrumentedQueuedThreadPool
        qtp.setName("qtp-wedged");
        try {
            qtp.start();
            for (int i = 0; i < 5; i++) {
                tpe.execute(this::block);
                eqe.execute(this::block);
                qtp.execute(this::block);
            }
            awaitReading("tpe-wedged-", r -> r.busy() == 2 && r.queued() == 3);
            awaitReading("eqe-wedged-", r -> r.busy() == 2 && r.queued() == 3);
            awaitReading("qtp-wedged-", r -> r.busy() == 3 && r.queued() == 2);

            assertThat(steps((int) STALL_AFTER.toSeconds() - 1).status()).isEqualTo(Status.UP);
            Health h = steps(2);

            assertThat(h.status()).isEqualTo(Status.DOWN);
            assertThat(h.message()).hasValueSatisfying(m -> assertThat(m).startsWith("pool '").contains("stalled: no task completed for"));
            assertThat(h.details().get("tpe-wedged-*").toString()).startsWith("DOWN measured threads=2 busy=2 queued=3");
            assertThat(h.details().get("eqe-wedged-*").toString()).startsWith("DOWN measured threads=2 busy=2 queued=3");
            assertThat(h.details().get("qtp-wedged-*").toString()).startsWith("DOWN measured threads=3 busy=3 queued=2");
        } finally {
            release.countDown();
            tpe.shutdownNow();
            eqe.shutdownNow();
            qtp.stop();
        }
    }

    @Test
    void everyThreadInsideOneTaskWithNothingQueuedIsStalled() throws Exception {
        pools("tpe-all-");
        ThreadPoolExecutor tpe = tpe("tpe-all-", 2);
        try {
            tpe.execute(this::block);
            tpe.execute(this::block);
            awaitReading("tpe-all-", r -> r.busy() == 2 && r.threads() == 2 && r.queued() == 0);

            Health h = steps((int) STALL_AFTER.toSeconds() + 1);

            assertThat(h.status()).isEqualTo(Status.DOWN);
            assertThat(h.message()).hasValueSatisfying(m -> assertThat(m)
                    .startsWith("pool 'tpe-all-*': stalled: no task completed for").endsWith("with 2 running and 0 queued"));
        } finally {
            release.countDown();
            tpe.shutdownNow();
        }
    }

    @Test
    void oneStuckTaskBesideIdleWorkersIsNotAStall() throws Exception {
        pools();
        EnhancedQueueExecutor eqe = eqe("executor-thread-", 3);
        ThreadPoolExecutor tpe = tpe("http-nio-0-exec-", 3); // a request pool's name: watched without an option
        try {
            eqe.execute(this::block);
            tpe.execute(this::block);
            runAndWait(eqe, 4); // the other threads start and go idle
            runAndWait(tpe, 4);
            awaitReading("executor-thread-", r -> r.busy() == 1 && r.threads() >= 2);
            awaitReading("http-nio-0-exec-", r -> r.busy() == 1 && r.threads() >= 2);

            Health h = steps(3 * (int) STALL_AFTER.toSeconds());

            assertThat(h.status()).isEqualTo(Status.UP);
            assertThat(h.details().get("executor-thread-*").toString()).contains("busy=1", "queued=0");
        } finally {
            release.countDown();
            eqe.shutdownNow();
            tpe.shutdownNow();
        }
    }

    /**
     * Dropwizard's admin pool in CI: a health check hung on its one thread, the pool's idle threads
     * reaped (Jetty's idle timeout), so the thread alive is the stuck one. The pool would start
     * another thread for the next request (up to its maximum): not a stall. The same for a pool
     * that grows on demand of every kind: JBoss Threads (core 1, max 8) and a JDK cached pool.
     */
    @Test
    void oneStuckTaskInAPoolShrunkToItIsNotAStallWhileThePoolMayGrow() throws Exception {
        pools("cached-");
        QueuedThreadPool qtp = new QueuedThreadPool(8, 1);
        qtp.setName("dw-admin");
        qtp.setIdleTimeout(50); // ms: the idle threads go at once
        qtp.setReservedThreads(0);
        EnhancedQueueExecutor eqe = new EnhancedQueueExecutor.Builder().setCorePoolSize(1).setMaximumPoolSize(8)
                .setThreadFactory(named("executor-thread-")).build();
        ThreadPoolExecutor cached = new ThreadPoolExecutor(0, 8, 50, TimeUnit.MILLISECONDS,
                new java.util.concurrent.SynchronousQueue<>(), named("cached-"));
        try {
            qtp.start();
            qtp.execute(this::block);
            eqe.execute(this::block);
            cached.execute(this::block);
            awaitReading("dw-admin-", r -> r.busy() == 1 && r.threads() == 1 && r.limit() == 8);
            awaitReading("executor-thread-", r -> r.busy() == 1 && r.threads() == 1 && r.limit() == 8);
            awaitReading("cached-", r -> r.busy() == 1 && r.threads() == 1 && r.limit() == 8);

            Health h = steps(3 * (int) STALL_AFTER.toSeconds());

            assertThat(h.status()).isEqualTo(Status.UP);
            assertThat(h.details().get("dw-admin-*").toString()).startsWith("UP measured threads=1 busy=1 queued=0")
                    .contains("maxThreads=8");
        } finally {
            release.countDown();
            qtp.stop();
            eqe.shutdownNow();
            cached.shutdownNow();
        }
    }

    /** The other side: the same pool at its maximum, every thread stuck, is stalled. */
    @Test
    void aJettyPoolAtItsMaximumWithEveryThreadStuckIsStalled() throws Exception {
        pools();
        QueuedThreadPool qtp = new QueuedThreadPool(2, 1);
        qtp.setName("dw-full");
        qtp.setReservedThreads(0);
        try {
            qtp.start();
            qtp.execute(this::block);
            qtp.execute(this::block);
            awaitReading("dw-full-", r -> r.busy() == 2 && r.limit() == 2);

            Health h = steps((int) STALL_AFTER.toSeconds() + 2);

            assertThat(h.status()).isEqualTo(Status.DOWN);
            assertThat(h.message()).hasValueSatisfying(m -> assertThat(m).startsWith("pool 'dw-full-*': stalled"));
        } finally {
            release.countDown();
            qtp.stop();
        }
    }

    @Test
    void aWedgedJettyPoolIsStalledAlthoughItsReservedThreadsWakeUp() throws Exception {
        pools();
        QueuedThreadPool qtp = new QueuedThreadPool(4, 4);
        qtp.setName("qtp-reserved");
        AtomicInteger wakeUps = new AtomicInteger();
        try {
            qtp.start();
            qtp.execute(new ReservedThreadExecutor.ReservedThread(wakeUps, release));
            qtp.execute(new ReservedThreadExecutor.ReservedThread(wakeUps, release));
            qtp.execute(this::block); // every worker wedged
            qtp.execute(this::block);
            WorkerPools.Reading before = awaitReading("qtp-reserved-", r -> r.busy() == 2 && r.threads() == 2);

            int woken = wakeUps.get();
            Health h = steps((int) STALL_AFTER.toSeconds() + 1);

            await().atMost(Duration.ofSeconds(30)).until(() -> wakeUps.get() > woken + 2);
            assertThat(pools.reading("qtp-reserved-").completed()).isEqualTo(before.completed());
            assertThat(h.status()).isEqualTo(Status.DOWN);
            assertThat(h.message()).hasValueSatisfying(m -> assertThat(m).startsWith("pool 'qtp-reserved-*': stalled"));
        } finally {
            release.countDown();
            qtp.stop();
        }
    }

    /** An application's subclass of Jetty's pool (Dropwizard's {@code InstrumentedQueuedThreadPool}). */
    static final class AppQueuedThreadPool extends QueuedThreadPool {
        AppQueuedThreadPool(int threads) {
            super(threads, threads);
        }
    }

    @Test
    void jettysOwnLongRunningJobsAreNotTasks() {
        assertThat(WorkerCounter.notATask(ReservedThreadExecutor.ReservedThread.class.getName())).isTrue();
        assertThat(WorkerCounter.notATask("org.eclipse.jetty.util.thread.ReservedThreadExecutor$ReservedThread")).isTrue();
        assertThat(WorkerCounter.notATask("org.eclipse.jetty.server.AbstractConnector$Acceptor")).isTrue();
        assertThat(WorkerCounter.notATask("org.eclipse.jetty.io.ManagedSelector$$Lambda/0x00007f0c4c1b2a48")).isTrue();
        assertThat(WorkerCounter.notATask("org.eclipse.jetty.io.ManagedSelector$CreateEndPoint")).isFalse();
        assertThat(WorkerCounter.notATask("org.eclipse.jetty.server.internal.HttpConnection$HttpStreamOverHTTP1")).isFalse();
    }

    /**
     * The shape of Jetty's {@code ReservedThreadExecutor$ReservedThread} (its class name is what
     * Vitals knows it by): a job that waits for a hand-off and wakes up now and then, completing
     * nothing.
     */
    static final class ReservedThreadExecutor {
        static final class ReservedThread implements Runnable {
            private final AtomicInteger wakeUps;
            private final CountDownLatch release;

            ReservedThread(AtomicInteger wakeUps, CountDownLatch release) {
                this.wakeUps = wakeUps;
                this.release = release;
            }

            @Override
            public void run() {
                try {
                    while (!release.await(50, TimeUnit.MILLISECONDS)) {
                        wakeUps.incrementAndGet();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    @Test
    void namedThreadsOfNoInstrumentedPoolAreInferredFromStacks() throws Exception {
        pools("test-loop-", "test-selector-");
        List<Thread> started = new java.util.ArrayList<>();
        java.nio.channels.Selector selector = java.nio.channels.Selector.open();
        try {
            for (int i = 1; i <= 2; i++) {
                Thread stuck = new Thread(this::block, "test-loop-" + i); // an event loop stuck in a handler
                Thread waiting = new Thread(() -> {
                    try {
                        selector.select(); // an event loop waiting for I/O: idle
                    } catch (java.io.IOException | java.nio.channels.ClosedSelectorException e) {
                        // closed by the test's end
                    }
                }, "test-selector-" + i);
                stuck.setDaemon(true);
                waiting.setDaemon(true);
                stuck.start();
                waiting.start();
                started.add(stuck);
                started.add(waiting);
            }
            awaitReading("test-loop-", r -> r.threads() == 2 && r.busy() == 2);
            awaitReading("test-selector-", r -> r.threads() == 2 && r.busy() == 0);

            Health h = steps((int) STALL_AFTER.toSeconds() + 2);

            assertThat(h.status()).isEqualTo(Status.DOWN);
            assertThat(h.message()).hasValueSatisfying(m -> assertThat(m).startsWith("pool 'test-loop-*': stalled"));
            assertThat(h.details().get("test-loop-*").toString()).startsWith("DOWN inferred from stacks threads=2 busy=2");
            assertThat(h.details().get("test-selector-*").toString()).startsWith("UP inferred from stacks threads=2 busy=0");
        } finally {
            release.countDown();
            selector.close();
            for (Thread t : started) {
                t.join(10_000);
            }
        }
    }

    @Test
    void theAgentsOwnPoolsAndUnnamedJdkPoolsAreNotWatched() throws Exception {
        pools();
        ThreadPoolExecutor mine = tpe("vitals-check-", 1);
        ThreadPoolExecutor loop = tpe("some-library-loop-", 1);
        try {
            mine.execute(this::block);
            loop.execute(this::block); // a library's forever-running loop in a one-thread pool
            Health h = steps(3 * (int) STALL_AFTER.toSeconds());
            assertThat(h.status()).isEqualTo(Status.UP);
            assertThat(pools.pools()).doesNotContain("vitals-check-", "some-library-loop-");
        } finally {
            release.countDown();
            mine.shutdownNow();
            loop.shutdownNow();
        }
    }
}
