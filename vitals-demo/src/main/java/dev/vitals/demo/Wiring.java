package dev.vitals.demo;

import java.util.Locale;

/** How the demo answers probes. */
public enum Wiring {
    /**
     * One {@code /healthz} handler on the application worker pool that also pings the database,
     * used for liveness, readiness and startup alike: the common mistake (DESIGN.md section 1).
     */
    NAIVE,
    /** A Vitals probe server on its own port with liveness, readiness and startup groups. */
    VITALS;

    /** @return the flag value, {@code naive} or {@code vitals} */
    public String flag() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * @param value {@code naive} or {@code vitals}, any case
     * @return the wiring
     * @throws IllegalArgumentException for any other value, naming the accepted ones
     */
    public static Wiring fromFlag(String value) {
        for (Wiring w : values()) {
            if (w.flag().equalsIgnoreCase(value.trim())) {
                return w;
            }
        }
        throw new IllegalArgumentException("expected 'naive' or 'vitals', was '" + value + "'");
    }
}
