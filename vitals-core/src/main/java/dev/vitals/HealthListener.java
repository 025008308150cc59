package dev.vitals;

/**
 * Receives every finished execution of every check, for metrics (see {@code vitals-micrometer})
 * or logs. Called from Vitals' threads right after the execution's result is recorded; must be
 * quick, thread-safe and must not throw (exceptions are logged and ignored).
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
