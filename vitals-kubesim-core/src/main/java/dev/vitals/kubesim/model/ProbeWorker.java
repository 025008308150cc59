package dev.vitals.kubesim.model;

import java.util.Optional;

/**
 * One probe worker: one (container, probe type), as {@code pkg/kubelet/prober/worker.go}.
 * Its schedule — the ticker anchored at creation (R14), at most one tick queued behind a running
 * evaluation (R18), the manual readiness trigger (R19) — is a {@link ProbeTicker}; this class
 * holds the per-tick algorithm of spec §3.1 ({@link #doProbe()}) and the counting of R25–R27.
 * Runs on the kubelet model's scheduler thread; not thread-safe.
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
    private final ProbeTicker ticker;

    ProbeWorker(Kubelet kubelet, ProbeSpec spec, SimTime time, ProbeExecutor prober, boolean resetPerInstance) {
        this.kubelet = kubelet;
        this.spec = spec;
        this.type = spec.type();
        this.period = spec.period().toNanos();
        this.time = time;
        this.prober = prober;
        this.resetPerInstance = resetPerInstance;
        this.ticker = new ProbeTicker(time, period, this::doProbe);
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
        ticker.begin();
    }

    /**
     * A worker created right after a kubelet restart (R15, R55): it first sleeps
     * {@code jitterNanos} (uniform in [0, P)), then runs as {@link #begin()}. If
     * {@code keptId} is given, that container's results were kept across the restart, so
     * this worker does not store the initial value for it (R24 exception).
     */
    void beginAfterKubeletRestart(long jitterNanos, String keptId) {
        lastId = keptId;
        ticker.beginAfter(jitterNanos);
    }

    /** Stops the worker (R20, R53); later ticks and results are ignored. */
    void halt() {
        ticker.halt();
    }

    boolean halted() {
        return ticker.halted();
    }

    /** R19: non-blocking request for an extra evaluation; repeated requests collapse into one. */
    void manualTrigger() {
        ticker.manualTrigger();
    }

    /** Spec §3.1: one evaluation, steps 1–9. */
    private void doProbe() {
        if (ticker.halted() || kubelet.stopped()) {
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
        ticker.evaluationStarted();
        final String id = containerId;
        prober.execute(spec, kubelet.instance(), outcome -> time.schedule(0, () -> onDone(id, outcome)));
    }

    /** R24: readiness Failure, liveness Success, startup Unknown. */
    private ProbeResult initialValue() {
        return type.pick(ProbeResult.UNKNOWN, ProbeResult.SUCCESS, ProbeResult.FAILURE);
    }

    /** Spec §3.1 steps 9–11. */
    private void onDone(String id, ProbeOutcome o) {
        ticker.evaluationDone();
        if (ticker.halted() || kubelet.stopped()) {
            return;
        }
        if (kubelet.probeEvents()) {
            kubelet.emit(SimEvent.Type.PROBE, Optional.of(type), Optional.of(o.result()), Optional.of(o.latency()),
                    o.message() + (o.attempts() > 1 ? " (" + o.attempts() + " attempts)" : ""));
        }
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
        ticker.runQueued(); // R18, R19
    }
}
