/**
 * The container runtime the kubelet model drives: a real child process
 * ({@link dev.vitals.kubesim.runtime.ProcessRuntime}) or a process-less container on virtual time
 * ({@link dev.vitals.kubesim.runtime.ScriptedContainer}), behind
 * {@link dev.vitals.kubesim.model.ContainerRuntime}.
 */
package dev.vitals.kubesim.runtime;
