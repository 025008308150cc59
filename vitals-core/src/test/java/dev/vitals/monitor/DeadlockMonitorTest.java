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
}
