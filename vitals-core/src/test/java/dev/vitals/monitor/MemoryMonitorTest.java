package dev.vitals.monitor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.vitals.Groups;
import dev.vitals.Health;
import dev.vitals.Status;
import dev.vitals.testing.ManualScheduler;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Heap after GC against a threshold: the real JVM's pools, and set figures for the rule. */
class MemoryMonitorTest {
    private final ManualScheduler scheduler = new ManualScheduler();

    @Test
    void readsTheRealHeapAfterACollection() throws Exception {
        System.gc(); // so that every heap pool has a collection usage
        MemorySnapshot s = MemoryMonitor.heapReader().get();
        assertThat(s.max()).isPositive();
        assertThat(s.usedAfterGc()).as("something survives a full collection").isPositive();
        assertThat(s.ratio()).isBetween(0.0, 1.0);

        // A threshold below what is live now must breach; DOWN by configuration.
        double tiny = Math.max(Double.MIN_VALUE, s.ratio() / 100);
        MemoryMonitor m = MemoryMonitor.builder().threshold(tiny).onBreach(Status.DOWN).build();
        m.start(scheduler.clock(), scheduler);
        try {
            Health h = m.healthCheck().check();
            assertThat(h.status()).isEqualTo(Status.DOWN);
            assertThat(h.details()).containsKeys("usedAfterGcBytes", "maxBytes", "ratio", "threshold");
        } finally {
            m.close();
        }
    }

    @Test
    void degradedByDefaultAtOrAboveTheThresholdUpBelow() throws Exception {
        AtomicLong used = new AtomicLong(80);
        MemoryMonitor m = MemoryMonitor.builder().threshold(0.9)
                .reader(() -> MemorySnapshot.of(used.get(), 100)).build();
        m.start(scheduler.clock(), scheduler);
        assertThat(m.healthCheck().check().status()).isEqualTo(Status.UP);
        used.set(90);
        scheduler.advance(m.interval());
        Health h = m.healthCheck().check();
        assertThat(h.status()).isEqualTo(Status.DEGRADED);
        assertThat(h.message()).hasValue("heap after GC at 90.0% of max (threshold 90.0%)");
        assertThat(m.check().build().groups()).containsExactly(Groups.LIVENESS);
        m.close();
    }

    @Test
    void validation() {
        assertThatIllegalArgumentException().isThrownBy(() -> MemoryMonitor.builder().onBreach(Status.UP))
                .withMessage("monitor 'memory': onBreach must be DEGRADED or DOWN, was UP");
        assertThatIllegalArgumentException().isThrownBy(() -> MemoryMonitor.builder().threshold(0))
                .withMessage("monitor 'memory': threshold must be above 0.0 and at most 1.0, was 0.0");
        assertThatIllegalArgumentException().isThrownBy(() -> MemorySnapshot.of(1, 0))
                .withMessageContaining("max at least 1");
    }
}
