package dev.vitals;

/**
 * Receives every finished execution of every check, for metrics (see {@code vitals-micrometer})
 * or logs.
 *
 * <p>Threads: called on a {@code vitals-listener-N} daemon thread, never on the scheduler thread
 * or a check thread, so a listener can delay neither scheduled checks nor probe reads (issue 30).
 * The call comes after the result is recorded, usually within a millisecond, possibly after
 * whoever waited for that result (an evaluation) has been told. Calls for one check come in
 * recording order, one at a time; calls for different checks may run concurrently.
 *
 * <p>Bounded, never waited on: while one call for a check has run for over 1 s, later
 * executions of that check are <em>skipped</em> for this listener (not queued), counted in
 * {@link HealthRegistry#skippedNotifications()} and reported once per episode at WARNING on
 * {@code dev.vitals}; delivery resumes with the next execution after the call returns. At most
 * 1,000 calls wait per check and listener. A listener must be thread-safe and should not throw
 * (exceptions are logged and ignored).
 */
@FunctionalInterface
public interface HealthListener {
    /**
     * @param check the check that ran
     * @param health the raw result of that execution, before thresholds, with its duration
     * @param timedOut whether the execution outlived its timeout (the health is then DOWN "timed out")
     */
    void onExecution(Check check, Health health, boolean timedOut);
}
