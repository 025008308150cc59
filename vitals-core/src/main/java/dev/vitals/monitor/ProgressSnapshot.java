package dev.vitals.monitor;

/**
 * One reading of an executor's progress: how many tasks have completed so far, how many are
 * running and how many wait. Immutable and thread-safe.
 */
public final class ProgressSnapshot {
    private final long completed;
    private final long busy;
    private final long queued;

    private ProgressSnapshot(long completed, long busy, long queued) {
        this.completed = completed;
        this.busy = busy;
        this.queued = queued;
    }

    /**
     * @param completed tasks completed since the source was created (normally or by throwing), a
     *     counter that never decreases, at least 0
     * @param busy tasks running now, at least 0
     * @param queued tasks waiting to run, at least 0
     * @return the snapshot
     * @throws IllegalArgumentException if a figure is negative
     */
    public static ProgressSnapshot of(long completed, long busy, long queued) {
        if (completed < 0 || busy < 0 || queued < 0) {
            throw new IllegalArgumentException("completed, busy and queued must not be negative, were "
                    + completed + ", " + busy + ", " + queued);
        }
        return new ProgressSnapshot(completed, busy, queued);
    }

    /** @return tasks completed so far; never decreases */
    public long completed() {
        return completed;
    }

    /** @return tasks running now */
    public long busy() {
        return busy;
    }

    /** @return tasks waiting to run */
    public long queued() {
        return queued;
    }

    /** @return whether there is work to do: a task running or waiting */
    public boolean hasWork() {
        return busy > 0 || queued > 0;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof ProgressSnapshot)) {
            return false;
        }
        ProgressSnapshot s = (ProgressSnapshot) o;
        return completed == s.completed && busy == s.busy && queued == s.queued;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(completed) * 31 * 31 + Long.hashCode(busy) * 31 + Long.hashCode(queued);
    }

    @Override
    public String toString() {
        return "Progress{completed=" + completed + ", busy=" + busy + ", queued=" + queued + '}';
    }
}
