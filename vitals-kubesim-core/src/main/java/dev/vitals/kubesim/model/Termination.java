package dev.vitals.kubesim.model;

import dev.vitals.Scheduler;
import java.util.Optional;

/**
 * One kill of the current instance, TERMINATING's inner state machine (kuberuntime_container.go
 * killContainer, quoted): {@code PRE_STOP} while the hook is waited for ("gracePeriod =
 * gracePeriod - m.executePreStopHook(ctx, pod, containerID, containerSpec, gracePeriod)", at
 * most the grace period); {@code WAITING_FOR_TURN} for a sidecar on pod deletion ("gracePeriod
 * -= int64(ordering.waitForTurn(containerName, gracePeriod))", at most what is left); then
 * {@code SIGNALLED}: "if gracePeriod &lt; minimumGracePeriodInSeconds { gracePeriod =
 * minimumGracePeriodInSeconds }" and StopContainer (SIGTERM, SIGKILL after that).
 * {@link Kubelet} owns it and moves it (its kill section); on its scheduler thread only.
 */
final class Termination {
    /** Where the kill is. */
    enum Phase {
        /** The preStop hook runs and is waited for. */
        PRE_STOP,
        /** A sidecar on pod deletion waits for its turn (R70). */
        WAITING_FOR_TURN,
        /** The stop signal was sent; SIGKILL follows after what was left (≥ 2 s). */
        SIGNALLED
    }

    final String reason;
    final Optional<Lifecycle.Hook> preStop;
    Phase phase;
    /** Seconds of the grace period left. */
    long graceLeft;
    /** When the phase began (monotonic ns). */
    long since;
    /** The end of the phase's wait: the hook's deadline or the turn's. */
    Scheduler.Cancellable deadline;
    /** The hook's own run has not returned (it can outlive its wait). */
    boolean hookRunning;

    Termination(String reason, Optional<Lifecycle.Hook> preStop, long grace, long now) {
        this.reason = reason;
        this.preStop = preStop;
        this.graceLeft = grace;
        this.since = now;
    }

    /** Whole seconds since the phase began, truncated as the kubelet's int64(seconds). */
    long secondsIn(long now) {
        return (now - since) / 1_000_000_000L;
    }
}
