package dev.vitals.kubesim.replay;

import java.util.Locale;

/** The two ways the demo answers probes ({@code vitals-demo --wiring naive|vitals}). */
public enum Wiring {
    /** One {@code /healthz} on the application port and worker pool, database included. */
    NAIVE,
    /** The Vitals probe server on its own port: {@code /livez}, {@code /readyz}, {@code /startupz}. */
    VITALS;

    /** @return the demo's flag value and the name used in reports: {@code naive} or {@code vitals} */
    public String flag() {
        return name().toLowerCase(Locale.ROOT);
    }
}
