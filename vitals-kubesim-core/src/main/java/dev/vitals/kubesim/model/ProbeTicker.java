package dev.vitals.kubesim.model;

import dev.vitals.Scheduler;

/**
 * A probe worker's schedule as one state machine (kubelet: pkg/kubelet/prober/worker.go, its
 * ticker and manual trigger): a fixed ticker anchored when the worker begins (R14), optionally
 * after a start jitter (R15); at most one tick queued behind the evaluation in flight (R18); the
 * manual readiness trigger, which collapses repeated requests, waits behind an evaluation in
 * flight and restarts the ticker P after it runs (R19).
 *
 * <p>{@link Phase} says whether the ticker runs and whether an evaluation is in flight;
 * {@link Queued} what waits behind it. Runs on the model's scheduler thread; not thread-safe.
 */
final class ProbeTicker {
    /** Where the ticker is. */
    enum Phase {
        /** Created after a kubelet restart, sleeping its start jitter (R15). */
        JITTER,
        /** Ticking, no evaluation in flight. */
        IDLE,
        /** Ticking, an evaluation in flight (R18: ticks queue behind it). */
        IN_FLIGHT,
        /** Stopped (R20, R53); terminal. */
        HALTED
    }

    /** What runs when the evaluation in flight returns (or, in JITTER, when the ticker begins). */
    enum Queued {
        NONE,
        /** A tick came during the evaluation (R18: at most one kept). */
        TICK,
        /** A manual run was asked for; it supersedes a queued tick and restarts the ticker (R19). */
        MANUAL
    }

    private final SimTime time;
    private final long period;
    private final Runnable evaluate;
    private Phase phase = Phase.IDLE;
    private Queued queued = Queued.NONE;
    private long anchor;
    private long k;
    private Scheduler.Cancellable tick;
    /** The posted manual run not yet run, or null (repeated requests collapse into it). */
    private Scheduler.Cancellable manualRun;
    // one task for every tick, beside the ticker in memory (a fleet model runs tens of millions of ticks)
    private final Runnable tickTask = this::tick;

    /**
     * @param time the model's time
     * @param period the probe period in nanoseconds
     * @param evaluate one evaluation (spec §3.1); it calls {@link #evaluationStarted()} if it starts one
     */
    ProbeTicker(SimTime time, long period, Runnable evaluate) {
        this.time = time;
        this.period = period;
        this.evaluate = evaluate;
    }

    Phase phase() {
        return phase;
    }

    boolean halted() {
        return phase == Phase.HALTED;
    }

    /** Tick 0 now, then every period from here (R14); a manual run asked for during the jitter follows. */
    void begin() {
        phase = Phase.IDLE;
        anchor = time.monotonicTime();
        k = 0;
        scheduleTick();
        boolean manualAsked = queued == Queued.MANUAL;
        queued = Queued.NONE;
        onTick();
        if (manualAsked) {
            manualTrigger();
        }
    }

    /** Sleeps {@code jitterNanos} first (R15), then {@link #begin()}. */
    void beginAfter(long jitterNanos) {
        phase = Phase.JITTER;
        tick = time.schedule(jitterNanos, () -> {
            if (phase != Phase.HALTED) {
                begin();
            }
        });
    }

    /** Stops for good: later ticks, manual runs and queued work are dropped. */
    void halt() {
        phase = Phase.HALTED;
        queued = Queued.NONE;
        if (tick != null) {
            tick.cancel();
        }
    }

    /** R19: a non-blocking request for an extra evaluation. */
    void manualTrigger() {
        if (phase == Phase.HALTED || manualRun != null) {
            return;
        }
        if (phase == Phase.JITTER) {
            queued = Queued.MANUAL; // runs once the ticker begins
            return;
        }
        manualRun = time.schedule(0, () -> {
            manualRun = null;
            if (phase == Phase.HALTED) {
                return;
            }
            if (phase == Phase.IN_FLIGHT) {
                queued = Queued.MANUAL;
                return;
            }
            restart();
            evaluate.run();
        });
    }

    /** The worker started an evaluation. */
    void evaluationStarted() {
        phase = Phase.IN_FLIGHT;
    }

    /** The evaluation in flight returned (a halted ticker stays halted). */
    void evaluationDone() {
        if (phase == Phase.IN_FLIGHT) {
            phase = Phase.IDLE;
        }
    }

    /** Runs what queued behind the evaluation that just returned: a manual run (R19) or one tick (R18). */
    void runQueued() {
        Queued q = queued;
        queued = Queued.NONE;
        if (q == Queued.MANUAL) {
            restart();
            evaluate.run();
        } else if (q == Queued.TICK) {
            evaluate.run();
        }
    }

    private void scheduleTick() {
        k++;
        long at = anchor + k * period;
        tick = time.schedule(at - time.monotonicTime(), tickTask);
    }

    /** The ticker's timer task: the next tick is scheduled, then this one runs. */
    private void tick() {
        scheduleTick();
        onTick();
    }

    /** R19: the next tick comes P after a manual run. */
    private void restart() {
        if (tick != null) {
            tick.cancel();
        }
        anchor = time.monotonicTime();
        k = 0;
        scheduleTick();
    }

    private void onTick() {
        if (phase == Phase.HALTED) {
            return;
        }
        if (phase == Phase.IN_FLIGHT) {
            if (queued == Queued.NONE) {
                queued = Queued.TICK; // R18: at most one tick queued; a queued manual run stays
            }
            return;
        }
        evaluate.run();
    }
}
