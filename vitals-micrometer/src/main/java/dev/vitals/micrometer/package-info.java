/**
 * Micrometer meters for Vitals ({@link dev.vitals.micrometer.VitalsMetrics}). No method accepts
 * or returns {@code null}; absent values are {@link java.util.Optional}.
 */
package dev.vitals.micrometer;
