package dev.vitals.monitor;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * The result of one deadlock scan: the names of the deadlocked threads (empty when none) and
 * how long the scan took. Immutable and thread-safe.
 */
public final class DeadlockSnapshot {
    private final List<String> threadNames;
    private final Duration scanDuration;

    DeadlockSnapshot(List<String> threadNames, Duration scanDuration) {
        this.threadNames = List.copyOf(threadNames);
        this.scanDuration = Objects.requireNonNull(scanDuration, "scanDuration");
    }

    /** @return whether the scan found a deadlock */
    public boolean deadlocked() {
        return !threadNames.isEmpty();
    }

    /** @return names of the deadlocked threads, sorted; empty when none */
    public List<String> threadNames() {
        return threadNames;
    }

    /** @return how long the scan took */
    public Duration scanDuration() {
        return scanDuration;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof DeadlockSnapshot)) {
            return false;
        }
        DeadlockSnapshot s = (DeadlockSnapshot) o;
        return threadNames.equals(s.threadNames) && scanDuration.equals(s.scanDuration);
    }

    @Override
    public int hashCode() {
        return Objects.hash(threadNames, scanDuration);
    }

    @Override
    public String toString() {
        return "Deadlock{threads=" + threadNames + ", scanUs=" + scanDuration.toNanos() / 1000 + '}';
    }
}
