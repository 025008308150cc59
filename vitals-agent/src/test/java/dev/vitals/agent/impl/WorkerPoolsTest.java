package dev.vitals.agent.impl;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vitals.HealthRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class WorkerPoolsTest {
    private static StackTraceElement f(String cls, String method) {
        return new StackTraceElement(cls, method, null, -1);
    }

    @Test
    void aThreadWaitingInItsPoolsQueueIsIdle() {
        assertThat(WorkerPools.idle(new StackTraceElement[] {
            f("jdk.internal.misc.Unsafe", "park"),
            f("java.util.concurrent.locks.LockSupport", "park"),
            f("java.util.concurrent.LinkedBlockingQueue", "take"),
            f("java.util.concurrent.ThreadPoolExecutor", "getTask"),
            f("java.util.concurrent.ThreadPoolExecutor", "runWorker")})).isTrue();
        assertThat(WorkerPools.idle(new StackTraceElement[] {
            f("jdk.internal.misc.Unsafe", "park"),
            f("java.util.concurrent.locks.LockSupport", "parkNanos"),
            f("org.apache.tomcat.util.threads.TaskQueue", "poll"),
            f("org.apache.tomcat.util.threads.ThreadPoolExecutor", "getTask")})).isTrue();
        assertThat(WorkerPools.idle(new StackTraceElement[] {
            f("sun.nio.ch.EPoll", "wait"),
            f("sun.nio.ch.EPollSelectorImpl", "doSelect"),
            f("org.eclipse.jetty.io.ManagedSelector", "nioSelect")})).isTrue();
    }

    @Test
    void aJetty12ThreadWaitingInItsQueueThroughAutoLockIsIdleAndWaitingForATask() {
        // jstack of an idle Dropwizard 5 (Jetty 12) worker: every one read busy before.
        StackTraceElement[] jetty12 = {
            f("jdk.internal.misc.Unsafe", "park"),
            f("java.util.concurrent.locks.LockSupport", "parkNanos"),
            f("java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject", "awaitNanos"),
            f("org.eclipse.jetty.util.thread.AutoLock$WithCondition", "awaitNanos"),
            f("org.eclipse.jetty.util.BlockingArrayQueue", "poll"),
            f("org.eclipse.jetty.util.thread.QueuedThreadPool$Runner", "idleJobPoll"),
            f("org.eclipse.jetty.util.thread.QueuedThreadPool$Runner", "run"),
            f("java.lang.Thread", "run"),
        };
        assertThat(WorkerPools.idle(jetty12)).isTrue();
        assertThat(WorkerPools.waitingForTask(jetty12)).isTrue();
        // An application's own wait under the same lock helper stays busy.
        assertThat(WorkerPools.idle(new StackTraceElement[] {
            f("jdk.internal.misc.Unsafe", "park"),
            f("org.eclipse.jetty.util.thread.AutoLock$WithCondition", "await"),
            f("com.example.Orders", "export"),
        })).isFalse();
    }

    @Test
    void aThreadInApplicationCodeIsBusyEvenWhenItWaits() {
        assertThat(WorkerPools.idle(new StackTraceElement[] {
            f("java.lang.Thread", "sleep"),
            f("com.example.Orders", "export"),
            f("java.util.concurrent.ThreadPoolExecutor", "runWorker")})).isFalse();
        assertThat(WorkerPools.idle(new StackTraceElement[] {
            f("jdk.internal.misc.Unsafe", "park"),
            f("java.util.concurrent.locks.ReentrantLock", "lock"),
            f("org.eclipse.jetty.server.handler.ContextHandler", "handle")})).isFalse();
    }

    @Test
    void threadsAreGroupedIntoPoolsByName() {
        try (HealthRegistry r = HealthRegistry.builder().build()) {
            WorkerPools pools = new WorkerPools(List.of("demo-worker-"), Duration.ofSeconds(5), r);
            assertThat(pools.poolOf("http-nio-8080-exec-12")).isEqualTo("http-nio-");
            assertThat(pools.poolOf("qtp1234567-41")).isEqualTo("qtp1234567-");
            assertThat(pools.poolOf("dw-42 - GET /orders")).isEqualTo("dw-");
            assertThat(pools.poolOf("dw-admin-43")).isEqualTo("dw-admin-");
            assertThat(pools.poolOf("XNIO-1 task-3")).isEqualTo("XNIO-1");
            assertThat(pools.poolOf("demo-worker-7")).isEqualTo("demo-worker-");
            assertThat(pools.poolOf("main")).isNull();
        }
    }

    @Test
    void oneStuckRequestBesideAThreadWaitingForATaskIsNotAStall() throws Exception {
        // QA: a hung framework health check (or any one long request) held one Tomcat-style worker
        // while three others waited for tasks; the pool read "stalled: no task completed" and
        // liveness went DOWN after stall-after, so a hung readiness check restarted the pod.
        AtomicInteger n = new AtomicInteger();
        ExecutorService pool = new ThreadPoolExecutor(2, 2, 1, TimeUnit.MINUTES, new LinkedBlockingQueue<>(),
                r -> new Thread(r, "qa-pool-" + n.incrementAndGet()));
        CountDownLatch release = new CountDownLatch(1);
        try (HealthRegistry r = HealthRegistry.builder().build()) {
            WorkerPools pools = new WorkerPools(List.of("qa-pool-"), Duration.ofSeconds(5), r);
            pool.submit(() -> { release.await(); return null; }); // stuck, and the pool's other thread idle
            pool.submit(() -> { });
            awaitStates(pools, 1);
            pools.sample(List.of());
            long before = pools.snapshot("qa-pool-").completed();
            pools.sample(List.of());
            pools.sample(List.of());
            assertThat(pools.snapshot("qa-pool-").busy()).isEqualTo(1);
            assertThat(pools.snapshot("qa-pool-").completed()).as("a free thread: the pool can take work").isGreaterThan(before);

            pool.submit(() -> { release.await(); return null; }); // now every thread stuck: a stall
            awaitStates(pools, 2);
            pools.sample(List.of());
            long stuck = pools.snapshot("qa-pool-").completed();
            pools.sample(List.of());
            pools.sample(List.of());
            assertThat(pools.snapshot("qa-pool-").busy()).isEqualTo(2);
            assertThat(pools.snapshot("qa-pool-").completed()).as("no free thread, nothing moving").isEqualTo(stuck);
        } finally {
            release.countDown();
            pool.shutdownNow();
        }
    }

    /** Waits (bounded) until {@code busy} threads of the pool are parked in the latch. */
    private static void awaitStates(WorkerPools pools, int busy) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            int parked = 0;
            for (java.util.Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
                if (e.getKey().getName().startsWith("qa-pool-") && e.getKey().getState() == Thread.State.WAITING
                        && !WorkerPools.idle(e.getValue())) {
                    parked++;
                }
            }
            if (parked == busy) {
                return;
            }
            Thread.sleep(20);
        }
        throw new AssertionError("pool threads never reached " + busy + " parked");
    }
}
