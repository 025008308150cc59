package dev.vitals.kubesim.runtime;

import java.util.Locale;
import java.util.OptionalLong;

/**
 * One container instance's use of its cgroup, read from the cgroup's own counters when it exited
 * (v1: {@code cpuacct.usage}, {@code cpu.stat}, {@code memory.max_usage_in_bytes},
 * {@code memory.oom_control}; v2: {@code cpu.stat}, {@code memory.peak}, {@code memory.events}).
 * Immutable.
 *
 * @param cpuSeconds CPU time used by every process of the instance, in seconds (-1 when the
 *        cgroup has no CPU accounting)
 * @param periods CFS enforcement periods that had runnable work ({@code nr_periods})
 * @param throttledPeriods periods in which the quota ran out ({@code nr_throttled})
 * @param throttledSeconds time spent throttled ({@code throttled_time} / {@code throttled_usec}), seconds
 * @param memoryPeakBytes highest memory charged to the cgroup, when the kernel reports it
 * @param oomKills processes the kernel's OOM killer killed in the cgroup ({@code oom_kill})
 */
public record ResourceUsage(double cpuSeconds, long periods, long throttledPeriods, double throttledSeconds,
        OptionalLong memoryPeakBytes, long oomKills) {

    /** @return e.g. {@code cpu 4.21s, throttled 37 of 52 periods (3.10s), memory peak 181.3Mi} */
    public String describe() {
        StringBuilder sb = new StringBuilder();
        sb.append(cpuSeconds < 0 ? "cpu n/a" : String.format(Locale.ROOT, "cpu %.2fs", cpuSeconds));
        sb.append(String.format(Locale.ROOT, ", throttled %d of %d periods (%.2fs)", throttledPeriods, periods, throttledSeconds));
        memoryPeakBytes.ifPresent(b -> sb.append(String.format(Locale.ROOT, ", memory peak %.1fMi", b / 1048576.0)));
        if (oomKills > 0) {
            sb.append(", oom_kill ").append(oomKills);
        }
        return sb.toString();
    }
}
