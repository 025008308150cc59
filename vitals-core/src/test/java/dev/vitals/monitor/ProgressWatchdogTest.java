package dev.vitals.monitor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

import dev.vitals.Check;
import dev.vitals.Groups;
import dev.vitals.Health;
import dev.vitals.HealthRegistry;
import dev.vitals.Report;
import dev.vitals.Status;
import dev.vitals.testing.ManualScheduler;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** "Saturated but completing work" versus "stalled", on real pools and a manual clock. */
class ProgressWatchdogTest {
    private static final Duration STALL_AFTER = Duration.ofSeconds(60);
    private final Fixtures fx = new Fixtures();
    private final ManualScheduler scheduler = new ManualScheduler();

    @AfterEach
    void close() throws Exception {
        fx.close();
    }

    @Test
    void saturatedPoolThatStillCompletesWorkIsSaturatedButLive() throws Exception {
        ThreadPoolExecutor pool = fx.pool("busy", 4);
        Semaphore work = new Semaphore(0);
        Runnable slowRequest = () -> {
            try {
                work.tryAcquire(Fixtures.MAX_BLOCK_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
        for (int i = 0; i < 12; i++) {
            pool.execute(slowRequest);
        }
        Fixtures.awaitActive(pool, 4);
        SaturationMonitor saturation = fx.track(SaturationMonitor.builder("workers-saturation",
                SaturationSource.of(pool)).build());
        ProgressWatchdog watchdog = fx.track(ProgressWatchdog.builder("workers", ProgressSource.of(pool))
                .stallAfter(STALL_AFTER).build());
        saturation.start(scheduler.clock(), scheduler);
        watchdog.start(scheduler.clock(), scheduler);

        // Five minutes of manual time in which one slow request completes every 20 s and a new one
        // arrives: the pool stays at 4/4 with a queue, and keeps completing work.
        for (int step = 0; step < 15; step++) {
            long before = pool.getCompletedTaskCount();
            work.release();
            await().atMost(Duration.ofSeconds(20)).until(() -> pool.getCompletedTaskCount() > before);
            pool.execute(slowRequest);
            Fixtures.awaitActive(pool, 4);
            scheduler.advance(Duration.ofSeconds(20));

            assertThat(saturation.snapshot()).hasValue(SaturationSnapshot.of(4, 4, 8));
            assertThat(saturation.healthCheck().check().status()).isEqualTo(Status.DEGRADED);
            Health live = watchdog.healthCheck().check();
            assertThat(live.status()).as("step %d: %s", step, live).isEqualTo(Status.UP);
            assertThat(watchdog.snapshot().orElseThrow().stalled()).isFalse();
        }
    }

    @Test
    void poolWithEveryWorkerBlockedAndQueuedWorkStallsAfterStallAfter() throws Exception {
        ThreadPoolExecutor pool = fx.pool("stuck", 2);
        CountDownLatch never = fx.latch();
        for (int i = 0; i < 5; i++) {
            pool.execute(Fixtures.blockOn(never));
        }
        Fixtures.awaitActive(pool, 2);
        ProgressWatchdog watchdog = fx.track(ProgressWatchdog.builder("workers", ProgressSource.of(pool))
                .stallAfter(STALL_AFTER).build());
        watchdog.start(scheduler.clock(), scheduler);

        scheduler.advance(Duration.ofSeconds(59));
        assertThat(watchdog.healthCheck().check().status()).isEqualTo(Status.UP);
        assertThat(watchdog.snapshot().orElseThrow().withoutProgress()).isEqualTo(Duration.ofSeconds(59));

        scheduler.advance(Duration.ofSeconds(1));
        Health h = watchdog.healthCheck().check();
        assertThat(h.status()).isEqualTo(Status.DOWN);
        assertThat(h.message()).hasValue("stalled: no task completed for 60000 ms with 2 running and 3 queued");
        assertThat(h.details()).containsEntry("busy", 2L).containsEntry("queued", 3L)
                .containsEntry("completed", 0L).containsEntry("stallAfterMs", 60_000L);

        // The work resumes: the next sample sees completions and the watchdog recovers.
        never.countDown();
        await().atMost(Duration.ofSeconds(20)).until(() -> pool.getCompletedTaskCount() == 5);
        scheduler.advance(watchdog.interval());
        assertThat(watchdog.healthCheck().check().status()).isEqualTo(Status.UP);
    }

    @Test
    void stalledPoolTurnsRegistryLivenessDown() throws Exception {
        ThreadPoolExecutor pool = fx.pool("stuck", 2);
        CountDownLatch never = fx.latch();
        for (int i = 0; i < 3; i++) {
            pool.execute(Fixtures.blockOn(never));
        }
        Fixtures.awaitActive(pool, 2);
        ProgressWatchdog watchdog = fx.track(ProgressWatchdog.builder("workers", ProgressSource.of(pool))
                .stallAfter(STALL_AFTER).build());
        HealthRegistry registry = fx.track(HealthRegistry.builder().clock(scheduler.clock()).scheduler(scheduler)
                .register(watchdog.check().build()).build());
        watchdog.start(registry);
        registry.start();

        Fixtures.awaitStatus(registry, scheduler, Groups.LIVENESS, Status.UP);
        Fixtures.step(registry, scheduler, Groups.LIVENESS, STALL_AFTER.minusSeconds(5));
        assertThat(registry.report(Groups.LIVENESS).status()).isEqualTo(Status.UP);
        Report down = Fixtures.awaitStatus(registry, scheduler, Groups.LIVENESS, Status.DOWN);
        assertThat(down.checks().get("workers").message()).get().asString().startsWith("stalled:");
        assertThat(registry.report(Groups.READINESS).status()).as("a stall is a liveness matter").isEqualTo(Status.UP);
    }

    @Test
    void idleExecutorIsNeverStalled() throws Exception {
        AtomicLong busy = new AtomicLong();
        ProgressWatchdog watchdog = fx.track(ProgressWatchdog.builder("idle",
                ProgressSource.of(() -> 7, busy::get, () -> 0)).stallAfter(Duration.ofSeconds(10)).build());
        watchdog.start(scheduler.clock(), scheduler);
        scheduler.advance(Duration.ofMinutes(5));
        assertThat(watchdog.healthCheck().check().status()).isEqualTo(Status.UP);
        assertThat(watchdog.snapshot().orElseThrow().withoutProgress()).isZero();

        // Work arrives after a long idle period: the stall clock starts at the last idle sample.
        busy.set(1);
        scheduler.advance(Duration.ofSeconds(9));
        assertThat(watchdog.healthCheck().check().status()).isEqualTo(Status.UP);
        scheduler.advance(Duration.ofSeconds(2));
        assertThat(watchdog.healthCheck().check().status()).isEqualTo(Status.DOWN);
    }

    @Test
    void trackerWrappedForkJoinStyleExecutorIsWatchedInO1() throws Exception {
        ProgressTracker tracker = ProgressTracker.create(1);
        ThreadPoolExecutor single = fx.pool("loop", 1);
        CountDownLatch gate = fx.latch();
        tracker.wrap(single).execute(Fixtures.blockOn(gate));
        tracker.wrap(single).execute(() -> { });
        ProgressWatchdog watchdog = fx.track(ProgressWatchdog.builder("loop", tracker)
                .stallAfter(Duration.ofSeconds(5)).build());
        await().atMost(Duration.ofSeconds(20)).until(() -> tracker.sample().busy() == 1);
        watchdog.start(scheduler.clock(), scheduler);
        assertThat(watchdog.snapshot().orElseThrow().progress()).isEqualTo(ProgressSnapshot.of(0, 1, 1));
        scheduler.advance(Duration.ofSeconds(5));
        assertThat(watchdog.healthCheck().check().status()).isEqualTo(Status.DOWN);
        gate.countDown();
        await().atMost(Duration.ofSeconds(20)).until(() -> tracker.completedCount() == 2);
        scheduler.advance(Duration.ofSeconds(1));
        assertThat(watchdog.healthCheck().check().status()).isEqualTo(Status.UP);
    }

    @Test
    void trackerDoesNotCountRejectedTasksAndCountsThrowingTasksAsCompleted() {
        ProgressTracker tracker = ProgressTracker.create(1);
        java.util.concurrent.Executor rejecting = r -> {
            throw new java.util.concurrent.RejectedExecutionException("full");
        };
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> tracker.wrap(rejecting).execute(() -> { }))
                .isInstanceOf(java.util.concurrent.RejectedExecutionException.class);
        assertThat(tracker.sample()).isEqualTo(ProgressSnapshot.of(0, 0, 0));

        Runnable boom = tracker.track(() -> {
            throw new IllegalStateException("boom");
        });
        org.assertj.core.api.Assertions.assertThatThrownBy(boom::run).hasMessage("boom");
        assertThat(tracker.completedCount()).isEqualTo(1);
    }

    @Test
    void validationNamesTheMonitorAndTheBound() {
        assertThatIllegalArgumentException().isThrownBy(() -> ProgressWatchdog.builder("w", () -> null)
                .interval(Duration.ofSeconds(10)).stallAfter(Duration.ofSeconds(5)).build())
                .withMessage("monitor 'w': stallAfter must be at least interval (PT10S), was PT5S");
        assertThatIllegalArgumentException().isThrownBy(() -> ProgressWatchdog.builder("w", () -> null)
                .stallAfter(Duration.ofMillis(-1))).withMessageContaining("stallAfter must be at least 1 ms");
        assertThatIllegalArgumentException().isThrownBy(() -> ProgressTracker.create(0))
                .withMessage("capacity must be at least 1, was 0");
        assertThatIllegalArgumentException().isThrownBy(() -> ProgressSnapshot.of(-1, 0, 0))
                .withMessageContaining("must not be negative");
        Check c = ProgressWatchdog.builder("w", () -> null).build().check().build();
        assertThat(c.groups()).containsExactly(Groups.LIVENESS);
    }
}
