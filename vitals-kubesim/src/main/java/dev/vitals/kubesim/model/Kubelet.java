package dev.vitals.kubesim.model;

import dev.vitals.kubesim.probe.ProbeExecutor;
import dev.vitals.kubesim.probe.ProbeOutcome;
import dev.vitals.kubesim.probe.ProbeResult;
import dev.vitals.kubesim.runtime.ContainerRuntime;

import dev.vitals.Scheduler;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The kubelet model for one container: probe workers (§3), counting (§4–§5), startup gating
 * (§6), the Ready condition (§7), kills (§8) and CrashLoopBackOff (§9). Every method runs on
 * the {@link SimTime} scheduler thread, so the state needs no locks; callbacks from probe and
 * process threads are posted there. Not thread-safe by itself.
 */
public final class Kubelet {
    private final PodSpec pod;
    private final KubeletOptions opts;
    private final SimTime time;
    private final ContainerRuntime runtime;
    private final ProbeExecutor prober;
    private final Consumer<SimEvent> sink;
    private final Map<ProbeType, Worker> workers = new EnumMap<>(ProbeType.class);
    private final Map<ProbeType, String> publishedId = new EnumMap<>(ProbeType.class);
    private final Map<ProbeType, ProbeResult> published = new EnumMap<>(ProbeType.class);
    private final BackOff backOff;
    private long t0;

    // container status
    private int instanceNo;
    private String containerId;
    private ContainerRuntime.Instance current;
    private boolean running;
    private long startedAt;
    private long finishedAt = -1;
    private long previousFinishedAt = -1;
    private int restartCount;
    private boolean killing;
    private boolean killStartsAtOnce;
    private Scheduler.Cancellable sigkillTimer;
    private Scheduler.Cancellable restartTimer;
    private boolean terminal;
    private boolean started;
    private boolean ready;
    private boolean stopped;
    private boolean starting;
    private ContainerRuntime.Instance orphan;
    private final Map<Integer, Integer> earlyExits = new java.util.HashMap<>();

    public Kubelet(PodSpec pod, KubeletOptions opts, SimTime time, ContainerRuntime runtime, ProbeExecutor prober,
            Consumer<SimEvent> sink) {
        this.pod = pod;
        this.opts = opts;
        this.time = time;
        this.runtime = runtime;
        this.prober = prober;
        this.sink = sink;
        this.backOff = new BackOff(opts.initialBackoff().toNanos(), opts.maxBackoff().toNanos(),
                opts.backoffReset().toNanos());
    }

    /** Creates the workers (tick 0 now, R14) and schedules the first container start. */
    public void start() {
        t0 = time.monotonicTime();
        for (ProbeType t : ProbeType.values()) {
            pod.probe(t).ifPresent(spec -> workers.put(t, new Worker(spec)));
        }
        for (Worker w : workers.values()) {
            w.begin();
        }
        time.schedule(opts.containerStartDelay().toNanos(), this::startContainer);
    }

    /** Stops all workers and timers; later callbacks are ignored. */
    public void stop() {
        stopped = true;
        for (Worker w : workers.values()) {
            w.halt();
        }
        if (sigkillTimer != null) {
            sigkillTimer.cancel();
        }
        if (restartTimer != null) {
            restartTimer.cancel();
        }
    }

    public Optional<ContainerRuntime.Instance> currentInstance() {
        return running ? Optional.ofNullable(current) : Optional.empty();
    }

    /** @return the instance to shut down at the end: the running one, or one whose start raced the stop */
    public Optional<ContainerRuntime.Instance> instanceToShutDown() {
        return currentInstance().or(() -> Optional.ofNullable(orphan));
    }

    public int restartCount() {
        return restartCount;
    }

    public boolean ready() {
        return ready;
    }

    public int instance() {
        return instanceNo;
    }

    public double now() {
        return (time.monotonicTime() - t0) / 1e9;
    }

    /** Emits an ACTION note (scenario actions). */
    public void note(SimEvent.Type type, String detail) {
        emit(type, Optional.empty(), Optional.empty(), Optional.empty(), detail);
    }

    private void emit(SimEvent.Type type, Optional<ProbeType> probe, Optional<ProbeResult> result,
            Optional<Duration> latency, String detail) {
        sink.accept(new SimEvent(now(), type, instanceNo, probe, result, latency, detail));
    }

    // ---- container lifecycle ------------------------------------------------------------

    private void startContainer() {
        if (stopped) {
            return;
        }
        restartTimer = null;
        if (instanceNo > 0) {
            previousFinishedAt = finishedAt;
        }
        instanceNo++;
        final int inst = instanceNo;
        starting = true;
        // spawning may block: do it off the kubelet thread (R13: ticks must not wait)
        time.offload(() -> {
            ContainerRuntime.Instance started = null;
            RuntimeException failure = null;
            try {
                started = runtime.start(inst, code -> time.schedule(0, () -> onExit(inst, code)));
            } catch (RuntimeException e) {
                failure = e;
            }
            ContainerRuntime.Instance s0 = started;
            RuntimeException f0 = failure;
            time.schedule(0, () -> onStarted(inst, s0, f0));
        });
    }

    private void onStarted(int inst, ContainerRuntime.Instance instance, RuntimeException failure) {
        starting = false;
        if (stopped) {
            if (instance != null) {
                orphan = instance;
            }
            return;
        }
        if (inst > 1) {
            restartCount++; // R45
        }
        containerId = "c" + inst;
        current = instance;
        running = true;
        startedAt = time.monotonicTime();
        if (failure != null) {
            emit(SimEvent.Type.START, Optional.empty(), Optional.empty(), Optional.empty(),
                    "start failed: " + failure.getMessage() + " (restartCount " + restartCount + ")");
            onExit(inst, 128);
            return;
        }
        emit(SimEvent.Type.START, Optional.empty(), Optional.empty(), Optional.empty(),
                current.describe() + ", restartCount " + restartCount);
        updatePodStatus();
        Integer early = earlyExits.remove(inst);
        if (early != null) {
            onExit(inst, early);
        }
    }

    private void onExit(int inst, int code) {
        if (inst == instanceNo && starting && !stopped) {
            earlyExits.put(inst, code); // exited before the start was recorded
            return;
        }
        if (inst != instanceNo || !running || stopped) {
            return;
        }
        running = false;
        finishedAt = time.monotonicTime();
        if (sigkillTimer != null) {
            sigkillTimer.cancel();
            sigkillTimer = null;
        }
        String how = killing ? "killed by kubelet" : "exited by itself";
        emit(SimEvent.Type.EXIT, Optional.empty(), Optional.empty(), Optional.empty(),
                how + ", exit code " + code + signalName(code));
        updatePodStatus();
        if (killing) {
            killing = false;
            if (pod.restartPolicy() == RestartPolicy.NEVER) { // R42
                terminal = true;
            } else if (killStartsAtOnce) {
                startContainer();
            } else {
                attemptRestart();
            }
        } else if (pod.restartPolicy().restartsAfterExit(code)) {
            attemptRestart();
        } else {
            terminal = true;
        }
    }

    private static String signalName(int code) {
        if (code == 143) {
            return " (SIGTERM)";
        }
        if (code == 137) {
            return " (SIGKILL)";
        }
        return "";
    }

    /** R48: a restart attempt after the most recent instance exited at {@code finishedAt}. */
    private void attemptRestart() {
        if (stopped) {
            return;
        }
        long now = time.monotonicTime();
        backOff.gc(now);
        long wait = backOff.decide(now, finishedAt);
        if (wait <= 0) {
            startContainer();
            return;
        }
        long until = now + wait;
        long gcAt = backOff.lastUpdate() + opts.backoffReset().toNanos() + 1;
        long retryAt = Math.min(until, gcAt);
        emit(SimEvent.Type.BACKOFF, Optional.empty(), Optional.empty(), Optional.empty(),
                String.format("Back-off restarting failed container (CrashLoopBackOff): waiting %.1fs", (retryAt - now) / 1e9));
        restartTimer = time.schedule(retryAt - now, this::attemptRestart);
    }

    /** R41–R44, R50: a Failure verdict of liveness or startup kills the running container. */
    private void kill(ProbeType type) {
        ProbeSpec spec = pod.probe(type).orElseThrow();
        long grace = spec.terminationGracePeriodSeconds().orElse(pod.terminationGracePeriodSeconds()); // R43
        long effective = Math.max(grace, 2); // R44: never less than 2 s
        killing = true;
        boolean restart = pod.restartPolicy() != RestartPolicy.NEVER;
        emit(SimEvent.Type.KILL, Optional.of(type), Optional.empty(), Optional.empty(),
                "Container " + pod.containerName() + " failed " + type.label() + " probe"
                        + (restart ? ", will be restarted" : "") + " (SIGTERM, SIGKILL after " + effective + "s)");
        if (restart) {
            // R50: this sync looks at the instance that exited before the one being killed.
            long now = time.monotonicTime();
            backOff.gc(now);
            killStartsAtOnce = backOff.decide(now, previousFinishedAt) <= 0;
        }
        ContainerRuntime.Instance victim = current;
        final int inst = instanceNo;
        if (victim == null) {
            return;
        }
        time.offload(victim::terminate);
        sigkillTimer = time.schedule(Duration.ofSeconds(effective).toNanos(), () -> {
            if (inst == instanceNo && running && !stopped) {
                note(SimEvent.Type.ACTION, "grace period of " + effective + "s over: SIGKILL");
                time.offload(victim::kill);
            }
        });
    }

    // ---- results and pod status ---------------------------------------------------------

    private ProbeResult publishedFor(ProbeType t, String id) {
        return id != null && id.equals(publishedId.get(t)) ? published.get(t) : null;
    }

    /** The results manager (R23): stores a result and reacts only to changes. */
    private void publish(ProbeType t, String id, ProbeResult r, boolean verdict) {
        if (id.equals(publishedId.get(t)) && published.get(t) == r) {
            return;
        }
        publishedId.put(t, id);
        published.put(t, r);
        if (verdict) {
            emit(SimEvent.Type.VERDICT, Optional.of(t), Optional.of(r), Optional.empty(),
                    t.label() + " result is now " + r.label());
        }
        if (verdict && r == ProbeResult.FAILURE && t != ProbeType.READINESS && running && id.equals(containerId)
                && !killing) {
            kill(t); // R33, R41
        }
        if (t == ProbeType.LIVENESS && r != ProbeResult.FAILURE) {
            return; // R41: only liveness Failure changes cause a sync
        }
        updatePodStatus();
    }

    private void forget(ProbeType t, String id) {
        if (id.equals(publishedId.get(t))) {
            publishedId.remove(t);
            published.remove(t);
        }
    }

    /** UpdatePodStatus (R31, R32, R36) plus the manual readiness trigger (R19). */
    private void updatePodStatus() {
        if (stopped) {
            return;
        }
        boolean nowStarted = running && (!workers.containsKey(ProbeType.STARTUP)
                || publishedFor(ProbeType.STARTUP, containerId) == ProbeResult.SUCCESS);
        if (nowStarted && !started) {
            note(SimEvent.Type.STARTED, workers.containsKey(ProbeType.STARTUP) ? "container started (startup probe succeeded)"
                    : "container started (no startup probe)");
        }
        started = nowStarted;
        boolean nowReady = running && started && (!workers.containsKey(ProbeType.READINESS)
                || publishedFor(ProbeType.READINESS, containerId) == ProbeResult.SUCCESS);
        if (nowReady != ready) {
            ready = nowReady;
            emit(ready ? SimEvent.Type.READY : SimEvent.Type.NOT_READY, Optional.empty(), Optional.empty(),
                    Optional.empty(), ready ? "Ready condition true" : "Ready condition false" + (running ? "" : " (container not running)"));
        }
        Worker rw = workers.get(ProbeType.READINESS);
        if (rw != null && running && started
                && publishedFor(ProbeType.READINESS, containerId) != ProbeResult.SUCCESS) {
            rw.manualTrigger();
        }
    }

    // ---- the worker (pkg/kubelet/prober/worker.go) --------------------------------------

    private final class Worker {
        final ProbeSpec spec;
        final ProbeType type;
        final long period;
        ProbeResult lastResult = ProbeResult.UNKNOWN;
        int resultRun;
        boolean onHold;
        String lastId;
        boolean halted;
        boolean inFlight;
        boolean tickQueued;
        boolean manualQueued;
        long anchor;
        long k;
        Scheduler.Cancellable tick;

        Worker(ProbeSpec spec) {
            this.spec = spec;
            this.type = spec.type();
            this.period = spec.period().toNanos();
        }

        void begin() {
            anchor = time.monotonicTime();
            k = 0;
            scheduleTick();
            onTick(); // tick 0 (R14)
        }

        void halt() {
            halted = true;
            if (tick != null) {
                tick.cancel();
            }
        }

        private void scheduleTick() {
            k++;
            long at = anchor + k * period;
            tick = time.schedule(at - time.monotonicTime(), () -> {
                scheduleTick();
                onTick();
            });
        }

        private void resetTicker() { // R19
            if (tick != null) {
                tick.cancel();
            }
            anchor = time.monotonicTime();
            k = 0;
            scheduleTick();
        }

        void onTick() {
            if (halted) {
                return;
            }
            if (inFlight) {
                tickQueued = true; // R18: at most one tick queued
                return;
            }
            doProbe();
        }

        private boolean manualPending;

        /** R19: non-blocking request for an extra evaluation; repeated requests collapse into one. */
        void manualTrigger() {
            if (halted || manualPending) {
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

        private boolean initialValueStored() {
            return lastId != null;
        }

        /** §3.1: one evaluation. */
        private void doProbe() {
            if (halted || stopped) {
                return;
            }
            if (terminal && !running) { // step 1 / R20
                if (containerId != null) {
                    publish(type, containerId, ProbeResult.FAILURE, false);
                }
                halt();
                return;
            }
            if (containerId == null) { // step 2: no container ID yet
                return;
            }
            if (!containerId.equals(lastId)) { // step 3
                if (lastId != null) {
                    forget(type, lastId);
                }
                lastId = containerId;
                onHold = false;
                if (opts.resetCountersPerInstance()) {
                    lastResult = ProbeResult.UNKNOWN;
                    resultRun = 0;
                }
                publish(type, containerId, initialValue(), false); // R24
            }
            if (onHold) { // step 4
                return;
            }
            if (!running) { // step 5, R29
                publish(type, containerId, ProbeResult.FAILURE, false);
                return;
            }
            long sinceStart = (time.monotonicTime() - startedAt) / 1_000_000_000L;
            if (sinceStart < spec.initialDelaySeconds()) { // step 7, R16
                return;
            }
            if (type == ProbeType.STARTUP ? started : !started) { // step 8, R30
                return;
            }
            inFlight = true;
            final String id = containerId;
            prober.execute(spec, instanceNo, outcome -> time.schedule(0, () -> onDone(id, outcome)));
        }

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

        private void onDone(String id, ProbeOutcome o) {
            inFlight = false;
            if (halted || stopped) {
                return;
            }
            emit(SimEvent.Type.PROBE, Optional.of(type), Optional.of(o.result()), Optional.of(o.latency()),
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
                    publish(type, id, r, true);
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

    // ---- CrashLoopBackOff (client-go flowcontrol/backoff.go, kuberuntime doBackOff) -----

    static final class BackOff {
        private final long initial;
        private final long max;
        private final long reset;
        private boolean hasState;
        private long d;
        private long lastUpdate;

        BackOff(long initial, long max, long reset) {
            this.initial = initial;
            this.max = max;
            this.reset = reset;
        }

        long lastUpdate() {
            return lastUpdate;
        }

        /** Housekeeping GC (R48 last bullet). */
        void gc(long now) {
            if (hasState && now - lastUpdate > reset) {
                hasState = false;
            }
        }

        /**
         * R48. {@code finished} is the finish time of the most recent exited instance, or -1.
         *
         * @return 0 to start now (state updated), or the nanoseconds still to wait
         */
        long decide(long now, long finished) {
            if (finished < 0) {
                return 0;
            }
            if (hasState && finished - lastUpdate <= reset && now - finished < d) {
                return finished + d - now;
            }
            if (!hasState || now - lastUpdate > reset) {
                d = initial;
            } else {
                d = Math.min(2 * d, max);
            }
            hasState = true;
            lastUpdate = now;
            return 0;
        }
    }
}
