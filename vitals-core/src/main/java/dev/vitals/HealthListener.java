package dev.vitals;

/**
 * Receives every finished execution of every check, for metrics (see {@code vitals-micrometer})
 * or logs. Called once the execution's result is recorded and the check's lock released, on the
 * thread that recorded it (a check thread; the scheduler thread for a timeout; the caller of an
 * evaluation that finds a hung execution), before whoever waits for that result is told. Calls
 * for one check come in recording order, one at a time; calls for different checks may run
 * concurrently. A slow listener holds up only the thread delivering to it, never the recording
 * of results or probe reads; it must still be quick, thread-safe, and must not throw (exceptions
 * are logged and ignored).
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
