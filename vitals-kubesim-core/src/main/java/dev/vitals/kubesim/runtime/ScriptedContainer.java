package dev.vitals.kubesim.runtime;

import dev.vitals.kubesim.model.ContainerRuntime;
import dev.vitals.kubesim.model.SimTime;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.IntConsumer;

/**
 * A container runtime on a {@link SimTime} with no process behind it: for rule tests, predictions
 * and the fleet model's replicas. One instance at a time moves through {@link Phase}: it starts
 * {@link Phase#RUNNING}, or {@link Phase#STARTING} for {@link #startTime(Duration)}; it runs until
 * the kubelet stops it, until it crashes by itself when {@link #crashAfter(Duration, int)} is set,
 * or until {@link #kill()}. On SIGTERM it exits with 143 after {@link #exitAfterTerm(Duration)}
 * ({@link Phase#STOPPING} meanwhile), at once with {@link #exitOnTerm()} or while still starting,
 * or never (only SIGKILL, 137) with {@link #ignoreTerm()}. A {@link Listener} hears each move. Not
 * thread-safe: use it on the simulation's thread.
 */
public final class ScriptedContainer implements ContainerRuntime {
    /** Where the current instance is; the allowed moves are {@link #canMoveTo(Phase)}. */
    public enum Phase {
        /** Started, not answering yet (within {@link #startTime(Duration)}). */
        STARTING,
        /** Answering. */
        RUNNING,
        /** SIGTERM received: draining until it exits ({@link #exitAfterTerm(Duration)}). */
        STOPPING,
        /** No instance runs: before the first start, or after an exit. */
        EXITED;

        /**
         * @param next the phase to move to
         * @return whether an instance may move from this phase to {@code next}: a new instance
         *         only from EXITED; STARTING → RUNNING; RUNNING → STOPPING; every running phase → EXITED
         */
        public boolean canMoveTo(Phase next) {
            return switch (this) {
                case EXITED -> next == STARTING || next == RUNNING;
                case STARTING -> next == RUNNING || next == EXITED;
                case RUNNING -> next == STOPPING || next == EXITED;
                case STOPPING -> next == EXITED;
            };
        }
    }

    /** Hears the current instance's moves, on the simulation's thread, before the kubelet hears of an exit. */
    public interface Listener {
        /**
         * @param instance the kubelet's instance number (1, 2, …)
         * @param phase the phase just entered
         * @param exitCode with {@link Phase#EXITED}, the exit code; otherwise 0
         */
        void moved(int instance, Phase phase, int exitCode);
    }

    /** What SIGTERM does to a running instance. */
    private enum OnTerm {
        /** Drain for {@code exitAfterTerm}, then exit with 143. */
        DRAIN,
        /** Exit with 143 at once. */
        EXIT,
        /** Nothing; only SIGKILL ends it. */
        IGNORE
    }

    private final SimTime time;
    private final List<Long> starts = new ArrayList<>();
    private Duration exitAfterTerm = Duration.ZERO;
    private OnTerm onTerm = OnTerm.DRAIN;
    private java.util.function.IntFunction<Duration> crashAfter = i -> null;
    private int crashCode;
    private Optional<Duration> startTime = Optional.empty();
    private Listener listener = (instance, phase, code) -> { };
    // the current instance
    private Phase phase = Phase.EXITED;
    private int instance;
    private IntConsumer onExit;

    /** @param time the simulation's time */
    public ScriptedContainer(SimTime time) {
        this.time = Objects.requireNonNull(time, "time");
    }

    /**
     * @return this runtime
     * @param d how long an instance drains after SIGTERM before it exits (default 0: it exits
     *        after the tasks already due now)
     */
    public ScriptedContainer exitAfterTerm(Duration d) {
        this.exitAfterTerm = Objects.requireNonNull(d, "d");
        this.onTerm = OnTerm.DRAIN;
        return this;
    }

    /**
     * Instances exit with 143 as SIGTERM arrives (nothing to drain), inside the call.
     *
     * @return this runtime
     */
    public ScriptedContainer exitOnTerm() {
        this.onTerm = OnTerm.EXIT;
        return this;
    }

    /**
     * Instances ignore SIGTERM; only SIGKILL after the grace period ends them.
     *
     * @return this runtime
     */
    public ScriptedContainer ignoreTerm() {
        this.onTerm = OnTerm.IGNORE;
        return this;
    }

    /**
     * @param d each instance is {@link Phase#STARTING} for this long, then {@link Phase#RUNNING}
     *        (the move is a timer even for 0); without it an instance runs at once
     * @return this runtime
     */
    public ScriptedContainer startTime(Duration d) {
        this.startTime = Optional.of(Objects.requireNonNull(d, "d"));
        return this;
    }

    /**
     * @param l hears every move of the current instance (replaces the last one)
     * @return this runtime
     */
    public ScriptedContainer listener(Listener l) {
        this.listener = Objects.requireNonNull(l, "l");
        return this;
    }

    /**
     * @param runtime each instance exits by itself after running this long
     * @param code with this exit code
     * @return this runtime
     */
    public ScriptedContainer crashAfter(Duration runtime, int code) {
        Objects.requireNonNull(runtime, "runtime");
        return crashAfter(i -> runtime, code);
    }

    /**
     * @param runtimeOf for instance 1, 2, …: how long it runs before exiting by itself, or null
     *        for never
     * @param code with this exit code
     * @return this runtime
     */
    public ScriptedContainer crashAfter(java.util.function.IntFunction<Duration> runtimeOf, int code) {
        this.crashAfter = Objects.requireNonNull(runtimeOf, "runtimeOf");
        this.crashCode = code;
        return this;
    }

    /**
     * @param instance 1, 2, …
     * @return when that instance started, in {@link SimTime#monotonicTime()} nanoseconds
     * @throws IndexOutOfBoundsException if it has not started
     */
    public long startedAt(int instance) {
        return starts.get(instance - 1);
    }

    /** @return how many instances have started */
    public int instances() {
        return starts.size();
    }

    /** @return the current instance's phase ({@link Phase#EXITED} when none runs) */
    public Phase phase() {
        return phase;
    }

    /**
     * @param instance the kubelet's instance number
     * @return whether that instance is the current one and {@link Phase#RUNNING}
     */
    public boolean running(int instance) {
        return phase == Phase.RUNNING && this.instance == instance;
    }

    /** SIGKILL to the current instance from outside the kubelet (a fault): it exits with 137; nothing when none runs. */
    public void kill() {
        end(instances(), 137);
    }

    /** Starts instance {@code instance}; one still running is forgotten (it reports no exit). */
    @Override
    public Instance start(int instance, IntConsumer onExit) {
        forget();
        starts.add(time.monotonicTime());
        final int n = instances();
        this.instance = instance;
        this.onExit = onExit;
        Duration crash = crashAfter.apply(instance);
        if (crash != null) {
            time.schedule(crash.toNanos(), () -> end(n, crashCode));
        }
        if (startTime.isPresent()) {
            move(Phase.STARTING, 0);
            time.schedule(startTime.get().toNanos(), () -> {
                if (instances() == n && phase == Phase.STARTING) {
                    move(Phase.RUNNING, 0);
                }
            });
        } else {
            move(Phase.RUNNING, 0);
        }
        return new ScriptedInstance(n, instance);
    }

    /** The kubelet's handle on instance {@code n} (the {@code instance}-th it started); it acts only while that instance is the current one. */
    private final class ScriptedInstance implements Instance {
        private final int n;
        private final int instance;

        ScriptedInstance(int n, int instance) {
            this.n = n;
            this.instance = instance;
        }

        @Override
        public String describe() {
            return "scripted instance " + instance;
        }

        @Override
        public void terminate() {
            ScriptedContainer.this.terminate(n);
        }

        @Override
        public void kill() {
            end(n, 137);
        }

        @Override
        public void pause() {
        }

        @Override
        public void resume() {
        }

        @Override
        public void signal(String name) {
            if (name.equals("TERM")) {
                terminate();
            } else if (name.equals("KILL")) {
                kill();
            }
        }

        @Override
        public void shutdown(Duration grace) {
            if (instances() == n) {
                forget(); // the simulation ended
            }
        }
    }

    private void terminate(int n) {
        if (n != instances() || onTerm == OnTerm.IGNORE || phase == Phase.EXITED || phase == Phase.STOPPING) {
            return;
        }
        if (phase == Phase.STARTING || onTerm == OnTerm.EXIT) {
            end(n, 143); // nothing answered yet, or nothing to drain
            return;
        }
        move(Phase.STOPPING, 0);
        time.schedule(exitAfterTerm.toNanos(), () -> end(n, 143));
    }

    /** Instance {@code n} exits with {@code code}, unless it is not the current one or has exited. */
    private void end(int n, int code) {
        if (n != instances() || phase == Phase.EXITED) {
            return;
        }
        move(Phase.EXITED, code);
        onExit.accept(code);
    }

    /** The current instance is gone without an exit (the simulation ended, or a start replaced it): no listener, no exit code. */
    private void forget() {
        phase = Phase.EXITED;
    }

    /**
     * The one assignment of the phase besides {@link #forget()}: checks the move, then tells the listener.
     *
     * @throws IllegalStateException on a move {@link Phase#canMoveTo} refuses (a bug in this class)
     */
    private void move(Phase next, int exitCode) {
        if (!phase.canMoveTo(next)) {
            throw new IllegalStateException("scripted container: no move " + phase + " → " + next);
        }
        phase = next;
        listener.moved(instance, next, exitCode);
    }
}
