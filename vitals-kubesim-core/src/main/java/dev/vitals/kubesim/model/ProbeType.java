package dev.vitals.kubesim.model;

import java.util.Locale;

/** The three kubelet probe types. One worker runs per type (kubelet: pkg/kubelet/prober/prober_manager.go, R13). */
public enum ProbeType {
    /** Gates the other two until it succeeds once (R30–R35). */
    STARTUP,
    /** Kills the container on a Failure verdict (R41). */
    LIVENESS,
    /** Drives the Ready condition; never restarts anything (R38). */
    READINESS;

    /** @return the lower-case name used in output and in manifests' field prefixes ("liveness") */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * The one of three values that belongs to this type: the switch over the three types,
     * written once (a pod's probes, a worker's initial result, …).
     *
     * @param startup the startup value
     * @param liveness the liveness value
     * @param readiness the readiness value
     * @param <T> the values' type
     * @return the value of this type
     */
    public <T> T pick(T startup, T liveness, T readiness) {
        switch (this) {
            case STARTUP:
                return startup;
            case LIVENESS:
                return liveness;
            default:
                return readiness;
        }
    }

    /** @return the manifest field name of this probe ("livenessProbe") */
    public String fieldName() {
        return label() + "Probe";
    }

    /**
     * @param label "startup", "liveness" or "readiness" (case-insensitive)
     * @return the probe type
     * @throws IllegalArgumentException for any other text
     */
    public static ProbeType fromLabel(String label) {
        for (ProbeType t : values()) {
            if (t.label().equalsIgnoreCase(label)) {
                return t;
            }
        }
        throw new IllegalArgumentException("unknown probe type '" + label + "' (expected startup, liveness or readiness)");
    }
}
