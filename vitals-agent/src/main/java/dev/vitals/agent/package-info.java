/**
 * The agent's bootstrap: {@link dev.vitals.agent.VitalsAgent}, the only class of the agent the
 * application's class loaders can see. Everything else is loaded from the agent jar's
 * {@code vitals-agent/*.classdata} entries by the agent's own class loader (DESIGN.md section 7d;
 * usage in {@code docs/agent.md}).
 */
package dev.vitals.agent;
