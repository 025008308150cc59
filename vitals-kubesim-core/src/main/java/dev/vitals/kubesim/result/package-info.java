/**
 * What a simulation run produced: {@link dev.vitals.kubesim.result.SimulationResult} (events,
 * probe statistics, ready intervals, restarts, the resource-limits report) and the scenario's
 * {@link dev.vitals.kubesim.result.Expectation}s checked against it. Immutable values; safe to
 * share between threads once built.
 */
package dev.vitals.kubesim.result;
