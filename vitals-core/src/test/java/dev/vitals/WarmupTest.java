package dev.vitals;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vitals.testing.ManualScheduler;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Warm-up readiness: DOWN until the routine ran or N requests were fast, bounded by maxWait. */
class WarmupTest {
    private final ManualScheduler scheduler = new ManualScheduler();
    private HealthRegistry registry;

    @AfterEach
    void close() {
        if (registry != null) {
            registry.close();
        }
    }

    @Test
    void readinessStaysDownUntilEnoughRequestsWereFastThenUp() {
        Warmup w = Warmup.builder().requests(3, Duration.ofMillis(50)).maxWait(Duration.ofSeconds(60)).clock(scheduler.clock()).build();
        registry = HealthRegistry.builder().clock(scheduler.clock()).scheduler(scheduler).register(w.check()).build();
        registry.start();
        scheduler.advance(Duration.ofSeconds(1));
        assertThat(registry.report(Groups.READINESS).status()).isEqualTo(Status.DOWN);
        assertThat(w.health().message()).hasValue("warm-up not started");
        w.start();
        w.recordRequest(Duration.ofMillis(400)); // a cold request: does not count
        w.recordRequest(Duration.ofMillis(20));
        w.recordRequest(Duration.ofMillis(50));
        scheduler.advance(Duration.ofSeconds(2));
        assertThat(registry.report(Groups.READINESS).status()).isEqualTo(Status.DOWN);
        assertThat(registry.report(Groups.READINESS).checks().get("warmup").message())
                .hasValue("warming up for 2.0 s of 60.0 s: 2 of 3 requests within 50 ms (1 slower)");
        w.recordRequest(Duration.ofMillis(10));
        scheduler.advance(Duration.ofSeconds(1));
        assertThat(registry.report(Groups.READINESS).status()).isEqualTo(Status.UP);
        assertThat(w.warm()).isTrue();
        // once warm it stays warm: slow requests later are load, not a cold JVM
        w.recordRequest(Duration.ofSeconds(5));
        scheduler.advance(Duration.ofSeconds(1));
        assertThat(registry.report(Groups.READINESS).status()).isEqualTo(Status.UP);
    }

    @Test
    void theMaximumWaitEndsTheWaitAsDegradedNeverDownForever() {
        Warmup w = Warmup.builder().requests(100, Duration.ofMillis(50)).maxWait(Duration.ofSeconds(30)).clock(scheduler.clock()).build();
        w.start();
        scheduler.advance(Duration.ofSeconds(29));
        assertThat(w.health().status()).isEqualTo(Status.DOWN);
        scheduler.advance(Duration.ofSeconds(1));
        Health h = w.health();
        assertThat(h.status()).isEqualTo(Status.DEGRADED);
        assertThat(h.message()).hasValue("warm-up incomplete after 30.0 s: 0 of 100 requests within 50 ms (0 slower)");
        assertThat(w.warm()).isFalse();
    }

    @Test
    void aRoutineRunsOnceOnItsOwnThreadAndReadinessWaitsForIt() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        String[] thread = new String[1];
        Warmup w = Warmup.builder().routine(() -> {
            thread[0] = Thread.currentThread().getName();
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }).maxWait(Duration.ofMinutes(5)).clock(scheduler.clock()).build();
        w.start();
        w.start(); // a second start does nothing
        assertThat(w.health().status()).isEqualTo(Status.DOWN);
        assertThat(w.health().message()).hasValue("warming up for 0.0 s of 300.0 s: routine running");
        release.countDown();
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(w::warm);
        assertThat(w.health()).isEqualTo(Health.up());
        assertThat(thread[0]).isEqualTo("vitals-warmup");
    }

    @Test
    void aRoutineThatThrowsCountsAsRunAndReadsDegraded() {
        Warmup w = Warmup.builder().routine(() -> {
            throw new IllegalStateException("cache service unreachable");
        }).maxWait(Duration.ofSeconds(60)).clock(scheduler.clock()).build();
        w.runRoutine();
        assertThat(w.warm()).isTrue();
        assertThat(w.health().status()).isEqualTo(Status.DEGRADED);
        assertThat(w.health().message()).hasValue("warm-up routine failed: java.lang.IllegalStateException");
    }

    @Test
    void markWarmIsTheApplicationsOwnSignal() {
        Warmup w = Warmup.builder().maxWait(Duration.ofSeconds(60)).clock(scheduler.clock()).build();
        w.start();
        assertThat(w.health().message()).hasValue("warming up for 0.0 s of 60.0 s: waiting for markWarm()");
        w.markWarm();
        assertThat(w.health()).isEqualTo(Health.up());
    }

    @Test
    void badSettingsNameTheField() {
        assertThatThrownBy(() -> Warmup.builder().build()).hasMessage("warmup 'warmup': maxWait is required (readiness must not wait forever)");
        assertThatThrownBy(() -> Warmup.builder().maxWait(Duration.ZERO).build()).hasMessage("warmup 'warmup': maxWait must be 1 ms to 1 h, was PT0S");
        assertThatThrownBy(() -> Warmup.builder().requests(0, Duration.ofMillis(5)).maxWait(Duration.ofSeconds(1)).build())
                .hasMessage("warmup 'warmup': requests must be at least 1, was 0");
        assertThatThrownBy(() -> Warmup.builder().requests(5, Duration.ZERO).maxWait(Duration.ofSeconds(1)).build())
                .hasMessage("warmup 'warmup': normalLatency must be at least 1 ms, was PT0S");
        assertThatThrownBy(() -> Warmup.builder().name("no spaces").maxWait(Duration.ofSeconds(1)).build())
                .isInstanceOf(IllegalArgumentException.class);
    }
}
