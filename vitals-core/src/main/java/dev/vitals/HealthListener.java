package dev.vitals;

/**
 * Receives every finished execution of every check, for metrics (see {@code vitals-micrometer})
 * or logs.
 *
 * <p>Threads: called on a {@code vitals-listener-N} daemon thread, never on the scheduler thread
 * or a check thread, so a listener can delay neither scheduled checks nor probe reads (issue 30).
 * The call comes after the result is recorded, usually within a millisecond, possibly after
 * whoever waited for that result (an evaluation) has been told. Each listener has its own queue
 * and is called one call at a time, in recording order; different listeners are called
 * independently (issue 40), so one listener cannot delay another.
 *
 * <p>Bounded, never waited on: while a call has run for over 1 s, the listener is <em>slow</em>:
 * notices that arrive meanwhile are skipped (not queued), counted in
 * {@link HealthRegistry#skippedNotifications()} and reported once per episode at WARNING on
 * {@code dev.vitals}; delivery resumes with the next notice after the call returns. At most
 * 1,000 notices wait per listener; beyond that the oldest is dropped
 * ({@link HealthRegistry#droppedNotifications()}). A call that throws is logged once (WARNING,
 * the listener's class and the exception) until a call returns normally again; every failure is
 * counted ({@link HealthRegistry#failedNotifications()}). A listener must be thread-safe (calls
 * come from different threads over time).
 */
@FunctionalInterface
public interface HealthListener {
    /**
     * @param check the check that ran
     * @param health the raw result of that execution, before thresholds, with its duration
     * @param timedOut whether the execution outlived its timeout (the health is then DOWN "timed out")
     */
    void onExecution(Check check, Health health, boolean timedOut);

    /**
     * Whether every call returns in microseconds, in memory, without blocking or I/O (counters,
     * meters). Such listeners are delivered on a delivery of their own — one thread, plus one for
     * each of its listeners stuck in a call — which the
     * application's other listeners (a webhook, a log shipper) never share, so those can never
     * starve them. {@code VitalsMetrics} says so. A listener that says so and then blocks costs
     * that delivery a thread while it blocks and is treated as slow, like any other.
     *
     * @return {@code true} for a non-blocking, in-memory listener; default {@code false}
     */
    default boolean nonBlocking() {
        return false;
    }
}
