package dev.vitals;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;

/**
 * The application's own view of its availability, shown in each built-in group as a check
 * named {@value #CHECK_NAME}:
 * <ul>
 *   <li>startup: DOWN "starting" until startup completes, then the startup group stays UP
 *       for good (kubelet stops startup probing after the first success);</li>
 *   <li>liveness: DOWN while the application has marked itself broken;</li>
 *   <li>readiness: DOWN while starting, while refusing traffic and once a drain has begun.</li>
 * </ul>
 *
 * <p>Obtain it from {@link HealthRegistry#availability()}. Thread-safe; every change is visible
 * to the next probe read. Its lock is private: code that synchronises on this object (a check
 * that holds {@code synchronized (availability)}) delays no startup completion, drain or
 * change. A change is logged (level INFO once the registry has started) by the
 * thread that makes it; reading the state never changes or logs anything.
 */
public final class Availability {
    /** The name of the availability check in the built-in groups; reserved. */
    public static final String CHECK_NAME = "availability";

    private static final Health STARTING = Health.down("starting");

    /** Private: user code holding this object's monitor must not stop the engine (issue 30). */
    private final Object lock = new Object();
    private final Consumer<String> onChange;
    private final Scheduler scheduler;
    private volatile boolean startupComplete;
    private volatile String brokenReason;
    private volatile String refusalReason;
    private volatile CompletableFuture<Void> drain;

    /**
     * @param onChange told after every change, with a short description for the log; runs on the
     *     thread that made the change
     * @param scheduler runs drain delays
     * @param startupComplete whether startup is complete from the start (automatic completion
     *     with no startup check)
     */
    Availability(Consumer<String> onChange, Scheduler scheduler, boolean startupComplete) {
        this.onChange = onChange;
        this.scheduler = scheduler;
        this.startupComplete = startupComplete;
    }

    /**
     * Marks startup complete: the startup group turns and stays UP and readiness is no longer
     * held DOWN by startup. Idempotent.
     */
    public void markStartupComplete() {
        synchronized (lock) {
            if (startupComplete) {
                return;
            }
            startupComplete = true;
        }
        onChange.accept("startup complete");
    }

    /** @return whether startup has completed */
    public boolean isStartupComplete() {
        return startupComplete;
    }

    /**
     * Marks the application broken: liveness turns DOWN with {@code reason} (shown only when the
     * details policy allows), so kubelet restarts the process. Use it for state a restart cures.
     *
     * @param reason why, for logs and detailed reports
     * @throws NullPointerException if {@code reason} is null
     */
    public void markBroken(String reason) {
        brokenReason = Objects.requireNonNull(reason, "reason");
        onChange.accept("marked broken: " + reason);
    }

    /** Clears {@link #markBroken(String)}. */
    public void markCorrect() {
        if (brokenReason != null) {
            brokenReason = null;
            onChange.accept("marked correct");
        }
    }

    /**
     * Refuses traffic: readiness turns DOWN with {@code reason} until {@link #acceptTraffic()}.
     *
     * @param reason why, for logs and detailed reports
     * @throws NullPointerException if {@code reason} is null
     */
    public void refuseTraffic(String reason) {
        refusalReason = Objects.requireNonNull(reason, "reason");
        onChange.accept("refusing traffic: " + reason);
    }

    /** Clears {@link #refuseTraffic(String)}; a drain in progress is not undone. */
    public void acceptTraffic() {
        if (refusalReason != null) {
            refusalReason = null;
            onChange.accept("accepting traffic");
        }
    }

    /**
     * Starts a drain (DESIGN.md P10): readiness turns DOWN at once ("draining") so kubelet takes
     * the pod out of the endpoints, liveness is unchanged, and the returned future completes
     * after {@code delay}, when the application may stop. A second call returns the first
     * drain's future.
     *
     * @param delay how long to keep serving after readiness fails, typically a little more than
     *     readiness {@code periodSeconds × failureThreshold}; zero completes at once
     * @return completes after the delay (or at once if the registry's scheduler is shut down)
     * @throws NullPointerException if {@code delay} is null
     * @throws IllegalArgumentException if {@code delay} is negative
     */
    public CompletableFuture<Void> drain(Duration delay) {
        Objects.requireNonNull(delay, "delay");
        if (delay.isNegative()) {
            throw new IllegalArgumentException("drain delay must not be negative, was " + delay);
        }
        CompletableFuture<Void> f;
        synchronized (lock) {
            if (drain != null) {
                return drain;
            }
            f = new CompletableFuture<>();
            drain = f;
        }
        onChange.accept("draining for " + delay.toMillis() + " ms");
        try {
            scheduler.schedule(delay.toNanos(), () -> f.complete(null));
        } catch (RejectedExecutionException e) {
            f.complete(null);
        }
        return f;
    }

    /** @return whether a drain has begun */
    public boolean isDraining() {
        return drain != null;
    }

    Health startupHealth() {
        return startupComplete ? Health.up() : STARTING;
    }

    Health livenessHealth() {
        String broken = brokenReason;
        return broken == null ? Health.up() : Health.down("marked broken: " + broken);
    }

    Health readinessHealth() {
        if (drain != null) {
            return Health.down("draining: the process is shutting down");
        }
        if (!startupComplete) {
            return STARTING;
        }
        String refusal = refusalReason;
        return refusal == null ? Health.up() : Health.down("refusing traffic: " + refusal);
    }
}
