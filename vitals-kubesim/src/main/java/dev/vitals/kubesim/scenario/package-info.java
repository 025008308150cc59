/**
 * Scenarios: timed actions and expectations read from YAML
 * ({@link dev.vitals.kubesim.scenario.Scenario}, {@link dev.vitals.kubesim.scenario.Expectation})
 * and the problems found in input ({@link dev.vitals.kubesim.scenario.Violation}).
 */
package dev.vitals.kubesim.scenario;
