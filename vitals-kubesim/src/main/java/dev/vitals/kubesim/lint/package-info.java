/**
 * Static findings about probes, with timing findings replayed on the kubelet model
 * ({@link dev.vitals.kubesim.lint.Lint}).
 */
package dev.vitals.kubesim.lint;
