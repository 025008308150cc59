package dev.vitals.monitor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.vitals.Health;
import dev.vitals.HealthCheck;
import dev.vitals.Status;
import dev.vitals.testing.ManualScheduler;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Heartbeat lag of an executor or scheduler, on a real thread and a manual clock. */
class LagMonitorTest {
    private final Fixtures fx = new Fixtures();
    private final ManualScheduler scheduler = new ManualScheduler();

    @AfterEach
    void close() throws Exception {
        fx.close();
    }

    @Test
    void executorBlockedForABoundedPeriodShowsLagAtLeastTheBlockThenRecovers() throws Exception {
        ThreadPoolExecutor loop = fx.pool("loop", 1);
        LagMonitor lag = fx.track(LagMonitor.forExecutor("loop", loop)
                .interval(Duration.ofSeconds(1)).stallAfter(Duration.ofSeconds(30)).build());
        lag.start(scheduler.clock(), scheduler);
        Fixtures.drain(loop);
        scheduler.advance(Duration.ofSeconds(1));
        assertThat(lag.snapshot().orElseThrow().current()).isZero();

        // Block the loop for 5 s of (manual) time, once the beat posted at 1 s has run.
        Fixtures.drain(loop);
        CountDownLatch release = fx.latch();
        loop.execute(Fixtures.blockOn(release));
        scheduler.advance(Duration.ofSeconds(1)); // records the previous beat, posts one behind the block
        for (int i = 0; i < 5; i++) {
            scheduler.advance(Duration.ofSeconds(1));
        }
        LagSnapshot blocked = lag.snapshot().orElseThrow();
        assertThat(blocked.pending()).isTrue();
        assertThat(blocked.current()).isGreaterThanOrEqualTo(Duration.ofSeconds(5));
        Health readiness = lag.healthCheck(Duration.ofSeconds(2)).check();
        assertThat(readiness.status()).as("a lower bound for readiness").isEqualTo(Status.DOWN);
        assertThat(lag.healthCheck().check().status()).as("liveness waits for the stall bound").isEqualTo(Status.UP);

        release.countDown();
        Fixtures.drain(loop);
        scheduler.advance(Duration.ofSeconds(1));
        LagSnapshot after = lag.snapshot().orElseThrow();
        assertThat(after.current()).as("the blocked beat ran at least 5 s late").isGreaterThanOrEqualTo(Duration.ofSeconds(5));
        assertThat(after.max()).isGreaterThanOrEqualTo(Duration.ofSeconds(5));
        assertThat(after.pending()).isFalse();

        // Recovery: later beats run on time, so the current lag drops back to zero while the
        // window's maximum still remembers the block.
        Fixtures.drain(loop);
        scheduler.advance(Duration.ofSeconds(1));
        LagSnapshot recovered = lag.snapshot().orElseThrow();
        assertThat(recovered.current()).isZero();
        assertThat(recovered.max()).isGreaterThanOrEqualTo(Duration.ofSeconds(5));
        assertThat(lag.healthCheck(Duration.ofSeconds(2)).check().status()).isEqualTo(Status.UP);

        // After the window has passed, the maximum forgets it too.
        for (int i = 0; i < 70; i++) {
            Fixtures.drain(loop);
            scheduler.advance(Duration.ofSeconds(1));
        }
        assertThat(lag.snapshot().orElseThrow().max()).isLessThan(Duration.ofSeconds(1));
        assertThat(lag.snapshot().orElseThrow().count()).isGreaterThan(50);
    }

    @Test
    void livenessFailsOnlyWhenAHeartbeatIsPendingLongerThanTheStallBound() throws Exception {
        ThreadPoolExecutor loop = fx.pool("stuck-loop", 1);
        CountDownLatch release = fx.latch();
        loop.execute(Fixtures.blockOn(release));
        Fixtures.awaitActive(loop, 1);
        LagMonitor lag = fx.track(LagMonitor.forExecutor("loop", loop).stallAfter(Duration.ofSeconds(30)).build());
        lag.start(scheduler.clock(), scheduler);

        scheduler.advance(Duration.ofSeconds(29));
        assertThat(lag.healthCheck().check().status()).isEqualTo(Status.UP);
        assertThat(loop.getQueue()).as("one heartbeat at most is outstanding").hasSize(1);
        scheduler.advance(Duration.ofSeconds(1));
        Health h = lag.healthCheck().check();
        assertThat(h.status()).isEqualTo(Status.DOWN);
        assertThat(h.message()).hasValue("stalled: heartbeat pending for 30000 ms");
        assertThat(h.details()).containsEntry("pendingMs", 30_000L).containsEntry("stallAfterMs", 30_000L);

        release.countDown();
        Fixtures.drain(loop);
        scheduler.advance(Duration.ofSeconds(1));
        assertThat(lag.healthCheck().check().status()).isEqualTo(Status.UP);
    }

    @Test
    void scheduledExecutorIsWatchedThroughItsTimerQueue() throws Exception {
        ScheduledThreadPoolExecutor timers = new ScheduledThreadPoolExecutor(1);
        fx.track(() -> {
            timers.shutdownNow();
            timers.awaitTermination(10, TimeUnit.SECONDS);
        });
        CountDownLatch release = fx.latch();
        timers.execute(Fixtures.blockOn(release));
        LagMonitor lag = fx.track(LagMonitor.forScheduler("timers", timers).stallAfter(Duration.ofSeconds(3)).build());
        lag.start(scheduler.clock(), scheduler);
        scheduler.advance(Duration.ofSeconds(3));
        assertThat(lag.healthCheck().check().status()).isEqualTo(Status.DOWN);
        release.countDown();
        timers.schedule(() -> { }, 0, TimeUnit.NANOSECONDS).get(20, TimeUnit.SECONDS);
        scheduler.advance(Duration.ofSeconds(1));
        assertThat(lag.snapshot().orElseThrow().current()).isGreaterThanOrEqualTo(Duration.ofSeconds(3));
        assertThat(lag.healthCheck().check().status()).isEqualTo(Status.UP);
    }

    @Test
    void rejectedHeartbeatCountsAsPendingAndIsRetried() throws Exception {
        AtomicBoolean reject = new AtomicBoolean(true);
        AtomicInteger posts = new AtomicInteger();
        Executor shutDown = r -> {
            posts.incrementAndGet();
            if (reject.get()) {
                throw new RejectedExecutionException("shut down");
            }
            r.run();
        };
        LagMonitor lag = fx.track(LagMonitor.forExecutor("dead", shutDown).stallAfter(Duration.ofSeconds(5)).build());
        lag.start(scheduler.clock(), scheduler);
        scheduler.advance(Duration.ofSeconds(5));
        assertThat(lag.healthCheck().check().status()).isEqualTo(Status.DOWN);
        assertThat(posts.get()).as("retried once per interval").isEqualTo(6);
        reject.set(false);
        scheduler.advance(Duration.ofSeconds(2));
        assertThat(lag.healthCheck().check().status()).isEqualTo(Status.UP);
    }

    @Test
    void heartbeatOnTheWatchedThreadAllocatesNothingAndPostsNothingWhilePending() throws Exception {
        AtomicInteger posts = new AtomicInteger();
        Runnable[] held = new Runnable[1];
        LagMonitor lag = fx.track(LagMonitor.forExecutor("held", r -> {
            posts.incrementAndGet();
            held[0] = r;
        }).build());
        lag.start(scheduler.clock(), scheduler);
        scheduler.advance(Duration.ofSeconds(10));
        assertThat(posts.get()).isEqualTo(1);
        Runnable first = held[0];
        first.run();
        scheduler.advance(Duration.ofSeconds(1));
        assertThat(held[0]).as("the same heartbeat instance is reused").isSameAs(first);
        assertThat(lag.snapshot().orElseThrow().p99()).isGreaterThanOrEqualTo(Duration.ofSeconds(10));
    }

    @Test
    void validation() throws Exception {
        assertThatIllegalArgumentException().isThrownBy(() -> LagMonitor.forExecutor("l", Runnable::run)
                .interval(Duration.ofSeconds(5)).stallAfter(Duration.ofSeconds(1)).build())
                .withMessage("monitor 'l': stallAfter must be at least interval (PT5S), was PT1S");
        assertThatIllegalArgumentException().isThrownBy(() -> LagMonitor.forExecutor("l", Runnable::run)
                .window(Duration.ofMillis(500))).withMessage("monitor 'l': window must be at least 1000 ms, was PT0.5S");
        LagMonitor m = LagMonitor.forExecutor("l", Runnable::run).build();
        assertThatIllegalArgumentException().isThrownBy(() -> m.healthCheck(Duration.ZERO))
                .withMessage("monitor 'l': failAt must be at least 1 ms, was PT0S");
        HealthCheck bounded = m.healthCheck(Duration.ofSeconds(1));
        assertThat(m.check().build().groups()).containsExactly("liveness");
        // The bounded check answers with the monitor's lifecycle, then with its own bound.
        assertThat(bounded.check()).isEqualTo(Health.unknown("monitor not started"));
        m.start(scheduler.clock(), scheduler); // Runnable::run: every heartbeat runs at once, no lag
        Health h = bounded.check();
        assertThat(h.status()).isEqualTo(Status.UP);
        assertThat(h.details()).containsEntry("failAtMs", 1_000L).containsEntry("lagMs", 0L)
                .doesNotContainKey("stallAfterMs");
        assertThat(m.healthCheck().check().details()).containsEntry("stallAfterMs", 60_000L);
        m.close();
        assertThat(bounded.check()).isEqualTo(Health.unknown("monitor closed"));
    }
}
