package dev.vitals;

/** How the registry learns that startup has completed (DESIGN.md P4). */
public enum StartupCompletion {
    /**
     * The default: startup completes the first time every check of the {@code startup} group
     * passes, at once when the group has no checks.
     */
    AUTOMATIC,
    /**
     * Startup completes only when the application calls
     * {@link Availability#markStartupComplete()}, e.g. after migrations and cache warm-up.
     */
    MANUAL
}
