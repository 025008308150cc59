package dev.vitals;

/**
 * A blocking health check: one method that returns the current {@link Health}.
 *
 * <p>A lambda is a check: {@code () -> Health.up()}. The check's name, groups, criticality,
 * mode and durations are given when it is registered (see {@link Check}). Vitals runs a
 * blocking check on its own bounded check executor (virtual threads on Java 21+), under
 * the check's timeout, never on the caller's thread and never two executions of the same
 * check at once; an implementation therefore need not be thread-safe against itself.
 *
 * <p>Throwing (any {@link Throwable}), returning {@code null} or being interrupted yields
 * {@link Status#DOWN} for this check only, with the error's type recorded.
 */
@FunctionalInterface
public interface HealthCheck {
    /**
     * Runs the check once.
     *
     * @return the health observed; never {@code null} (a {@code null} is reported as DOWN)
     * @throws Exception when the check fails; reported as DOWN with the exception's type
     */
    Health check() throws Exception;
}
