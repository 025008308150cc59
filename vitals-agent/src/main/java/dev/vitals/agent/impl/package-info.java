/**
 * The agent's implementation, loaded in the agent's own class loader: options
 * ({@code AgentOptions}), the registry and probe server ({@code AgentMain}), readiness from the
 * application's own health endpoint ({@code AppReadiness}, {@code LoopbackGet}), application
 * ports ({@code AppPorts}) and worker-pool progress from threads ({@code WorkerPools}). Not an
 * API: nothing here is visible to the application.
 */
package dev.vitals.agent.impl;
