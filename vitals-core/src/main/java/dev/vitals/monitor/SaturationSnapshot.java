package dev.vitals.monitor;

/**
 * One reading of a pool or limiter: how many units are busy, how many there are, and how much
 * work waits for one. Immutable and thread-safe.
 *
 * <p>{@link #saturation()} is {@code busy ÷ capacity} clamped to 0.0–1.0 (DESIGN.md section 3);
 * a zero capacity reads 1.0 when anything is busy or queued, else 0.0.
 */
public final class SaturationSnapshot {
    private final long busy;
    private final long capacity;
    private final long queued;

    private SaturationSnapshot(long busy, long capacity, long queued) {
        this.busy = busy;
        this.capacity = capacity;
        this.queued = queued;
    }

    /**
     * @param busy units in use (threads running a task, permits held), at least 0
     * @param capacity units available in total (maximum pool size, permits), at least 0
     * @param queued work waiting for a unit (queued tasks, waiting acquirers), at least 0
     * @return the snapshot
     * @throws IllegalArgumentException if a figure is negative
     */
    public static SaturationSnapshot of(long busy, long capacity, long queued) {
        if (busy < 0 || capacity < 0 || queued < 0) {
            throw new IllegalArgumentException("busy, capacity and queued must not be negative, were "
                    + busy + ", " + capacity + ", " + queued);
        }
        return new SaturationSnapshot(busy, capacity, queued);
    }

    /** @return units in use, at least 0 (may exceed capacity while a pool shrinks) */
    public long busy() {
        return busy;
    }

    /** @return units in total, at least 0 */
    public long capacity() {
        return capacity;
    }

    /** @return work waiting for a unit, at least 0 */
    public long queued() {
        return queued;
    }

    /** @return busy ÷ capacity, 0.0–1.0 */
    public double saturation() {
        if (capacity == 0) {
            return busy > 0 || queued > 0 ? 1.0 : 0.0;
        }
        return Math.min(1.0, (double) busy / capacity);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof SaturationSnapshot)) {
            return false;
        }
        SaturationSnapshot s = (SaturationSnapshot) o;
        return busy == s.busy && capacity == s.capacity && queued == s.queued;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(busy) * 31 * 31 + Long.hashCode(capacity) * 31 + Long.hashCode(queued);
    }

    @Override
    public String toString() {
        return "Saturation{busy=" + busy + ", capacity=" + capacity + ", queued=" + queued + '}';
    }
}
