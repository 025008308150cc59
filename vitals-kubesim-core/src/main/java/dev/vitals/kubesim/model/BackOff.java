package dev.vitals.kubesim.model;

/**
 * CrashLoopBackOff for one container (R47–R49): the current wait {@code d} and the time
 * {@code L} of the last allowed restart, as client-go's {@code flowcontrol.Backoff} keeps
 * them for the kubelet ({@code kuberuntime_manager.go} doBackOff; {@code backoff.go}
 * IsInBackOffSince, Next, GC). All times are monotonic nanoseconds. Not thread-safe: the
 * kubelet model uses it on its scheduler thread.
 */
final class BackOff {
    private final long initial;
    private final long max;
    private final long reset;
    private boolean hasState;
    private long d;
    private long lastUpdate;

    /**
     * @param initial the first wait (R47: 10 s)
     * @param max the cap (R47: 300 s; R52)
     * @param reset how long state lives after the last allowed restart (R47: 600 s)
     */
    BackOff(long initial, long max, long reset) {
        this.initial = initial;
        this.max = max;
        this.reset = reset;
    }

    /** @return {@code L}, the time of the last allowed restart */
    long lastUpdate() {
        return lastUpdate;
    }

    /** @return when the housekeeping GC will drop the state (R48, last bullet) */
    long gcAt() {
        return lastUpdate + reset + 1;
    }

    /** Housekeeping GC: drops the state once {@code now − L > reset} (R48, last bullet). */
    void gc(long now) {
        if (hasState && now - lastUpdate > reset) {
            hasState = false;
        }
    }

    /**
     * One start attempt (R48).
     *
     * @param now the current time
     * @param finished the finish time of the most recent exited instance, or -1 if none
     * @return 0 to start now (the state is updated), or the nanoseconds still to wait
     */
    long decide(long now, long finished) {
        if (finished < 0) {
            return 0; // no exited instance: start now, no state change
        }
        if (hasState && finished - lastUpdate <= reset && now - finished < d) {
            return finished + d - now; // still in back-off
        }
        if (!hasState || now - lastUpdate > reset) {
            d = initial;
        } else {
            d = Math.min(2 * d, max);
        }
        hasState = true;
        lastUpdate = now;
        return 0;
    }
}
