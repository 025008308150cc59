package dev.vitals.kubesim.model;

import dev.vitals.Scheduler;
import java.util.Optional;

/**
 * One probe worker: one (container, probe type), as {@code pkg/kubelet/prober/worker.go}.
 * A fixed ticker anchored at creation (R14), at most one tick queued behind a running
 * evaluation (R18), the manual readiness trigger (R19), the per-tick algorithm of spec §3.1
 * ({@link #doProbe()}) and the counting of R25–R27. Runs on the kubelet model's scheduler
 * thread; not thread-safe.
 */
final class ProbeWorker {
    private final Kubelet kubelet;
    private final ProbeSpec spec;
    private final ProbeType type;
    private final long period;
    private final SimTime time;
    private final ProbeExecutor prober;
    private final boolean resetPerInstance;

    private ProbeResult lastResult = ProbeResult.UNKNOWN;
    private int resultRun;
    private boolean onHold;
    private String lastId;
    private boolean halted;
    private boolean inFlight;
    private boolean tickQueued;
    private boolean manualQueued;
    private boolean manualPending;
    private boolean begun = true;
    private boolean manualAfterBegin;
    private long anchor;
    private long k;
    private Scheduler.Cancellable tick;

    ProbeWorker(Kubelet kubelet, ProbeSpec spec, SimTime time, ProbeExecutor prober, boolean resetPerInstance) {
        this.kubelet = kubelet;
        this.spec = spec;
        this.type = spec.type();
        this.period = spec.period().toNanos();
        this.time = time;
        this.prober = prober;
        this.resetPerInstance = resetPerInstance;
    }

    ProbeType type() {
        return type;
    }

    /** @return the period in nanoseconds */
    long period() {
        return period;
    }

    /** Tick 0 now, then every period on a ticker anchored here (R14). */
    void begin() {
        begun = true;
        anchor = time.monotonicTime();
        k = 0;
        scheduleTick();
        onTick();
        if (manualAfterBegin) { // a manual run asked for during the start jitter waits for it
            manualAfterBegin = false;
            manualTrigger();
        }
    }

    /**
     * A worker created right after a kubelet restart (R15, R55): it first sleeps
     * {@code jitterNanos} (uniform in [0, P)), then runs as {@link #begin()}. If
     * {@code keptId} is given, that container's results were kept across the restart, so
     * this worker does not store the initial value for it (R24 exception).
     */
    void beginAfterKubeletRestart(long jitterNanos, String keptId) {
        begun = false;
        lastId = keptId;
        tick = time.schedule(jitterNanos, () -> {
            if (!halted) {
                begin();
            }
        });
    }

    /** Stops the worker (R20, R53); later ticks and results are ignored. */
    void halt() {
        halted = true;
        if (tick != null) {
            tick.cancel();
        }
    }

    boolean halted() {
        return halted;
    }

    private void scheduleTick() {
        k++;
        long at = anchor + k * period;
        tick = time.schedule(at - time.monotonicTime(), () -> {
            scheduleTick();
            onTick();
        });
    }

    private void resetTicker() { // R19: the next tick comes P after a manual run
        if (tick != null) {
            tick.cancel();
        }
        anchor = time.monotonicTime();
        k = 0;
        scheduleTick();
    }

    private void onTick() {
        if (halted) {
            return;
        }
        if (inFlight) {
            tickQueued = true; // R18: at most one tick queued
            return;
        }
        doProbe();
    }

    /** R19: non-blocking request for an extra evaluation; repeated requests collapse into one. */
    void manualTrigger() {
        if (halted || manualPending) {
            return;
        }
        if (!begun) {
            manualAfterBegin = true;
            return;
        }
        manualPending = true;
        time.schedule(0, () -> {
            manualPending = false;
            if (halted) {
                return;
            }
            if (inFlight) {
                manualQueued = true;
                return;
            }
            resetTicker();
            doProbe();
        });
    }

    /** Spec §3.1: one evaluation, steps 1–9. */
    private void doProbe() {
        if (halted || kubelet.stopped()) {
            return;
        }
        ContainerState state = kubelet.state();
        String containerId = kubelet.statusContainerId();
        if (state == ContainerState.EXITED) { // step 1 / step 5 with R20: will not restart → stop
            if (containerId != null) {
                kubelet.publish(type, containerId, ProbeResult.FAILURE, false);
            }
            halt();
            return;
        }
        if (containerId == null) { // step 2: no container ID yet
            return;
        }
        if (!containerId.equals(lastId)) { // step 3: a new container ID
            if (lastId != null) {
                kubelet.forget(type, lastId);
            }
            lastId = containerId;
            onHold = false; // R45
            if (resetPerInstance) { // [CB]; the default keeps counters (R28)
                lastResult = ProbeResult.UNKNOWN;
                resultRun = 0;
            }
            kubelet.publish(type, containerId, initialValue(), false); // R24
        }
        if (onHold) { // step 4, R27
            return;
        }
        if (!state.running()) { // step 5, R29
            kubelet.publish(type, containerId, ProbeResult.FAILURE, false);
            return;
        }
        long sinceStart = (time.monotonicTime() - kubelet.startedAt()) / 1_000_000_000L;
        if (sinceStart < spec.initialDelaySeconds()) { // step 7, R16
            return;
        }
        if (type == ProbeType.STARTUP ? kubelet.started() : !kubelet.started()) { // step 8, R30
            return;
        }
        inFlight = true;
        final String id = containerId;
        prober.execute(spec, kubelet.instance(), outcome -> time.schedule(0, () -> onDone(id, outcome)));
    }

    /** R24: readiness Failure, liveness Success, startup Unknown. */
    private ProbeResult initialValue() {
        switch (type) {
            case READINESS:
                return ProbeResult.FAILURE;
            case LIVENESS:
                return ProbeResult.SUCCESS;
            default:
                return ProbeResult.UNKNOWN;
        }
    }

    /** Spec §3.1 steps 9–11. */
    private void onDone(String id, ProbeOutcome o) {
        inFlight = false;
        if (halted || kubelet.stopped()) {
            return;
        }
        kubelet.emit(SimEvent.Type.PROBE, Optional.of(type), Optional.of(o.result()), Optional.of(o.latency()),
                o.message() + (o.attempts() > 1 ? " (" + o.attempts() + " attempts)" : ""));
        if (o.result() != ProbeResult.ERROR) { // R22: an errored tick is discarded
            ProbeResult r = o.result().counted(); // R21
            if (r == lastResult) { // R25
                resultRun++;
            } else {
                lastResult = r;
                resultRun = 1;
            }
            if (resultRun >= spec.thresholdFor(r)) {
                boolean hold = (type == ProbeType.LIVENESS && r == ProbeResult.FAILURE) || type == ProbeType.STARTUP;
                if (hold) { // R27
                    onHold = true;
                    resultRun = 0;
                }
                kubelet.publish(type, id, r, true);
            }
        }
        if (manualQueued) {
            manualQueued = false;
            tickQueued = false;
            resetTicker();
            doProbe();
        } else if (tickQueued) {
            tickQueued = false;
            doProbe();
        }
    }
}
