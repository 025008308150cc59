package dev.vitals;

import java.util.concurrent.CompletionStage;

/**
 * A non-blocking health check: starts the work and returns a stage that completes with the
 * {@link Health}, for clients that are asynchronous already (reactive drivers, HTTP clients).
 *
 * <p>The same rules as {@link HealthCheck} apply: the stage is bounded by the check's timeout,
 * a stage that completes exceptionally or with {@code null}, or a {@code check()} call that
 * throws, yields {@link Status#DOWN}; at most one execution is in flight at any time.
 */
@FunctionalInterface
public interface AsyncHealthCheck {
    /**
     * Starts one execution of the check. Should return promptly; Vitals calls it from its
     * check executor, so a call that blocks costs a check thread, not a probe thread.
     *
     * @return a stage completing with the health observed
     */
    CompletionStage<Health> check();
}
