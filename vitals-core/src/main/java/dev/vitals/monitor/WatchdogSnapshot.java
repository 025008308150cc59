package dev.vitals.monitor;

import java.time.Duration;
import java.util.Objects;

/**
 * What a {@link ProgressWatchdog} concluded from its latest sample: the source's figures, how
 * long work has been waiting without a task completing, and whether that makes the executor
 * stalled. Immutable and thread-safe.
 */
public final class WatchdogSnapshot {
    private final ProgressSnapshot progress;
    private final Duration withoutProgress;
    private final boolean stalled;

    WatchdogSnapshot(ProgressSnapshot progress, Duration withoutProgress, boolean stalled) {
        this.progress = Objects.requireNonNull(progress, "progress");
        this.withoutProgress = Objects.requireNonNull(withoutProgress, "withoutProgress");
        this.stalled = stalled;
    }

    /** @return the source's figures at the sample */
    public ProgressSnapshot progress() {
        return progress;
    }

    /**
     * @return how long there has been work to do (busy or queued) without any task completing;
     *     {@link Duration#ZERO} when the executor is idle or has just completed a task
     */
    public Duration withoutProgress() {
        return withoutProgress;
    }

    /** @return whether {@link #withoutProgress()} reached the watchdog's {@code stallAfter} */
    public boolean stalled() {
        return stalled;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof WatchdogSnapshot)) {
            return false;
        }
        WatchdogSnapshot s = (WatchdogSnapshot) o;
        return progress.equals(s.progress) && withoutProgress.equals(s.withoutProgress) && stalled == s.stalled;
    }

    @Override
    public int hashCode() {
        return Objects.hash(progress, withoutProgress, stalled);
    }

    @Override
    public String toString() {
        return "Watchdog{" + progress + ", withoutProgressMs=" + withoutProgress.toMillis()
                + (stalled ? ", STALLED" : "") + '}';
    }
}
