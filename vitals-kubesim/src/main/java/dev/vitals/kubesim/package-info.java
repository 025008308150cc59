/**
 * The kubelet probe simulator as a library: replays kubelet's probe rules
 * (docs/spec/kubelet-probes.md, R1–R68) against a live process, with faults.
 *
 * <ul>
 *   <li>Model: {@link dev.vitals.kubesim.model.ProbeSpec}, {@link dev.vitals.kubesim.model.ProbeHandler},
 *       {@link dev.vitals.kubesim.model.PodSpec}; read with {@link dev.vitals.kubesim.manifest.ManifestReader} or
 *       {@link dev.vitals.kubesim.manifest.ProbeFlags}.</li>
 *   <li>Run: {@link dev.vitals.kubesim.Simulation} returns a {@link dev.vitals.kubesim.SimulationResult};
 *       a {@link dev.vitals.kubesim.scenario.Scenario} adds fault proxies ({@link dev.vitals.kubesim.fault.FaultProxy}),
 *       timed actions and {@link dev.vitals.kubesim.scenario.Expectation}s.</li>
 *   <li>Output: {@link dev.vitals.kubesim.report.Reports} (terminal, JSON, HTML);
 *       static checks: {@link dev.vitals.kubesim.lint.Lint}.</li>
 *   <li>Time: {@link dev.vitals.kubesim.model.SimTime#real()} or a {@link dev.vitals.kubesim.model.VirtualTime}
 *       with {@link dev.vitals.kubesim.runtime.ScriptedContainer} and {@link dev.vitals.kubesim.probe.ScriptedProbes}.</li>
 * </ul>
 *
 * <p>No method accepts or returns null; absent values are {@link java.util.Optional}. Bad input
 * raises {@link dev.vitals.kubesim.InvalidInputException}. Threads started here are daemons named
 * {@code vitals-kubesim-…} (gRPC probes use grpc-java's own shared threads).
 */
package dev.vitals.kubesim;
