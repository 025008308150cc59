package dev.vitals.monitor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;
import static org.awaitility.Awaitility.await;

import dev.vitals.Check;
import dev.vitals.Groups;
import dev.vitals.Health;
import dev.vitals.Status;
import dev.vitals.testing.ManualScheduler;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Saturation figures of every built-in source, the warning level and the monitor lifecycle. */
class SaturationMonitorTest {
    private final Fixtures fx = new Fixtures();
    private final ManualScheduler scheduler = new ManualScheduler();

    @AfterEach
    void close() throws Exception {
        fx.close();
    }

    @Test
    void threadPoolFiguresAreBusyCapacityAndQueued() throws Exception {
        ThreadPoolExecutor pool = fx.pool("sat", 4);
        CountDownLatch gate = fx.latch();
        for (int i = 0; i < 10; i++) {
            pool.execute(Fixtures.blockOn(gate));
        }
        Fixtures.awaitActive(pool, 4);
        SaturationMonitor m = fx.track(SaturationMonitor.builder("workers", SaturationSource.of(pool)).build());
        m.start(scheduler.clock(), scheduler);

        assertThat(m.snapshot()).hasValue(SaturationSnapshot.of(4, 4, 6));
        Health h = m.healthCheck().check();
        assertThat(h.status()).isEqualTo(Status.DEGRADED);
        assertThat(h.details()).containsEntry("busy", 4L).containsEntry("capacity", 4L)
                .containsEntry("queued", 6L).containsEntry("saturation", 1.0).containsEntry("warnAt", 0.9);
        assertThat(h.message()).hasValue("saturated: 4/4 busy, 6 queued");

        gate.countDown();
        await().atMost(Duration.ofSeconds(20)).until(() -> pool.getActiveCount() == 0 && pool.getQueue().isEmpty());
        scheduler.advance(m.interval());
        assertThat(m.snapshot()).hasValue(SaturationSnapshot.of(0, 4, 0));
        assertThat(m.healthCheck().check().status()).isEqualTo(Status.UP);
    }

    @Test
    void belowTheWarningLevelIsUpAndAtItDegraded() throws Exception {
        AtomicLong busy = new AtomicLong(8);
        SaturationMonitor m = fx.track(SaturationMonitor.builder("limiter",
                SaturationSource.of(busy::get, () -> 10, () -> 0)).warnAt(0.9).build());
        m.start(scheduler.clock(), scheduler);
        assertThat(m.healthCheck().check().status()).isEqualTo(Status.UP);
        assertThat(m.healthCheck().check().details()).containsEntry("saturation", 0.8);

        busy.set(9);
        scheduler.advance(m.interval());
        assertThat(m.healthCheck().check().status()).isEqualTo(Status.DEGRADED);

        busy.set(-3); // a broken supplier is clamped, never a negative figure
        scheduler.advance(m.interval());
        assertThat(m.snapshot()).hasValue(SaturationSnapshot.of(0, 10, 0));
    }

    @Test
    void semaphoreLimiterCountsHeldPermitsAndWaiters() throws Exception {
        Semaphore limiter = new Semaphore(3);
        limiter.acquire(3);
        ThreadPoolExecutor waiters = fx.pool("waiters", 2);
        for (int i = 0; i < 2; i++) {
            waiters.execute(() -> {
                try {
                    if (limiter.tryAcquire(Fixtures.MAX_BLOCK_SECONDS, TimeUnit.SECONDS)) {
                        limiter.release();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> limiter.getQueueLength() == 2);

        assertThat(SaturationSource.of(limiter, 3).sample()).isEqualTo(SaturationSnapshot.of(3, 3, 2));
        limiter.release(3);
        await().atMost(Duration.ofSeconds(20)).until(() -> limiter.availablePermits() == 3);
        assertThat(SaturationSource.of(limiter, 3).sample()).isEqualTo(SaturationSnapshot.of(0, 3, 0));
    }

    @Test
    void forkJoinPoolReportsParallelismAsCapacity() throws Exception {
        ForkJoinPool fj = new ForkJoinPool(2);
        fx.track(() -> {
            fj.shutdownNow();
            fj.awaitTermination(10, TimeUnit.SECONDS);
        });
        CountDownLatch gate = fx.latch();
        for (int i = 0; i < 2; i++) {
            fj.execute(Fixtures.blockOn(gate));
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> fj.getActiveThreadCount() == 2);
        SaturationSnapshot s = SaturationSource.of(fj).sample();
        assertThat(s.capacity()).isEqualTo(2);
        assertThat(s.busy()).isEqualTo(2);
        assertThat(s.saturation()).isEqualTo(1.0);
        gate.countDown();
        await().atMost(Duration.ofSeconds(20)).until(() -> SaturationSource.of(fj).sample().busy() == 0);
    }

    @Test
    void trackerIsAnO1SourceOfSaturation() throws Exception {
        ProgressTracker tracker = ProgressTracker.create(2);
        ThreadPoolExecutor pool = fx.pool("tracked", 2);
        CountDownLatch gate = fx.latch();
        for (int i = 0; i < 5; i++) {
            tracker.wrap(pool).execute(Fixtures.blockOn(gate));
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> tracker.saturationSource().sample().busy() == 2);
        assertThat(tracker.saturationSource().sample()).isEqualTo(SaturationSnapshot.of(2, 2, 3));
        gate.countDown();
        await().atMost(Duration.ofSeconds(20)).until(() -> tracker.completedCount() == 5);
        assertThat(tracker.sample()).isEqualTo(ProgressSnapshot.of(5, 0, 0));
    }

    @Test
    void snapshotRulesAndValidation() {
        assertThat(SaturationSnapshot.of(0, 0, 0).saturation()).isEqualTo(0.0);
        assertThat(SaturationSnapshot.of(0, 0, 1).saturation()).isEqualTo(1.0);
        assertThat(SaturationSnapshot.of(12, 10, 0).saturation()).isEqualTo(1.0);
        assertThatIllegalArgumentException().isThrownBy(() -> SaturationSnapshot.of(-1, 1, 0))
                .withMessageContaining("must not be negative");
        assertThatIllegalArgumentException().isThrownBy(() -> SaturationSource.of(new Semaphore(1), 0))
                .withMessage("permits must be at least 1, was 0");
        assertThatNullPointerException().isThrownBy(() -> SaturationSource.of((ThreadPoolExecutor) null))
                .withMessage("pool");
        assertThatIllegalArgumentException().isThrownBy(() -> SaturationMonitor.builder("x", () -> null).warnAt(0))
                .withMessage("monitor 'x': warnAt must be above 0.0 and at most 1.0, was 0.0");
        assertThatIllegalArgumentException().isThrownBy(() -> SaturationMonitor.builder("x", () -> null).warnAt(1.5))
                .withMessageContaining("was 1.5");
        assertThatIllegalArgumentException().isThrownBy(() -> SaturationMonitor.builder("x", () -> null)
                .interval(Duration.ZERO)).withMessage("monitor 'x': interval must be at least 1 ms, was PT0S");
        assertThatIllegalArgumentException().isThrownBy(() -> SaturationMonitor.builder("a b", () -> null))
                .withMessageContaining("may hold only letters");
        assertThatNullPointerException().isThrownBy(() -> SaturationMonitor.builder("x", null)).withMessage("source");
    }

    @Test
    void notStartedAndClosedMonitorsAreUnknownAndCannotRestart() throws Exception {
        SaturationMonitor m = SaturationMonitor.builder("workers", () -> SaturationSnapshot.of(1, 2, 0)).build();
        assertThat(m.healthCheck().check()).isEqualTo(Health.unknown("monitor not started"));
        assertThat(m.isRunning()).isFalse();
        m.start(scheduler.clock(), scheduler);
        assertThat(m.isRunning()).isTrue();
        assertThatIllegalStateException().isThrownBy(() -> m.start(scheduler.clock(), scheduler))
                .withMessage("monitor 'workers' is already started");
        m.close();
        m.close();
        assertThat(m.healthCheck().check()).isEqualTo(Health.unknown("monitor closed"));
        assertThat(scheduler.pending()).as("the next sample was cancelled").isZero();
        assertThatIllegalStateException().isThrownBy(() -> m.start(scheduler.clock(), scheduler))
                .withMessage("monitor 'workers' is closed");
    }

    @Test
    void aFailingSourceSkipsTheSampleAndTheScheduleGoesOn() throws Exception {
        AtomicLong calls = new AtomicLong();
        SaturationMonitor m = fx.track(SaturationMonitor.builder("flaky", () -> {
            if (calls.incrementAndGet() == 2) {
                throw new IllegalStateException("source unavailable");
            }
            return SaturationSnapshot.of(calls.get(), 10, 0);
        }).build());
        m.start(scheduler.clock(), scheduler);
        scheduler.advance(m.interval());
        assertThat(m.snapshot().orElseThrow().busy()).as("the first sample is kept").isEqualTo(1);
        scheduler.advance(m.interval());
        assertThat(m.snapshot().orElseThrow().busy()).isEqualTo(3);
    }

    @Test
    void checkRegistrationDefaultsToReadinessNeverLiveness() {
        SaturationMonitor m = SaturationMonitor.builder("workers", () -> SaturationSnapshot.of(0, 1, 0)).build();
        Check c = m.check().build();
        assertThat(c.name()).isEqualTo("workers");
        assertThat(c.groups()).containsExactly(Groups.READINESS);
        assertThat(c.interval()).isEqualTo(Duration.ofSeconds(1));
        assertThat(c.maxAge()).isEqualTo(Duration.ofSeconds(30));
    }
}
