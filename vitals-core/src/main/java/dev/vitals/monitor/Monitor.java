package dev.vitals.monitor;

import dev.vitals.Check;
import dev.vitals.Clock;
import dev.vitals.HealthCheck;
import dev.vitals.HealthRegistry;
import dev.vitals.Scheduler;
import java.time.Duration;
import java.util.Objects;

/**
 * A background sampler whose latest figures back a check. Built unstarted; {@link #start}
 * takes one sample at once and then one every {@link #interval()} on the given scheduler, until
 * {@link #close()} or until the scheduler rejects a task (it has been shut down, for example
 * because its registry was closed).
 *
 * <p>Before {@code start} and after {@code close} the monitor's check reports
 * {@link dev.vitals.Status#UNKNOWN} ("monitor not started" / "monitor closed"), so a monitor
 * registered but never started is noticed rather than silently passing. Started but without a
 * sample yet (its first sample failed or has not completed), it reports
 * {@link dev.vitals.Status#UP} "starting: no sample yet": a monitor that has not looked has no
 * evidence of a stall, and liveness must not fail on ignorance (DESIGN.md P2).
 *
 * <p>Implementations are thread-safe.
 */
public interface Monitor extends AutoCloseable {
    /** @return the monitor's name, also the default name of its check */
    String name();

    /** @return the time between two samples */
    Duration interval();

    /**
     * Starts sampling: one sample at once on the calling thread, then one every
     * {@link #interval()} on {@code scheduler}.
     *
     * @param clock the time source (normally the registry's)
     * @param scheduler where the samples run (normally the registry's); samples never block
     * @throws NullPointerException if an argument is null
     * @throws IllegalStateException if the monitor was started or closed before
     */
    void start(Clock clock, Scheduler scheduler);

    /**
     * Starts sampling with the registry's clock and scheduler; see {@link #start(Clock, Scheduler)}.
     *
     * @param registry the registry whose clock and scheduler to use
     * @throws NullPointerException if {@code registry} is null
     * @throws IllegalStateException if the monitor was started or closed before
     */
    default void start(HealthRegistry registry) {
        Objects.requireNonNull(registry, "registry");
        start(registry.clock(), registry.scheduler());
    }

    /** @return whether {@link #start} has been called and {@link #close()} has not */
    boolean isRunning();

    /**
     * The check function: reads the latest snapshot, never samples, never blocks.
     *
     * @return the check function of this monitor
     */
    HealthCheck healthCheck();

    /**
     * A registration for {@link #healthCheck()} named {@link #name()}, with this monitor's
     * recommended group, {@link dev.vitals.Mode#SCHEDULED} at the monitor's interval (at least
     * 1 s), timeout 1 s, a max age of at least 30 s (reading a snapshot never hangs; the
     * generous max age keeps a busy machine's scheduling delays from making liveness stale), and
     * {@link Check.Builder#beforeFirstResult} UP "starting: no sample yet", so the check does not
     * fail before the registry first runs it.
     * Change any of it before {@code build()}.
     *
     * @return a registration builder with this monitor's defaults
     */
    Check.Builder check();

    /** Stops sampling and releases what the monitor holds (threads, sockets). Idempotent. */
    @Override
    void close();
}
