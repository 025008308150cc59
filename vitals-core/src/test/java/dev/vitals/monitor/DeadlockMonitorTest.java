package dev.vitals.monitor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.vitals.Health;
import dev.vitals.Status;
import dev.vitals.testing.ManualScheduler;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Test;

/** A real lock-order inversion between two threads, found by name, then broken and cleaned up. */
class DeadlockMonitorTest {
    private final ManualScheduler scheduler = new ManualScheduler();

    @Test
    void realDeadlockBetweenTwoThreadsIsDetectedWithBothNames() throws Exception {
        DeadlockMonitor monitor = DeadlockMonitor.builder().interval(Duration.ofSeconds(10)).build();
        ReentrantLock a = new ReentrantLock();
        ReentrantLock b = new ReentrantLock();
        CountDownLatch bothHoldOne = new CountDownLatch(2);
        Thread t1 = new Thread(() -> inverted(a, b, bothHoldOne), "test-deadlock-left");
        Thread t2 = new Thread(() -> inverted(b, a, bothHoldOne), "test-deadlock-right");
        t1.setDaemon(true);
        t2.setDaemon(true);
        try {
            monitor.start(scheduler.clock(), scheduler);
            assertThat(monitor.healthCheck().check()).isEqualTo(Health.up());

            t1.start();
            t2.start();
            assertThat(bothHoldOne.await(20, TimeUnit.SECONDS)).isTrue();
            await().atMost(Duration.ofSeconds(20)).until(() -> a.hasQueuedThreads() && b.hasQueuedThreads());

            assertThat(monitor.healthCheck().check().status()).as("no scan until the next interval").isEqualTo(Status.UP);
            scheduler.advance(Duration.ofSeconds(10));
            Health h = monitor.healthCheck().check();
            assertThat(h.status()).isEqualTo(Status.DOWN);
            assertThat(h.message()).hasValue("deadlock: 2 threads");
            assertThat(h.details()).containsEntry("threads", "test-deadlock-left, test-deadlock-right");
            assertThat(monitor.snapshot().orElseThrow().threadNames())
                    .containsExactly("test-deadlock-left", "test-deadlock-right");
        } finally {
            // lockInterruptibly lets the test break its own deadlock; nothing outlives the test.
            t1.interrupt();
            t2.interrupt();
            t1.join(20_000);
            t2.join(20_000);
            monitor.close();
        }
        assertThat(t1.isAlive() || t2.isAlive()).isFalse();
        DeadlockMonitor after = DeadlockMonitor.builder().build();
        after.start(scheduler.clock(), scheduler);
        assertThat(after.healthCheck().check().status()).isEqualTo(Status.UP);
        after.close();
    }

    private static void inverted(ReentrantLock first, ReentrantLock second, CountDownLatch bothHoldOne) {
        try {
            first.lockInterruptibly();
            try {
                bothHoldOne.countDown();
                if (!bothHoldOne.await(20, TimeUnit.SECONDS)) {
                    return;
                }
                second.lockInterruptibly();
                second.unlock();
            } finally {
                first.unlock();
            }
        } catch (InterruptedException e) {
            // the test breaks the deadlock this way
        }
    }

    @Test
    void aScanTheJvmRefusesIsDegradedWithAReasonCountedAndLoggedOnce() throws Exception {
        java.util.concurrent.atomic.AtomicBoolean restricted = new java.util.concurrent.atomic.AtomicBoolean(true);
        java.lang.management.ThreadMXBean real = java.lang.management.ManagementFactory.getThreadMXBean();
        // Restricted management access, as a security manager or a locked-down platform gives it.
        java.lang.management.ThreadMXBean refusing = (java.lang.management.ThreadMXBean) java.lang.reflect.Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {java.lang.management.ThreadMXBean.class}, (proxy, m, args) -> {
                    if (restricted.get() && m.getName().startsWith("find")) {
                        throw new SecurityException("access denied (\"java.lang.management.ManagementPermission\" \"monitor\")");
                    }
                    try {
                        return m.invoke(real, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        java.util.List<java.util.logging.LogRecord> logged = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.logging.Logger log = java.util.logging.Logger.getLogger("dev.vitals.monitor");
        java.util.logging.Handler capture = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord r) {
                logged.add(r);
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        log.addHandler(capture);
        java.util.logging.Level oldLevel = log.getLevel();
        log.setLevel(java.util.logging.Level.INFO);
        DeadlockMonitor monitor = DeadlockMonitor.builder().threads(refusing).interval(Duration.ofSeconds(10)).build();
        try {
            monitor.start(scheduler.clock(), scheduler);
            for (int i = 0; i < 5; i++) {
                scheduler.advance(Duration.ofSeconds(10));
            }
            Health h = monitor.healthCheck().check();
            assertThat(h.status()).as("unknown is neither UP nor a reason to restart").isEqualTo(Status.DEGRADED);
            assertThat(h.status().isHealthy()).isTrue();
            assertThat(h.message()).hasValueSatisfying(m -> assertThat(m)
                    .startsWith("deadlock detection unavailable: java.lang.SecurityException: access denied"));
            assertThat(h.details()).containsEntry("deadlocks", "unknown");
            assertThat(monitor.unavailableScans()).isEqualTo(6);
            assertThat(monitor.snapshot().orElseThrow().unavailable()).isPresent();
            assertThat(logged).as("logged once, no stack trace").hasSize(1);
            assertThat(logged.get(0).getThrown()).isNull();
            assertThat(logged.get(0).getLevel()).isEqualTo(java.util.logging.Level.WARNING);

            restricted.set(false);
            scheduler.advance(Duration.ofSeconds(10));
            assertThat(monitor.healthCheck().check()).isEqualTo(Health.up());
            assertThat(logged).hasSize(2);
            assertThat(logged.get(1).getLevel()).isEqualTo(java.util.logging.Level.INFO);
        } finally {
            monitor.close();
            log.removeHandler(capture);
            log.setLevel(oldLevel);
        }
    }
}
