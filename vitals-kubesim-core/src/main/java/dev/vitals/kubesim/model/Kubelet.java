package dev.vitals.kubesim.model;

import dev.vitals.Scheduler;
import java.time.Duration;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The kubelet model for one container of one pod.
 *
 * <p>Read it top to bottom: the container's life is a {@code ContainerState} changed only by
 * {@link #transition(Event)} (each branch cites its rule in docs/spec/kubelet-probes.md); the
 * probe workers are {@link ProbeWorker}s (spec §3–§6); CrashLoopBackOff is a {@link BackOff}
 * (§9); the results cache and the Ready condition (R23, R31, R36, R19) come last.
 *
 * <p>Threading: every method runs on the {@link SimTime} scheduler thread, so the state needs
 * no locks; callbacks from probe and process threads are posted there with
 * {@code time.schedule(0, …)}. Not thread-safe by itself. Times are monotonic nanoseconds of
 * the {@link SimTime}; events carry seconds since {@link #start()}.
 */
public final class Kubelet {
    private final PodSpec pod;
    private final KubeletOptions opts;
    private final SimTime time;
    private final ContainerRuntime runtime;
    private final Consumer<SimEvent> sink;
    private final Map<ProbeType, ProbeWorker> workers = new EnumMap<>(ProbeType.class);
    private final Map<ProbeType, String> publishedId = new EnumMap<>(ProbeType.class);
    private final Map<ProbeType, ProbeResult> published = new EnumMap<>(ProbeType.class);
    private final BackOff backOff;
    private final ProbeExecutor prober;
    private long t0;

    // ---- the container's state --------------------------------------------------------
    private ContainerState state = ContainerState.WAITING;
    private int instanceNo;
    private String containerId;
    private ContainerRuntime.Instance current;
    private long startedAt;
    private long finishedAt = -1;
    private long previousFinishedAt = -1;
    private int restartCount;
    /** R50: decided when a probe kill starts; the replacement then starts at once. */
    private boolean killStartsAtOnce;
    /** R53: the pod is being deleted (nothing restarts), or null. */
    private Deletion deletion;
    private Scheduler.Cancellable sigkillTimer;
    private Scheduler.Cancellable restartTimer;
    private final Map<Integer, Integer> earlyExits = new HashMap<>();
    // ---- lifecycle hooks (Lifecycle) ----------------------------------------------------------
    /** The kill of the current instance in progress (TERMINATING's inner state), or null. */
    private Termination termination;
    /** Why the current instance was killed (kept after its exit until the next start), or null. */
    private String killReason;
    // ---- pod status (R31, R36) ----------------------------------------------------------
    private boolean started;
    private int startedInstance; // the last instance whose Started turned true
    private boolean inheritedStarted; // kubernetes#141155: this instance took Started from the previous one
    private boolean ready;
    // ---- the simulation's end -------------------------------------------------------------
    private boolean stopped;
    private ContainerRuntime.Instance orphan;
    // ---- for a pod of several containers (PodKubelet) ---------------------------------------
    private boolean gated;
    private int lastExitCode = -1;
    private Runnable changeListener = () -> { };
    private boolean probeEvents = true;
    private final java.util.Random jitter;

    /**
     * @param pod the pod (one container)
     * @param opts model options
     * @param time the time and the scheduler thread the model runs on
     * @param runtime starts container instances
     * @param prober evaluates probes
     * @param sink receives every event, on the scheduler thread; must not block
     */
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
        this.jitter = new java.util.Random(opts.jitterSeed());
    }

    /**
     * Keeps {@link SimEvent.Type#PROBE} events (one per probe evaluation) from the sink, for a
     * caller that reads none of them: the fleet model, whose tens of thousands of kubelets would
     * build one per probe tick. Every other event still reaches it; the model runs as before.
     */
    public void dropProbeEvents() {
        probeEvents = false;
    }

    /** Creates the workers (tick 0 now, R14) and schedules the first container start. */
    public void start() {
        t0 = time.monotonicTime();
        for (ProbeType t : ProbeType.values()) {
            pod.probe(t).ifPresent(spec -> workers.put(t, new ProbeWorker(this, spec, time, prober,
                    opts.resetCountersPerInstance())));
        }
        for (ProbeWorker w : workers.values()) {
            w.begin();
        }
        if (!gated) {
            time.schedule(opts.containerStartDelay().toNanos(), () -> transition(new StartDue()));
        }
    }

    /**
     * The kubelet process restarts (R55): every probe worker is recreated and first sleeps a
     * random part of its period (R15). With {@link KubeletOptions#keepStatusOnKubeletRestart()}
     * (kubelet 1.35+, the default) a container that has run for more than 10 s keeps its
     * results, so it stays started and, if it was Ready, Ready, until new results arrive;
     * otherwise every result goes back to its initial value (R24). Liveness and startup
     * workers of a pod being deleted are not recreated (R53). Counters start afresh (new
     * workers).
     */
    public void restartKubelet() {
        if (stopped) {
            return;
        }
        boolean keep = opts.keepStatusOnKubeletRestart() && state.running() && containerId != null
                && time.monotonicTime() - startedAt > Duration.ofSeconds(10).toNanos();
        note(SimEvent.Type.ACTION, "kubelet restarted: probe workers recreated with start jitter (R15); "
                + (keep ? "container status kept (R55)" : "results back to their initial values (R55, R24)"));
        for (ProbeWorker w : workers.values()) {
            w.halt();
        }
        workers.clear();
        if (!keep && containerId != null) {
            for (ProbeType t : ProbeType.values()) {
                forget(t, containerId);
            }
        }
        for (ProbeType t : ProbeType.values()) {
            if (deletion != null && t != ProbeType.READINESS) {
                continue;
            }
            pod.probe(t).ifPresent(spec -> workers.put(t, new ProbeWorker(this, spec, time, prober,
                    opts.resetCountersPerInstance())));
        }
        for (ProbeWorker w : workers.values()) {
            w.beginAfterKubeletRestart(jitter.nextLong(Math.max(1, w.period())), keep ? containerId : null);
        }
        updatePodStatus();
    }

    /**
     * For a pod of several containers ({@code PodKubelet}): {@link #start()} creates the
     * workers but leaves the container WAITING until {@link #release(Duration)} (init
     * containers run one after another, regular containers after them).
     */
    void gate() {
        gated = true;
    }

    /** Lets a gated container start after {@code delay}. */
    void release(Duration delay) {
        time.schedule(delay.toNanos(), () -> transition(new StartDue()));
    }

    /** @param listener runs on the scheduler thread after every state or status change */
    void onChange(Runnable listener) {
        this.changeListener = listener;
    }

    /** @return the exit code of the last exited instance, or -1 */
    int lastExitCode() {
        return lastExitCode;
    }

    /** @return the pod spec this container runs with */
    PodSpec spec() {
        return pod;
    }

    /** Ends the simulation: stops all workers and timers; later callbacks are ignored. */
    public void stop() {
        stopped = true;
        for (ProbeWorker w : workers.values()) {
            w.halt();
        }
        cancel(sigkillTimer);
        cancel(restartTimer);
        if (termination != null) {
            cancel(termination.deadline);
        }
    }

    /**
     * Deletes the pod (R53): the liveness and startup workers stop, the container gets the
     * stop signal with the pod's grace period (or {@code grace}, like
     * {@code deletionGracePeriodSeconds}, R43) and is not restarted; readiness keeps probing
     * until the container has exited.
     *
     * @param grace the deletion grace period, if it overrides the pod's
     */
    public void deletePod(Optional<Duration> grace) {
        transition(new Delete(grace.map(Duration::toSeconds).orElse(pod.terminationGracePeriodSeconds()), false));
    }

    /**
     * Deletes the pod as {@code PodKubelet} does for each of its containers, all at once
     * (kuberuntime_container.go killContainersWithSyncResult: one goroutine per container): the
     * preStop hook starts now; an {@code ordered} container (a sidecar,
     * kuberuntime_termination_order.go) then waits for {@link #turnCame()} before its stop signal,
     * at most what is left of the grace period.
     *
     * @param graceSeconds the grace period in seconds
     * @param ordered whether the stop signal waits for this container's turn
     */
    void deletePod(long graceSeconds, boolean ordered) {
        transition(new Delete(graceSeconds, ordered));
    }

    /**
     * This container's turn to stop has come (terminationOrdering: every regular container and the
     * next sidecar have exited). Idempotent; before the preStop hook ends it only records the turn.
     */
    void turnCame() {
        if (deletion != null && deletion.ordered() && !deletion.turnCame()) {
            deletion = deletion.withTurn();
            transition(new TurnCame(instanceNo, false));
        }
    }

    // ---- the state machine ----------------------------------------------------------------

    /** What can happen to the container. */
    sealed interface Event permits StartDue, Spawned, Exited, Kill, Delete, GraceOver, PostStartDone, PreStopReturned,
            PreStopDeadline, TurnCame {
    }

    /** The postStart hook of instance {@code n} returned: {@code error} empty on success. */
    record PostStartDone(int n, Optional<String> error) implements Event {
    }

    /** The preStop hook of instance {@code n} returned: {@code error} empty on success. */
    record PreStopReturned(int n, Optional<String> error) implements Event {
    }

    /** The grace period ran out while the preStop hook of instance {@code n} ran (executePreStopHook's time.After). */
    record PreStopDeadline(int n) implements Event {
    }

    /**
     * A sidecar's turn to stop (waitForTurn returned): its prerequisites exited, or
     * ({@code graceOver}) what was left of the grace period ran out.
     */
    record TurnCame(int n, boolean graceOver) implements Event {
    }

    /** The first start is due (R14), or a back-off wait is over (R48, R51). */
    record StartDue() implements Event {
    }

    /** The runtime created instance {@code n} ({@code handle}), or failed to ({@code failure}). */
    record Spawned(int n, ContainerRuntime.Instance handle, RuntimeException failure) implements Event {
    }

    /** Instance {@code n} exited with {@code code}. */
    record Exited(int n, int code) implements Event {
    }

    /** A liveness or startup Failure verdict on the running instance (R33, R41). */
    record Kill(ProbeType probe) implements Event {
    }

    /**
     * The pod is deleted (R53), with this grace period in seconds (R43 first match); {@code ordered}:
     * the stop signal waits for the container's turn (a sidecar, KEP-753).
     */
    record Delete(long graceSeconds, boolean ordered) implements Event {
    }

    /** The grace period ({@code seconds}) of instance {@code n} is over: SIGKILL (R44 step 3). */
    record GraceOver(int n, long seconds) implements Event {
    }

    /**
     * The only way into the container's state: {@link #apply(Event)} and the helpers it calls
     * (startInstance, onSpawned, terminate, onExit, attemptRestart) are the only code that
     * assigns it. An event that does not apply to the current state (an exit of an old
     * instance, a start after the simulation ended) is ignored.
     */
    private void transition(Event e) {
        ContainerState before = state;
        apply(e);
        if (state != before && !stopped) {
            changeListener.run();
        }
    }

    /**
     * The transition table (docs/DESIGN.md §7.1a), called only by {@link #transition(Event)}: the one
     * method over 60 lines in the engines, by choice (one case per state, the events it takes, read whole).
     */
    private void apply(Event e) {
        if (stopped) {
            if (e instanceof Spawned s && s.handle() != null) {
                orphan = s.handle(); // a start that raced the end: shut it down at the end
            }
            return;
        }
        switch (state) {
            case WAITING -> {
                if (e instanceof StartDue) {
                    startInstance(); // R14: the container starts after its workers exist
                } else if (e instanceof Delete) {
                    moveTo(ContainerState.EXITED); // R53: deleted before it ever ran
                }
            }
            case STARTING -> {
                if (e instanceof Spawned s && s.n() == instanceNo) {
                    onSpawned(s);
                } else if (e instanceof PostStartDone p && p.n() == instanceNo && postStartRunning()) {
                    onPostStartDone(p);
                } else if (e instanceof Exited x && x.n() == instanceNo) {
                    earlyExits.put(x.n(), x.code()); // exited before the start was recorded
                } else if (e instanceof Delete d) {
                    markDeleting(d); // acted on once the instance exists
                }
            }
            case RUNNING -> {
                if (e instanceof Exited x && x.n() == instanceNo) {
                    onExit(x.code(), false); // R39, R42: exited by itself
                } else if (e instanceof Kill k) {
                    terminate(k.probe(), null, graceFor(k.probe())); // R41–R44
                } else if (e instanceof Delete d) {
                    markDeleting(d);
                    terminate(null, POD_DELETED, d.graceSeconds()); // R53, R43 (1)
                }
            }
            case TERMINATING -> {
                if (e instanceof Exited x && x.n() == instanceNo) {
                    onExit(x.code(), true); // R42, R45, R50
                } else if (e instanceof PreStopReturned r && r.n() == instanceNo) {
                    onPreStopReturned(r);
                } else if (e instanceof PreStopDeadline d && d.n() == instanceNo && termination.phase == Termination.Phase.PRE_STOP) {
                    // executePreStopHook stops waiting; the hook goes on (a kubelet log line, no event)
                    note(SimEvent.Type.HOOK, "preStop hook not completed in the grace period of " + termination.graceLeft + "s");
                    endPreStop();
                } else if (e instanceof TurnCame t && t.n() == instanceNo && termination.phase == Termination.Phase.WAITING_FOR_TURN) {
                    onTurn(t.graceOver());
                } else if (e instanceof GraceOver g && g.n() == instanceNo) {
                    note(SimEvent.Type.ACTION, "grace period of " + g.seconds() + "s over: SIGKILL"); // R44 step 3
                    ContainerRuntime.Instance victim = current;
                    time.offload(victim::kill);
                } else if (e instanceof Delete d) {
                    markDeleting(d); // already stopping: no restart after it (R53)
                }
            }
            case BACK_OFF -> {
                if (e instanceof StartDue) {
                    attemptRestart(); // R48
                } else if (e instanceof Delete) {
                    markDeleting((Delete) e);
                    cancel(restartTimer);
                    moveTo(ContainerState.EXITED); // R53: a deleted pod restarts nothing
                    updatePodStatus();
                }
            }
            case EXITED -> {
                // terminal (R20, R42)
            }
        }
    }

    /**
     * The one assignment of the container's state: checks the move against
     * {@link ContainerState#canMoveTo} (§7.1a's table).
     *
     * @throws IllegalStateException on a move the table does not allow (a model bug)
     */
    private void moveTo(ContainerState next) {
        if (!state.canMoveTo(next)) {
            throw new IllegalStateException("kubelet model: no move " + state + " → " + next + " (DESIGN 7.1a)");
        }
        state = next;
    }

    /** {@link #moveTo(ContainerState)}, then the move's event (START, KILL or EXIT). */
    private void moveTo(ContainerState next, SimEvent.Type type, Optional<ProbeType> probe, String detail) {
        moveTo(next);
        emit(type, probe, Optional.empty(), Optional.empty(), detail);
    }

    /** The instance exists and its postStart hook runs: STARTING with a handle (startContainer step 4). */
    private boolean postStartRunning() {
        return state == ContainerState.STARTING && current != null;
    }

    /** WAITING or BACK_OFF → STARTING: ask the runtime for the next instance. */
    private void startInstance() {
        restartTimer = null;
        if (instanceNo > 0) {
            previousFinishedAt = finishedAt;
        }
        instanceNo++;
        final int n = instanceNo;
        moveTo(ContainerState.STARTING);
        current = null;
        termination = null;
        killReason = null;
        // spawning may block: do it off the kubelet thread (R13: ticks must not wait)
        time.offload(() -> {
            ContainerRuntime.Instance handle = null;
            RuntimeException failure = null;
            try {
                handle = runtime.start(n, code -> time.schedule(0, () -> transition(new Exited(n, code))));
            } catch (RuntimeException ex) {
                failure = ex;
            }
            Spawned s = new Spawned(n, handle, failure);
            time.schedule(0, () -> transition(s));
        });
    }

    /** STARTING → RUNNING (R45: restartCount goes up when the replacement starts). */
    private void onSpawned(Spawned s) {
        if (s.n() > 1) {
            restartCount++; // R45
        }
        containerId = "c" + s.n();
        // kubernetes#141155 (1.35-1.37): the new container's status inherits Started by name from the last one
        inheritedStarted = opts.startedInheritedOnContainerRestart() && s.n() > 1 && startedInstance == s.n() - 1;
        current = s.handle();
        startedAt = time.monotonicTime();
        if (s.failure() != null) {
            moveTo(ContainerState.RUNNING, SimEvent.Type.START, Optional.empty(),
                    "start failed: " + s.failure().getMessage() + " (restartCount " + restartCount + ")");
            onExit(128, false);
            return;
        }
        Optional<Lifecycle.Hook> postStart = pod.lifecycle().postStart();
        String startDetail = current.describe() + ", restartCount " + restartCount
                + postStart.map(h -> "; postStart hook " + h.describe() + " runs first").orElse("");
        if (postStart.isPresent()) {
            // startContainer step 4: the sync waits for the hook, so the status is not Running (no probes) yet
            emit(SimEvent.Type.START, Optional.empty(), Optional.empty(), Optional.empty(), startDetail);
            final int n = s.n();
            runHook(postStart.get(), n, POST_START_LIMIT, error -> transition(new PostStartDone(n, error)));
            return;
        }
        moveTo(ContainerState.RUNNING, SimEvent.Type.START, Optional.empty(), startDetail);
        nowRunning();
    }

    /** The runtime started the instance and its postStart hook (if any) returned: it is Running. */
    private void nowRunning() {
        updatePodStatus();
        Integer early = earlyExits.remove(instanceNo);
        if (early != null) {
            onExit(early, false);
        } else if (deletion != null) {
            terminate(null, POD_DELETED, deletion.graceSeconds()); // R53: deleted while it was starting
        }
    }

    /**
     * STARTING → RUNNING after postStart (kuberuntime_container.go startContainer step 4): on
     * failure a {@code FailedPostStartHook} event and a kill with the pod's grace period (its
     * preStop runs); the exited container is then restarted as any exit is (ContainerShouldRestart).
     */
    private void onPostStartDone(PostStartDone p) {
        moveTo(ContainerState.RUNNING);
        if (p.error().isEmpty()) {
            note(SimEvent.Type.HOOK, "postStart hook " + pod.lifecycle().postStart().map(Lifecycle.Hook::describe).orElse("")
                    + " completed: container Running");
            nowRunning();
            return;
        }
        note(SimEvent.Type.HOOK, "FailedPostStartHook: " + p.error().get());
        Integer early = earlyExits.remove(instanceNo);
        if (early != null) {
            onExit(early, false);
            return;
        }
        terminate(null, FAILED_POST_START, deletion != null ? deletion.graceSeconds() : pod.terminationGracePeriodSeconds());
    }

    /**
     * The most a postStart exec or httpGet hook is waited for here; the kubelet sets no limit.
     */
    static final Duration POST_START_LIMIT = Duration.ofMinutes(10);

    /**
     * Runs a hook off the kubelet thread ({@code sleep} on the model's time) and calls
     * {@code done} on the scheduler thread with the failure, if any.
     */
    private void runHook(Lifecycle.Hook hook, int instance, Duration limit, Consumer<Optional<String>> done) {
        if (hook instanceof Lifecycle.Sleep sl) {
            time.schedule(Math.min(sl.seconds(), LONGEST_SIGKILL_TIMER.toSeconds()) * 1_000_000_000L,
                    () -> done.accept(Optional.empty()));
            return;
        }
        ProbeHandler handler = ((Lifecycle.Handler) hook).handler();
        time.offload(() -> {
            Optional<String> error;
            try {
                error = prober.runHook(handler, instance, limit); // exec: inside that instance, as the CRI's exec
            } catch (RuntimeException ex) {
                error = Optional.of("hook failed: " + ex);
            }
            Optional<String> result = error;
            time.schedule(0, () -> done.accept(result));
        });
    }

    /** The reason {@link #terminate} gets for a kill after a failed postStart hook. */
    private static final String FAILED_POST_START = "FailedPostStartHook";
    /** The reason {@link #terminate} gets for pod deletion (R53). */
    private static final String POD_DELETED = "pod deleted";

    /**
     * The pod's deletion as this container sees it (R53; the two settings of its killContainer).
     *
     * @param graceSeconds the grace period (R43 first match)
     * @param ordered whether the stop signal waits for the container's turn (a sidecar, KEP-753)
     * @param turnCame whether that turn has come
     */
    private record Deletion(long graceSeconds, boolean ordered, boolean turnCame) {
        Deletion withTurn() {
            return new Deletion(graceSeconds, ordered, true);
        }
    }

    /**
     * RUNNING → TERMINATING (kuberuntime_container.go killContainer): the Killing event, then the
     * preStop hook if there is one and the grace period is above 0 (waited for at most the grace
     * period), a sidecar's turn on pod deletion, and the stop signal with what is left of the grace
     * period, never less than 2 s (R44, minimumGracePeriodInSeconds).
     *
     * @param probe the probe whose Failure verdict kills (R41), or null
     * @param why the reason when {@code probe} is null: pod deletion (R53) or FailedPostStartHook
     * @param grace the grace period in seconds (R43)
     */
    private void terminate(ProbeType probe, String why, long grace) {
        long effective = Math.max(grace, 2); // R44: never less than 2 s
        Optional<Lifecycle.Hook> preStop = pod.lifecycle().preStop().filter(h -> grace > 0);
        boolean ordered = probe == null && deletion != null && deletion.ordered() && grace > 0;
        String how = preStop.map(h -> "preStop hook " + h.describe() + " first, then "
                        + (ordered ? "its turn, " : "") + "SIGTERM; SIGKILL " + grace
                        + "s after the hook began at the latest, never less than 2s after SIGTERM")
                .orElse(ordered ? "SIGTERM at its turn (the regular containers and later sidecars exited), at most "
                        + grace + "s from now; SIGKILL then after what is left, never less than 2s"
                        : "SIGTERM, SIGKILL after " + effective + "s");
        if (probe == null) {
            moveTo(ContainerState.TERMINATING, SimEvent.Type.KILL, Optional.empty(),
                    "Stopping container " + pod.containerName() + ": " + why + " (" + how + ")");
        } else {
            boolean restart = pod.containerRestart().restartsAfterProbeKill(pod.restartPolicy()); // KEP-5307
            moveTo(ContainerState.TERMINATING, SimEvent.Type.KILL, Optional.of(probe),
                    "Container " + pod.containerName() + " failed " + probe.label() + " probe"
                            + (restart ? ", will be restarted" : "") + " (" + how + ")");
            if (restart) {
                // R50: this sync looks at the instance that exited before the one being killed.
                long now = time.monotonicTime();
                backOff.gc(now);
                killStartsAtOnce = backOff.decide(now, previousFinishedAt) <= 0;
            }
        }
        if (current == null) {
            return; // not spawned yet: nowRunning terminates it (R53)
        }
        killReason = probe == null ? why : probe.label();
        termination = new Termination(killReason, preStop, grace, time.monotonicTime());
        if (preStop.isEmpty()) {
            afterPreStop();
            return;
        }
        termination.phase = Termination.Phase.PRE_STOP;
        termination.hookRunning = true;
        final int n = instanceNo;
        // executePreStopHook: the hook runs in its own goroutine and may outlive the wait; the
        // runner's bound here is the instance's death at the latest (SIGKILL ≤ grace + 2 s after
        // the hook began), when the runtime's exec or the hook's connection would fail with it
        Duration bound = Duration.ofSeconds(Math.min(grace, LONGEST_SIGKILL_TIMER.toSeconds()) + 3);
        runHook(preStop.get(), n, bound, error -> transition(new PreStopReturned(n, error)));
        termination.deadline = time.schedule(Math.min(grace, LONGEST_SIGKILL_TIMER.toSeconds()) * 1_000_000_000L,
                () -> transition(new PreStopDeadline(n)));
    }

    /**
     * The preStop hook returned: a failure is the event FailedPreStopHook whenever that is (the
     * hook's goroutine records it), even after its wait ended; the kill goes on.
     */
    private void onPreStopReturned(PreStopReturned r) {
        if (termination == null || !termination.hookRunning) {
            return;
        }
        termination.hookRunning = false;
        r.error().ifPresent(msg -> note(SimEvent.Type.HOOK, "FailedPreStopHook: " + msg + " (the kill goes on)"));
        if (termination.phase == Termination.Phase.PRE_STOP) {
            endPreStop();
        }
    }

    /** executePreStopHook returned: its whole seconds come off the grace period. */
    private void endPreStop() {
        long now = time.monotonicTime();
        cancel(termination.deadline);
        long took = termination.secondsIn(now);
        termination.graceLeft -= Math.min(took, termination.graceLeft);
        note(SimEvent.Type.HOOK, "preStop hook over after " + took + "s: " + termination.graceLeft + "s of the grace period left");
        termination.since = now;
        afterPreStop();
    }

    /**
     * After the hook: a sidecar on pod deletion waits for its turn if time is left
     * ("if ordering != nil &amp;&amp; gracePeriod &gt; 0"), else the stop signal now.
     */
    private void afterPreStop() {
        boolean waits = deletion != null && deletion.ordered() && termination.reason.equals(POD_DELETED)
                && termination.graceLeft > 0;
        if (waits && !deletion.turnCame()) {
            termination.phase = Termination.Phase.WAITING_FOR_TURN;
            termination.since = time.monotonicTime();
            final int n = instanceNo;
            termination.deadline = time.schedule(Math.min(termination.graceLeft, LONGEST_SIGKILL_TIMER.toSeconds()) * 1_000_000_000L,
                    () -> transition(new TurnCame(n, true)));
            return;
        }
        termination.phase = Termination.Phase.SIGNALLED;
        sendStopSignal(termination.graceLeft);
    }

    /** waitForTurn returned: the whole seconds waited come off the grace period; then the stop signal. */
    private void onTurn(boolean graceOver) {
        cancel(termination.deadline);
        long waited = termination.secondsIn(time.monotonicTime());
        termination.graceLeft -= Math.min(waited, termination.graceLeft);
        note(SimEvent.Type.ACTION, (graceOver ? "the grace period ran out before its turn" : "its turn to stop")
                + " after " + waited + "s: SIGTERM, SIGKILL after " + Math.max(termination.graceLeft, 2) + "s");
        termination.phase = Termination.Phase.SIGNALLED;
        sendStopSignal(termination.graceLeft);
    }

    /** The stop signal now, SIGKILL after {@code grace} seconds, never less than 2 s (R44). */
    private void sendStopSignal(long grace) {
        long effective = Math.max(grace, 2); // minimumGracePeriodInSeconds
        ContainerRuntime.Instance victim = current;
        final int n = instanceNo;
        time.offload(victim::terminate);
        // the API server takes any int64 ≥ 0 (validation.go: ValidateNonnegativeField); a timer past
        // LONGEST_SIGKILL_TIMER is one no run reaches, and seconds × 1e9 would overflow
        sigkillTimer = time.schedule(Math.min(effective, LONGEST_SIGKILL_TIMER.toSeconds()) * 1_000_000_000L,
                () -> transition(new GraceOver(n, effective)));
    }

    /**
     * The longest SIGKILL timer set: a grace period beyond it (valid in the API, up to 2^63 - 1 s)
     * behaves the same in any run, since no run is that long.
     */
    static final Duration LONGEST_SIGKILL_TIMER = Duration.ofDays(366);

    /** R43: the failing probe's own grace period, else the pod's. */
    private long graceFor(ProbeType probe) {
        ProbeSpec spec = pod.probe(probe).orElseThrow();
        return spec.terminationGracePeriodSeconds().orElse(pod.terminationGracePeriodSeconds());
    }

    private void markDeleting(Delete d) {
        if (deletion == null) {
            deletion = new Deletion(d.graceSeconds(), d.ordered(), false);
            note(SimEvent.Type.ACTION, "pod deleted: liveness and startup probes stop, readiness continues (R53)");
            for (ProbeType t : new ProbeType[] {ProbeType.LIVENESS, ProbeType.STARTUP}) {
                ProbeWorker w = workers.get(t);
                if (w != null) {
                    w.halt(); // R53: StopLivenessAndStartup
                }
            }
        }
    }

    /**
     * RUNNING or TERMINATING → BACK_OFF (to be restarted) or EXITED (not restarted).
     *
     * @param code the exit code
     * @param killed whether the kubelet had sent the stop signal
     */
    private void onExit(int code, boolean killed) {
        finishedAt = time.monotonicTime();
        lastExitCode = code;
        cancel(sigkillTimer);
        sigkillTimer = null;
        boolean restart;
        if (deletion != null) {
            restart = false; // R53
        } else if (killed && FAILED_POST_START.equals(killReason)) {
            // FailedPostStartHook: the kill is not a probe's; the next sync sees an exited container
            restart = pod.containerRestart().restartsAfterExit(pod.restartPolicy(), code);
        } else if (killed) {
            // R42: whatever the exit code; a container's own policy overrides the pod's, its rules are not read
            restart = pod.containerRestart().restartsAfterProbeKill(pod.restartPolicy());
        } else {
            restart = pod.containerRestart().restartsAfterExit(pod.restartPolicy(), code); // R20, R42, KEP-5307
        }
        // the runtime's reason beyond the code: OOMKilled when the cgroup's memory limit killed it
        Optional<String> reason = current == null ? Optional.empty() : current.exitReason().filter(r -> r.equals("OOMKilled"));
        moveTo(restart ? ContainerState.BACK_OFF : ContainerState.EXITED, SimEvent.Type.EXIT, Optional.empty(),
                (killed ? "killed by kubelet" : "exited by itself") + ", exit code " + code
                        + reason.map(r -> " (" + r + ": the memory limit's OOM kill)").orElse(signalName(code)));
        if (termination != null) {
            cancel(termination.deadline);
            if (termination.hookRunning && termination.preStop.filter(h -> h instanceof Lifecycle.Handler).isPresent()) {
                // the runtime's exec (or the hook's connection) ends with the container: Run returns an error
                note(SimEvent.Type.HOOK, "FailedPreStopHook: the container exited while the preStop hook ran");
            }
            termination = null;
        }
        updatePodStatus(); // R29, R39: not running → not ready
        if (!restart) {
            return;
        }
        if (killed && killStartsAtOnce) {
            startInstance(); // R50: decided when the kill began
        } else {
            attemptRestart();
        }
    }

    /** R48: a restart attempt after the most recent instance exited at {@code finishedAt}. */
    private void attemptRestart() {
        long now = time.monotonicTime();
        backOff.gc(now);
        long wait = backOff.decide(now, finishedAt);
        if (wait <= 0) {
            startInstance();
            return;
        }
        long retryAt = Math.min(now + wait, backOff.gcAt()); // R48 last bullet, R51 without jitter
        emit(SimEvent.Type.BACKOFF, Optional.empty(), Optional.empty(), Optional.empty(),
                String.format("Back-off restarting failed container (CrashLoopBackOff): waiting %.1fs", (retryAt - now) / 1e9));
        restartTimer = time.schedule(retryAt - now, () -> transition(new StartDue()));
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

    private static void cancel(Scheduler.Cancellable c) {
        if (c != null) {
            c.cancel();
        }
    }

    // ---- results and pod status -----------------------------------------------------------

    private ProbeResult publishedFor(ProbeType t, String id) {
        return id != null && id.equals(publishedId.get(t)) ? published.get(t) : null;
    }

    /** The results manager (R23): stores a result and reacts only to changes. */
    void publish(ProbeType t, String id, ProbeResult r, boolean verdict) {
        if (id.equals(publishedId.get(t)) && published.get(t) == r) {
            return;
        }
        publishedId.put(t, id);
        published.put(t, r);
        if (verdict) {
            emit(SimEvent.Type.VERDICT, Optional.of(t), Optional.of(r), Optional.empty(),
                    t.label() + " result is now " + r.label());
        }
        if (verdict && r == ProbeResult.FAILURE && t != ProbeType.READINESS && state == ContainerState.RUNNING
                && id.equals(containerId)) {
            transition(new Kill(t)); // R33, R41
        }
        if (t == ProbeType.LIVENESS && r != ProbeResult.FAILURE) {
            return; // R41: only liveness Failure changes cause a sync
        }
        updatePodStatus();
    }

    /** Step 3 of spec §3.1: drop the cached result of an old container ID. */
    void forget(ProbeType t, String id) {
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
        boolean running = state.running();
        boolean nowStarted = running && (!workers.containsKey(ProbeType.STARTUP)
                || publishedFor(ProbeType.STARTUP, containerId) == ProbeResult.SUCCESS || inheritedStarted);
        if (nowStarted && !started) {
            startedInstance = instanceNo;
            note(SimEvent.Type.STARTED, inheritedStarted ? "container started (Started inherited from the previous container,"
                    + " kubernetes#141155: liveness and readiness are not gated by the startup probe)"
                    : workers.containsKey(ProbeType.STARTUP) ? "container started (startup probe succeeded)"
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
        changeListener.run();
        ProbeWorker rw = workers.get(ProbeType.READINESS);
        if (rw != null && running && started
                && publishedFor(ProbeType.READINESS, containerId) != ProbeResult.SUCCESS) {
            rw.manualTrigger();
        }
    }

    // ---- what the workers and the simulation read -----------------------------------------

    /** @return the container's state */
    ContainerState state() {
        return state;
    }

    boolean stopped() {
        return stopped;
    }

    String containerId() {
        return containerId;
    }

    /**
     * The container ID the probe workers see in the pod status: none while the sync that
     * started the instance still runs its postStart hook, or kills it after that hook failed
     * (startContainer returns only then, and the status is written at the next sync).
     */
    String statusContainerId() {
        return postStartRunning() || FAILED_POST_START.equals(killReason) ? null : containerId;
    }

    /** @return whether the sink takes {@link SimEvent.Type#PROBE} events ({@link #dropProbeEvents()}) */
    boolean probeEvents() {
        return probeEvents;
    }

    long startedAt() {
        return startedAt;
    }

    boolean started() {
        return started;
    }

    /** @return the running (or terminating) instance, if any */
    public Optional<ContainerRuntime.Instance> currentInstance() {
        return state.running() ? Optional.ofNullable(current) : Optional.empty();
    }

    /** @return the instance to shut down at the end: the running one, or one whose start raced the end */
    public Optional<ContainerRuntime.Instance> instanceToShutDown() {
        return currentInstance().or(() -> postStartRunning() ? Optional.ofNullable(current) : Optional.empty())
                .or(() -> Optional.ofNullable(orphan));
    }

    /** @return how many times the container was restarted (R45) */
    public int restartCount() {
        return restartCount;
    }

    /** @return the Ready condition (R36) */
    public boolean ready() {
        return ready;
    }

    /** @return the current instance number: 1, 2, …; 0 before the first start */
    public int instance() {
        return instanceNo;
    }

    /** @return seconds since {@link #start()} */
    double now() {
        return (time.monotonicTime() - t0) / 1e9;
    }

    /**
     * Emits a note (scenario actions and the like).
     *
     * @param type the event type
     * @param detail what happened
     */
    public void note(SimEvent.Type type, String detail) {
        emit(type, Optional.empty(), Optional.empty(), Optional.empty(), detail);
    }

    void emit(SimEvent.Type type, Optional<ProbeType> probe, Optional<ProbeResult> result,
            Optional<Duration> latency, String detail) {
        sink.accept(new SimEvent(Duration.ofNanos(time.monotonicTime() - t0), type, instanceNo, probe, result, latency, detail));
    }
}
