/**
 * Scenarios: timed actions and expectations read from YAML
 * ({@link dev.vitals.kubesim.scenario.Scenario}, {@link dev.vitals.kubesim.result.Expectation})
 * and the problems found in input ({@link dev.vitals.kubesim.input.Violation}).
 */
package dev.vitals.kubesim.scenario;
