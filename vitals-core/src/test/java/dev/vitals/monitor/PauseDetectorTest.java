package dev.vitals.monitor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

import dev.vitals.Check;
import dev.vitals.Clock;
import dev.vitals.Health;
import dev.vitals.HealthRegistry;
import dev.vitals.Status;
import dev.vitals.testing.ManualScheduler;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The pause detector's figures from set overshoots, and its real measuring thread. */
class PauseDetectorTest {
    private static final long MS = 1_000_000L;
    private final ManualScheduler scheduler = new ManualScheduler();

    @Test
    void recordsOvershootsAndListsTheLongestNotablePauses() throws Exception {
        PauseDetector d = PauseDetector.builder().warnAbove(Duration.ofMillis(500)).build();
        // Drive the figures directly: the detector's own thread measures real sleeps.
        long wall = 1_767_225_600_000L;
        for (int i = 0; i < 1000; i++) {
            d.record(i * 10 * MS, 1 * MS, wall);
        }
        long[] pauses = {30, 700, 25, 120, 45, 90, 15};
        for (int i = 0; i < pauses.length; i++) {
            d.record(10_000 * MS + i * MS, pauses[i] * MS, wall + i);
        }
        d.sample(10_100 * MS);
        PauseSnapshot s = d.snapshot().orElseThrow();
        assertThat(s.max()).isEqualTo(Duration.ofMillis(700));
        assertThat(s.samples()).isEqualTo(1007);
        assertThat(s.p50()).isLessThanOrEqualTo(Duration.ofMillis(2));
        assertThat(s.longest()).extracting(p -> p.duration().toMillis()).containsExactly(700L, 120L, 90L, 45L, 30L);
        assertThat(s.longest().get(0).endedAt().toEpochMilli()).isEqualTo(wall + 1);

        d.start(scheduler.clock(), scheduler);
        try {
            // Started on the manual clock (at 0): figures recorded now count at the next sample.
            d.record(0, 800 * MS, wall);
            scheduler.advance(d.interval());
            Health h = d.healthCheck().check();
            assertThat(h.status()).as("a pause only degrades, by default").isEqualTo(Status.DEGRADED);
            assertThat(h.details()).containsKeys("maxMs", "p99Ms", "p999Ms", "samples", "warnAboveMs");
        } finally {
            d.close();
        }
    }

    @Test
    void measuringThreadIsANamedDaemonThatStopsOnClose() throws Exception {
        HealthRegistry registry = HealthRegistry.builder().build();
        PauseDetector d = PauseDetector.builder("jvm").resolution(Duration.ofMillis(1))
                .interval(Duration.ofMillis(20)).build();
        try {
            d.start(Clock.SYSTEM, registry.scheduler());
            Thread t = d.thread().orElseThrow();
            assertThat(t.getName()).isEqualTo("vitals-pause-jvm");
            assertThat(t.isDaemon()).isTrue();
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> d.snapshot().map(PauseSnapshot::samples).orElse(0L) > 20);
            assertThat(d.healthCheck().check().status()).isIn(Status.UP, Status.DEGRADED);
            d.close();
            t.join(20_000);
            assertThat(t.isAlive()).isFalse();
        } finally {
            d.close();
            registry.close();
        }
    }

    @Test
    void registersAsANonCriticalReadinessCheckAndValidates() {
        Check c = PauseDetector.builder().build().check().build();
        assertThat(c.critical()).isFalse();
        assertThat(c.groups()).containsExactly("readiness");
        assertThatIllegalArgumentException().isThrownBy(() -> PauseDetector.builder().resolution(Duration.ofSeconds(2)))
                .withMessage("monitor 'pauses': resolution must be at most 1000 ms, was PT2S");
        assertThatIllegalArgumentException().isThrownBy(() -> PauseDetector.builder().resolution(Duration.ZERO))
                .withMessage("monitor 'pauses': resolution must be at least 1 ms, was PT0S");
    }
}
