/**
 * {@code vitals replay}: the demo service run twice per scenario, with the naive probe wiring
 * and with the Vitals wiring, under the same kubelet probes and the same faults, judged by the
 * simulator's kubelet model ({@link dev.vitals.kubesim.Simulation}).
 *
 * <p>The entry points are {@link dev.vitals.kubesim.replay.ReplayCatalog} (the scenarios and
 * their expectations), {@link dev.vitals.kubesim.replay.Replay} (runs cases as child processes
 * of the demo jar) and {@link dev.vitals.kubesim.replay.ReplayReport} (table, verdicts, JSON,
 * HTML). The demo is never a compile-time dependency: it is started as
 * {@code java -jar vitals-demo.jar}. No method accepts or returns {@code null}.
 */
package dev.vitals.kubesim.replay;
