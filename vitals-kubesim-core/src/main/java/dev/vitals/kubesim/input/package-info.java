/**
 * Bad input, the simulator's bottom layer: {@link dev.vitals.kubesim.input.InvalidInputException}
 * (one line for the terminal, exit 2) and the {@link dev.vitals.kubesim.input.Violation}s it may
 * carry. Every reader (manifests, scenarios, YAML, flags) throws it; it depends on nothing else of
 * the simulator.
 */
package dev.vitals.kubesim.input;
