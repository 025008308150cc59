package dev.vitals.monitor;

import java.util.Objects;

/**
 * Heap occupancy after garbage collection, as the JVM's memory pools report it: the sum over
 * heap pools of the memory used just after each pool's latest collection, against the maximum
 * heap. Immutable and thread-safe.
 */
public final class MemorySnapshot {
    private final long usedAfterGc;
    private final long max;

    private MemorySnapshot(long usedAfterGc, long max) {
        this.usedAfterGc = usedAfterGc;
        this.max = max;
    }

    /**
     * @param usedAfterGc bytes used after the latest collections, at least 0
     * @param max the maximum heap in bytes, at least 1
     * @return the snapshot
     * @throws IllegalArgumentException if a figure is out of range
     */
    public static MemorySnapshot of(long usedAfterGc, long max) {
        if (usedAfterGc < 0 || max < 1) {
            throw new IllegalArgumentException("usedAfterGc must be at least 0 and max at least 1, were "
                    + usedAfterGc + ", " + max);
        }
        return new MemorySnapshot(usedAfterGc, max);
    }

    /** @return bytes in use just after the latest collections (0 before any collection) */
    public long usedAfterGc() {
        return usedAfterGc;
    }

    /** @return the maximum heap, bytes */
    public long max() {
        return max;
    }

    /** @return usedAfterGc ÷ max, 0.0–1.0 */
    public double ratio() {
        return Math.min(1.0, (double) usedAfterGc / max);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof MemorySnapshot)) {
            return false;
        }
        MemorySnapshot s = (MemorySnapshot) o;
        return usedAfterGc == s.usedAfterGc && max == s.max;
    }

    @Override
    public int hashCode() {
        return Objects.hash(usedAfterGc, max);
    }

    @Override
    public String toString() {
        return "Memory{usedAfterGc=" + usedAfterGc + ", max=" + max + '}';
    }
}
