package dev.vitals.kubesim.replay;

import java.util.Locale;

/** The ways the demo answers probes ({@code vitals-demo --wiring naive|vitals}, or naive with the agent attached). */
public enum Wiring {
    /** One {@code /healthz} on the application port and worker pool, database included. */
    NAIVE,
    /** The Vitals probe server on its own port: {@code /livez}, {@code /readyz}, {@code /startupz}. */
    VITALS,
    /**
     * The naive demo, unchanged, with {@code -javaagent:vitals-agent.jar} attached: kubelet probes the
     * agent's {@code /livez}, {@code /readyz}, {@code /startupz} on its own port; the agent takes
     * readiness from the demo's own {@code /healthz} in the background.
     */
    NAIVE_AGENT;

    /** @return the name used in reports and log files: {@code naive}, {@code vitals} or {@code naive-agent} */
    public String flag() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** @return the demo's {@code --wiring} value: {@code naive} for both naive wirings */
    public String demoWiring() {
        return this == VITALS ? "vitals" : "naive";
    }

    /** @return whether kubelet probes the Vitals endpoints on the probe port ({@code /livez} ...) */
    public boolean probesVitalsEndpoints() {
        return this != NAIVE;
    }
}
