package dev.vitals.kubesim.runtime;

import dev.vitals.kubesim.model.ContainerRuntime;
import dev.vitals.kubesim.model.SimTime;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.IntConsumer;

/**
 * A container runtime on a {@link SimTime} with no process behind it: for rule tests and
 * predictions. An instance runs until the kubelet stops it, or until it crashes by itself
 * when {@link #crashAfter(Duration, int)} is set. On SIGTERM it exits after
 * {@link #exitAfterTerm(Duration)} with 143, or never (only SIGKILL, 137) when
 * {@link #ignoreTerm()} is set. Not thread-safe: use it on the simulation's thread.
 */
public final class ScriptedContainer implements ContainerRuntime {
    private final SimTime time;
    private final List<Long> starts = new ArrayList<>();
    private Duration exitAfterTerm = Duration.ZERO;
    private boolean ignoreTerm;
    private java.util.function.IntFunction<Duration> crashAfter = i -> null;
    private int crashCode;

    /** @param time the simulation's time */
    public ScriptedContainer(SimTime time) {
        this.time = Objects.requireNonNull(time, "time");
    }

    /**
     * @return this runtime
     * @param d how long an instance takes to exit after SIGTERM (default 0)
     */
    public ScriptedContainer exitAfterTerm(Duration d) {
        this.exitAfterTerm = Objects.requireNonNull(d, "d");
        return this;
    }

    /**
     * Instances ignore SIGTERM; only SIGKILL after the grace period ends them.
     *
     * @return this runtime
     */
    public ScriptedContainer ignoreTerm() {
        this.ignoreTerm = true;
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

    @Override
    public Instance start(int instance, IntConsumer onExit) {
        starts.add(time.monotonicTime());
        boolean[] gone = new boolean[1];
        IntConsumer end = code -> {
            if (!gone[0]) {
                gone[0] = true;
                onExit.accept(code);
            }
        };
        Duration crash = crashAfter.apply(instance);
        if (crash != null) {
            time.schedule(crash.toNanos(), () -> end.accept(crashCode));
        }
        return new Instance() {
            @Override
            public String describe() {
                return "scripted instance " + instance;
            }

            @Override
            public void terminate() {
                if (!ignoreTerm) {
                    time.schedule(exitAfterTerm.toNanos(), () -> end.accept(143));
                }
            }

            @Override
            public void kill() {
                end.accept(137);
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
                gone[0] = true;
            }
        };
    }
}
