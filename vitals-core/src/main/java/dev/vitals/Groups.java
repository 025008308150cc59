package dev.vitals;

/**
 * Names of the three built-in groups, one per Kubernetes probe. Custom groups are declared
 * with {@link HealthRegistry.Builder#group(String)}.
 */
public final class Groups {
    /** Liveness: only what a restart can cure (deadlock, stalled executor, broken state). */
    public static final String LIVENESS = "liveness";
    /** Readiness: what core requests need; failing it sheds traffic, never restarts. */
    public static final String READINESS = "readiness";
    /** Startup: initialization; gates readiness until it has passed once. */
    public static final String STARTUP = "startup";

    private Groups() {
    }

    static boolean isBuiltIn(String group) {
        return LIVENESS.equals(group) || READINESS.equals(group) || STARTUP.equals(group);
    }
}
