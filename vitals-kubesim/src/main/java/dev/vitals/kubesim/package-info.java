/**
 * The kubelet probe simulator as a library: replays kubelet's probe rules
 * (shared/spec/kubelet-probes.md, R1–R68) against a live process, with faults.
 *
 * <ul>
 *   <li>Model: {@link dev.vitals.kubesim.ProbeSpec}, {@link dev.vitals.kubesim.ProbeHandler},
 *       {@link dev.vitals.kubesim.PodSpec}; read with {@link dev.vitals.kubesim.ManifestReader} or
 *       {@link dev.vitals.kubesim.ProbeFlags}.</li>
 *   <li>Run: {@link dev.vitals.kubesim.Simulation} returns a {@link dev.vitals.kubesim.SimulationResult};
 *       a {@link dev.vitals.kubesim.Scenario} adds fault proxies ({@link dev.vitals.kubesim.FaultProxy}),
 *       timed actions and {@link dev.vitals.kubesim.Expectation}s.</li>
 *   <li>Output: {@link dev.vitals.kubesim.Reports} (terminal, JSON, HTML);
 *       static checks: {@link dev.vitals.kubesim.Lint}.</li>
 *   <li>Time: {@link dev.vitals.kubesim.SimTime#real()} or a {@link dev.vitals.kubesim.VirtualTime}
 *       with {@link dev.vitals.kubesim.ScriptedContainer} and {@link dev.vitals.kubesim.ScriptedProbes}.</li>
 * </ul>
 *
 * <p>No method accepts or returns null; absent values are {@link java.util.Optional}. Bad input
 * raises {@link dev.vitals.kubesim.InvalidInputException}. Threads started here are daemons named
 * {@code vitals-kubesim-…} (gRPC probes use grpc-java's own shared threads).
 */
package dev.vitals.kubesim;
