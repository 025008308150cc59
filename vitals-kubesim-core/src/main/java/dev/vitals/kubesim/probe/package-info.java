/**
 * Probing: how one probe is evaluated against a live target (HTTP, TCP, gRPC, exec;
 * {@link dev.vitals.kubesim.probe.Prober}, {@code GrpcProber}) or from a
 * script on virtual time ({@link dev.vitals.kubesim.probe.ScriptedProbes}), behind
 * {@link dev.vitals.kubesim.model.ProbeExecutor}.
 */
package dev.vitals.kubesim.probe;
