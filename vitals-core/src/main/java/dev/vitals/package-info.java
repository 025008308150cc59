/**
 * Vitals core: the check API ({@link dev.vitals.HealthCheck}, {@link dev.vitals.AsyncHealthCheck},
 * {@link dev.vitals.Health}, {@link dev.vitals.Check}), the {@link dev.vitals.HealthRegistry} and
 * its evaluation engine, {@link dev.vitals.Report}s and {@link dev.vitals.Availability}.
 *
 * <p>No method of this package accepts or returns {@code null}: absent values are
 * {@link java.util.Optional}, and null arguments are rejected with a
 * {@link java.lang.NullPointerException} naming the parameter.
 *
 * <p>All durations are {@link java.time.Duration}s; all time is read from one injectable
 * {@link dev.vitals.Clock} and all delays go through one {@link dev.vitals.Scheduler}.
 */
package dev.vitals;
