/**
 * The kubelet model: one container's lifecycle, its probe workers, CrashLoopBackOff and the
 * Ready condition ({@link dev.vitals.kubesim.model.Kubelet}), the pod and probe specs it runs
 * ({@link dev.vitals.kubesim.model.PodSpec}, {@link dev.vitals.kubesim.model.ProbeSpec},
 * {@link dev.vitals.kubesim.model.ProbeHandler}), the events it emits
 * ({@link dev.vitals.kubesim.model.SimEvent}) and the time it runs on
 * ({@link dev.vitals.kubesim.model.SimTime}). Rules: docs/spec/kubelet-probes.md.
 */
package dev.vitals.kubesim.model;
