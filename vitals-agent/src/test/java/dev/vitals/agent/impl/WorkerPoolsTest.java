package dev.vitals.agent.impl;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vitals.HealthRegistry;
import java.time.Duration;
import java.util.List;
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
}
