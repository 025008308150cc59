package dev.vitals.monitor;

import dev.vitals.Groups;
import dev.vitals.Health;
import dev.vitals.Status;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Heap usage after the last garbage collection, against a threshold. Each sample sums
 * {@link MemoryPoolMXBean#getCollectionUsage()} over the heap pools that report one (memory
 * used just after that pool's latest collection, which is what is really live; usage between
 * collections says little) and divides by the maximum heap
 * ({@link java.lang.management.MemoryMXBean#getHeapMemoryUsage()}{@code .getMax()}, or the
 * committed heap when no maximum is defined).
 *
 * <p>Whether a pool's collection usage is refreshed by every collection depends on the collector
 * (for example, with G1 on some JDKs the old generation's figure changes only after mixed or full
 * collections), so the figure is "after the latest collection of each pool".
 *
 * <p>The check is {@link Status#UP} below the threshold and {@code onBreach} (default
 * {@link Status#DEGRADED}, configurable to {@link Status#DOWN}) at or above it. Details:
 * {@code usedAfterGcBytes}, {@code maxBytes}, {@code ratio}, {@code threshold}. {@link #check()}
 * registers in {@code liveness}: a heap full of live objects (a leak) is cured by a restart; with
 * the default DEGRADED it only shows, with DOWN it restarts the container.
 *
 * <p>Cost: one call per heap pool (a handful) and one heap usage read, every interval (default
 * 5 s), on Vitals' scheduler. Thread-safe. Defaults: threshold 0.9, onBreach DEGRADED.
 */
public final class MemoryMonitor extends AbstractMonitor<MemorySnapshot> {
    /** Default time between samples: 5 s. */
    public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(5);
    /** Default threshold on used-after-GC ÷ max heap: 0.9. */
    public static final double DEFAULT_THRESHOLD = 0.9;

    private final Supplier<MemorySnapshot> reader;
    private final double threshold;
    private final Status onBreach;

    private MemoryMonitor(Builder b) {
        super(b);
        this.reader = b.reader != null ? b.reader : heapReader();
        this.threshold = b.threshold;
        this.onBreach = b.onBreach;
    }

    /** @return a builder named {@code memory} with the defaults */
    public static Builder builder() {
        return builder("memory");
    }

    /**
     * @param name the monitor's (and its check's) name: letters, digits, {@code . _ -}
     * @return a builder with the defaults
     * @throws NullPointerException if {@code name} is null
     * @throws IllegalArgumentException if {@code name} is blank or has other characters
     */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    /** Reads the running JVM's heap pools. */
    static Supplier<MemorySnapshot> heapReader() {
        List<MemoryPoolMXBean> pools = new ArrayList<>();
        for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
            if (p.getType() == MemoryType.HEAP && p.isCollectionUsageThresholdSupported()) {
                pools.add(p);
            }
        }
        List<MemoryPoolMXBean> heapPools = List.copyOf(pools);
        java.lang.management.MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        return () -> {
            long used = 0;
            for (MemoryPoolMXBean p : heapPools) {
                MemoryUsage u = p.getCollectionUsage();
                if (u != null && p.isValid()) {
                    used += u.getUsed();
                }
            }
            MemoryUsage heap = memory.getHeapMemoryUsage();
            long max = heap.getMax() > 0 ? heap.getMax() : Math.max(1, heap.getCommitted());
            return MemorySnapshot.of(used, max);
        };
    }

    /** @return the threshold on used-after-GC ÷ max heap */
    public double threshold() {
        return threshold;
    }

    @Override
    String defaultGroup() {
        return Groups.LIVENESS;
    }

    @Override
    void sample(long now) {
        publish(Objects.requireNonNull(reader.get(), "memory reader returned null"));
    }

    @Override
    Health assess(MemorySnapshot s) {
        boolean breach = s.ratio() >= threshold;
        Health.Builder b = Health.builder(breach ? onBreach : Status.UP)
                .detail("usedAfterGcBytes", s.usedAfterGc())
                .detail("maxBytes", s.max())
                .detail("ratio", s.ratio())
                .detail("threshold", threshold);
        if (breach) {
            b.message(String.format(java.util.Locale.ROOT, "heap after GC at %.1f%% of max (threshold %.1f%%)",
                    s.ratio() * 100, threshold * 100));
        }
        return b.build();
    }

    @Override
    String settings() {
        return "threshold=" + threshold + ", onBreach=" + onBreach;
    }

    /** Builds a {@link MemoryMonitor}. Not thread-safe. */
    public static final class Builder extends AbstractMonitor.Builder<Builder> {
        private double threshold = DEFAULT_THRESHOLD;
        private Status onBreach = Status.DEGRADED;
        private Supplier<MemorySnapshot> reader;

        private Builder(String name) {
            super(name, DEFAULT_INTERVAL, Duration.ofMillis(1));
        }

        /**
         * @param threshold used-after-GC ÷ max heap at or above which the check reports
         *     {@code onBreach}, above 0.0 and at most 1.0; default 0.9
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder threshold(double threshold) {
            this.threshold = requireFraction(name, "threshold", threshold);
            return this;
        }

        /**
         * @param onBreach the status at or above the threshold: {@link Status#DEGRADED} (default)
         *     or {@link Status#DOWN}
         * @return this builder
         * @throws NullPointerException if {@code onBreach} is null
         * @throws IllegalArgumentException if it is UP or UNKNOWN
         */
        public Builder onBreach(Status onBreach) {
            Objects.requireNonNull(onBreach, "onBreach");
            if (onBreach != Status.DEGRADED && onBreach != Status.DOWN) {
                throw new IllegalArgumentException("monitor '" + name + "': onBreach must be DEGRADED or DOWN, was "
                        + onBreach);
            }
            this.onBreach = onBreach;
            return this;
        }

        /** For tests: read figures from {@code reader} instead of the JVM. */
        Builder reader(Supplier<MemorySnapshot> reader) {
            this.reader = Objects.requireNonNull(reader, "reader");
            return this;
        }

        /** @return the monitor, not started */
        public MemoryMonitor build() {
            return new MemoryMonitor(this);
        }
    }
}
