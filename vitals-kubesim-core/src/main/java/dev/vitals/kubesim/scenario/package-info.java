/**
 * Scenarios: timed actions read from YAML ({@link dev.vitals.kubesim.scenario.Scenario},
 * {@link dev.vitals.kubesim.scenario.Action}) and their runner; a scenario's {@code expect} lines
 * are {@link dev.vitals.kubesim.result.Expectation}s, checked against the run's result.
 */
package dev.vitals.kubesim.scenario;
