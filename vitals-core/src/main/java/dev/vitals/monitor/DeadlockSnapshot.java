package dev.vitals.monitor;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The result of one deadlock scan: the names of the deadlocked threads (empty when none) and
 * how long the scan took, or, when the JVM refused the scan (restricted management access: a
 * {@link SecurityException} or {@link UnsupportedOperationException} from the
 * {@link java.lang.management.ThreadMXBean}), why it could not be taken. Immutable and
 * thread-safe.
 */
public final class DeadlockSnapshot {
    private final List<String> threadNames;
    private final Duration scanDuration;
    private final String unavailable;

    DeadlockSnapshot(List<String> threadNames, Duration scanDuration) {
        this(threadNames, scanDuration, null);
    }

    private DeadlockSnapshot(List<String> threadNames, Duration scanDuration, String unavailable) {
        this.threadNames = List.copyOf(threadNames);
        this.scanDuration = Objects.requireNonNull(scanDuration, "scanDuration");
        this.unavailable = unavailable;
    }

    /** A scan the JVM refused: nothing is known about deadlocks. */
    static DeadlockSnapshot unavailable(String reason, Duration scanDuration) {
        return new DeadlockSnapshot(List.of(), scanDuration, Objects.requireNonNull(reason, "reason"));
    }

    /**
     * @return why the scan could not be taken (e.g. {@code "java.lang.SecurityException: access
     *     denied (\"java.lang.management.ManagementPermission\" \"monitor\")"}); empty when
     *     it was taken
     */
    public Optional<String> unavailable() {
        return Optional.ofNullable(unavailable);
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
        return threadNames.equals(s.threadNames) && scanDuration.equals(s.scanDuration)
                && Objects.equals(unavailable, s.unavailable);
    }

    @Override
    public int hashCode() {
        return Objects.hash(threadNames, scanDuration, unavailable);
    }

    @Override
    public String toString() {
        return "Deadlock{" + (unavailable != null ? "unavailable=" + unavailable : "threads=" + threadNames)
                + ", scanUs=" + scanDuration.toNanos() / 1000 + '}';
    }
}
