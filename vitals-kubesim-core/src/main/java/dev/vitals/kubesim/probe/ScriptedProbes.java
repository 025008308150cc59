package dev.vitals.kubesim.probe;

import dev.vitals.kubesim.model.ProbeExecutor;
import dev.vitals.kubesim.model.ProbeOutcome;
import dev.vitals.kubesim.model.ProbeResult;
import dev.vitals.kubesim.model.ProbeSpec;
import dev.vitals.kubesim.model.SimTime;
import dev.vitals.kubesim.runtime.ScriptedContainer;

import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * A probe executor on a {@link SimTime} that answers from a script instead of the network:
 * for rule tests and predictions. The outcome's latency is how long the evaluation takes in
 * simulated time. Not thread-safe: use it on the simulation's thread.
 */
public final class ScriptedProbes implements ProbeExecutor {
    private final SimTime time;
    private final ScriptedContainer container;
    private final Script script;
    private final long t0;

    /** Decides each probe's outcome. */
    @FunctionalInterface
    public interface Script {
        /**
         * @param probe the probe
         * @param instance the container instance
         * @param sinceInstanceStart seconds since that instance started
         * @param sinceStart seconds since the simulation started
         * @return the outcome; its latency is the simulated evaluation time
         */
        ProbeOutcome answer(ProbeSpec probe, int instance, double sinceInstanceStart, double sinceStart);
    }

    /**
     * @param time the simulation's time (its current time is taken as the start)
     * @param container gives instance start times
     * @param script the answers
     */
    public ScriptedProbes(SimTime time, ScriptedContainer container, Script script) {
        this.time = Objects.requireNonNull(time, "time");
        this.container = Objects.requireNonNull(container, "container");
        this.script = Objects.requireNonNull(script, "script");
        this.t0 = time.monotonicTime();
    }

    /** @return a success answered in 1 ms */
    public static ProbeOutcome ok() {
        return ProbeOutcome.of(ProbeResult.SUCCESS, "scripted success", Duration.ofMillis(1));
    }

    /** @return a failure answered in 1 ms (e.g. HTTP 500 or connection refused) */
    public static ProbeOutcome fail() {
        return ProbeOutcome.of(ProbeResult.FAILURE, "scripted failure", Duration.ofMillis(1));
    }

    /**
     * A scripted timeout.
     *
     * @param p the probe whose timeoutSeconds the attempt takes
     * @return a timeout: a Failure after the probe's full timeoutSeconds
     */
    public static ProbeOutcome timeout(ProbeSpec p) {
        return ProbeOutcome.of(ProbeResult.FAILURE, "scripted timeout after " + p.timeoutSeconds() + "s", p.timeout());
    }

    @Override
    public void execute(ProbeSpec probe, int instance, Consumer<ProbeOutcome> done) {
        long now = time.monotonicTime();
        ProbeOutcome o = script.answer(probe, instance, (now - container.startedAt(instance)) / 1e9, (now - t0) / 1e9);
        time.schedule(o.latency().toNanos(), () -> done.accept(o));
    }
}
