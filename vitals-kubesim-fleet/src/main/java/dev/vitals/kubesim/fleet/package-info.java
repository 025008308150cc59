/**
 * {@code vitals fleet}: a restart cascade or a zero-endpoint outage across replicas, before a
 * cluster shows it (docs/fleet.md; equations in DESIGN.md section 7.3).
 *
 * <ul>
 *   <li>Describe a fleet: {@link dev.vitals.kubesim.fleet.FleetSpec}, read from YAML with
 *       {@link dev.vitals.kubesim.fleet.FleetSpecReader}; the replays' specs are
 *       {@link dev.vitals.kubesim.fleet.FleetScenarios}.</li>
 *   <li>Run it: {@link dev.vitals.kubesim.fleet.ModelFleet} (1–1,000,000 replicas on a virtual clock, about 4 KiB of heap each)
 *       or {@link dev.vitals.kubesim.fleet.LiveFleet} (real processes behind a real TCP Service);
 *       both run the kubelet model {@link dev.vitals.kubesim.model.Kubelet} per replica and return a
 *       {@link dev.vitals.kubesim.fleet.FleetResult}. {@link dev.vitals.kubesim.fleet.Calibration}
 *       measures one live replica for the model.</li>
 *   <li>Report it: {@link dev.vitals.kubesim.fleet.FleetReport} (text, JSON, one HTML page);
 *       {@link dev.vitals.kubesim.fleet.FleetReplay} runs the fleet replays naive and Vitals.</li>
 *   <li>Run it with several seeds: {@link dev.vitals.kubesim.fleet.FleetEnsemble} (median and range
 *       of every figure, expectations judged over the runs, "unstable" when seeds disagree).</li>
 *   <li>Find where it breaks: {@link dev.vitals.kubesim.fleet.FleetSweep} (one or two values of a
 *       fleet file over a range, an ensemble per point, where each expectation flips), reported by
 *       {@link dev.vitals.kubesim.fleet.SweepReport}.</li>
 * </ul>
 *
 * <p>No method accepts or returns null. Bad input raises
 * {@link dev.vitals.kubesim.input.InvalidInputException} (reader) or {@link java.lang.IllegalArgumentException}
 * naming the field and bound (constructors).
 */
package dev.vitals.kubesim.fleet;
