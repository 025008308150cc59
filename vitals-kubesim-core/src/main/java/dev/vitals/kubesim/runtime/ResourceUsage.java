package dev.vitals.kubesim.runtime;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * One container instance's use of its cgroup, read from the cgroup's own counters when it exited
 * (v1: {@code cpuacct.usage}, {@code cpu.stat}, {@code memory.max_usage_in_bytes},
 * {@code memory.oom_control}; v2: {@code cpu.stat}, {@code memory.peak}, {@code memory.events}).
 * Immutable.
 *
 * @param cpu CPU time used by every process of the instance (empty when the cgroup has no CPU
 *        accounting)
 * @param periods CFS enforcement periods that had runnable work ({@code nr_periods})
 * @param throttledPeriods periods in which the quota ran out ({@code nr_throttled})
 * @param throttled time spent throttled ({@code throttled_time} / {@code throttled_usec})
 * @param memoryPeakBytes highest memory charged to the cgroup, when the kernel reports it
 * @param oomKills processes the kernel's OOM killer killed in the cgroup ({@code oom_kill})
 */
public record ResourceUsage(Optional<Duration> cpu, long periods, long throttledPeriods, Duration throttled,
        OptionalLong memoryPeakBytes, long oomKills) {

    /**
     * Validates the components.
     *
     * @param cpu CPU time used, empty without CPU accounting
     * @param periods CFS enforcement periods that had runnable work
     * @param throttledPeriods periods in which the quota ran out
     * @param throttled time spent throttled
     * @param memoryPeakBytes highest memory charged to the cgroup, when the kernel reports it
     * @param oomKills processes the kernel's OOM killer killed in the cgroup
     * @throws NullPointerException if a required component is null
     */
    public ResourceUsage {
        Objects.requireNonNull(cpu, "cpu");
        Objects.requireNonNull(throttled, "throttled");
        Objects.requireNonNull(memoryPeakBytes, "memoryPeakBytes");
    }

    /** Nothing read yet: no CPU accounting, no periods, no memory figure. */
    static final ResourceUsage NONE = new ResourceUsage(Optional.empty(), 0, 0, Duration.ZERO, OptionalLong.empty(), 0);

    /**
     * @param count a kernel counter
     * @param unitNanos nanoseconds per unit of the counter (1 for ns, 1000 for µs)
     * @return the counter as a duration
     */
    static Duration counter(long count, long unitNanos) {
        return Duration.ofNanos(count * unitNanos);
    }

    /** @return e.g. {@code cpu 4.21s, throttled 37 of 52 periods (3.10s), memory peak 181.3Mi} */
    public String describe() {
        StringBuilder sb = new StringBuilder();
        sb.append(cpu.map(c -> String.format(Locale.ROOT, "cpu %.2fs", c.toNanos() / 1e9)).orElse("cpu n/a"));
        sb.append(String.format(Locale.ROOT, ", throttled %d of %d periods (%.2fs)", throttledPeriods, periods, throttled.toNanos() / 1e9));
        memoryPeakBytes.ifPresent(b -> sb.append(String.format(Locale.ROOT, ", memory peak %.1fMi", b / 1048576.0)));
        if (oomKills > 0) {
            sb.append(", oom_kill ").append(oomKills);
        }
        return sb.toString();
    }
}
