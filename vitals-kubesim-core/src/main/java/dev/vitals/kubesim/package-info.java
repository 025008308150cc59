/**
 * The kubelet probe simulator as a library: replays kubelet's probe rules
 * (docs/spec/kubelet-probes.md, R1–R68) against a live process, with faults.
 *
 * <p>This package is the API: {@link dev.vitals.kubesim.Simulation} (a builder) runs a pod and
 * returns a {@link dev.vitals.kubesim.result.SimulationResult} (times as {@link java.time.Duration}
 * and {@link dev.vitals.kubesim.result.Interval}, or as seconds for reports). The parts:
 * <ul>
 *   <li>{@code .model}: the kubelet model — {@link dev.vitals.kubesim.model.Kubelet} (one
 *       container's state machine), {@code model.PodKubelet} (init containers, sidecars, several
 *       containers; package-private until a command runs it), the specs ({@link dev.vitals.kubesim.model.PodSpec},
 *       {@link dev.vitals.kubesim.model.ProbeSpec}) and time ({@link dev.vitals.kubesim.model.SimTime},
 *       {@link dev.vitals.kubesim.model.VirtualTime});</li>
 *   <li>{@code .probe}: evaluating probes; {@code .runtime}: running containers (the model's
 *       ports, {@link dev.vitals.kubesim.model.ProbeExecutor} and
 *       {@link dev.vitals.kubesim.model.ContainerRuntime});</li>
 *   <li>{@code .result}: a run's result and expectations; {@code .input}: bad input;</li>
 *   <li>{@code .scenario}: timed {@link dev.vitals.kubesim.scenario.Action}s and expectations;
 *       {@code .fault}: fault proxies and load;</li>
 *   <li>{@code .manifest}: reading manifests and flags; {@code .report}: terminal, JSON and HTML.</li>
 * </ul>
 * Built on this library, in modules of their own: the fleet engines ({@code .fleet}), lint
 * ({@code .lint}) and the {@code vitals} command ({@code .cli}, {@code .replay}).
 *
 * <p>Layers and what the module exports: docs/DESIGN.md section 7, enforced by CorePackageGraphTest.
 *
 * <p>No method accepts or returns null; absent values are {@link java.util.Optional}. Bad input
 * raises {@link dev.vitals.kubesim.input.InvalidInputException}. Threads started here are daemons named
 * {@code vitals-kubesim-…} (gRPC probes use grpc-java's own shared threads).
 */
package dev.vitals.kubesim;
