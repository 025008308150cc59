package dev.vitals.agent.impl;

import dev.vitals.Availability;
import dev.vitals.Health;
import dev.vitals.HealthCheck;
import dev.vitals.Scheduler;
import dev.vitals.Status;
import dev.vitals.internal.Logs;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The readiness check {@code app} and the start-up gate: the application's own health endpoint
 * (HTTP/1.1, or {@code grpc.health.v1} over h2c), called in the background on loopback
 * (DESIGN.md section 7d).
 *
 * <ul>
 *   <li><b>Detection</b> ({@code readiness=auto}) starts from what is loaded ({@link Frameworks}):
 *       the framework's own readiness paths are asked on each application port, one request per
 *       candidate and port, on one kept-alive connection; no request to a path nobody serves; a
 *       port of unknown protocol that holds a request unanswered for a full timeout is asked
 *       again only after every other port (a silent port does not hide the HTTP one). A
 *       framework recognised with no health endpoint (Quarkus without a health extension, Spring
 *       Boot without Actuator) gets no request at all: readiness follows the listener (a TCP
 *       connect, no byte sent). When grpc-java is loaded, ports are first asked over h2c
 *       ({@link GrpcHealthCall}): a gRPC port never receives HTTP/1. A candidate that does not
 *       answer within the run is waited for on the next run, never asked twice.</li>
 *   <li><b>Readiness</b>: answers 200–399 (gRPC: SERVING) are UP; any other status is DOWN
 *       "answered 503"; a refused connection is DOWN "not listening". One call in flight: a call
 *       not answered within {@code readiness-timeout} is DOWN "timed out", and later runs wait on
 *       that same call rather than starting another, so a hung framework check costs the
 *       application one connection and one thread. After {@link #ABANDON_AFTER_TIMEOUTS}
 *       timeouts' worth of waiting it is closed and a new call starts.</li>
 *   <li><b>The poll's own budget</b> (issue 30): one kept connection of its own to the
 *       application (never through the probe server, its accept queue or its connection cap), and
 *       a deadline of a full {@code readiness-timeout} counted from the poll's request, not from the
 *       start of the run (the run first scans {@code /proc} for ports, which a flood of the probe
 *       port's connections slows); an answer counts by when it reached the agent's socket, not by
 *       when the agent's thread, slowed by the same load, got to read it (a last {@link LoopbackGet#poll} at the deadline).</li>
 *   <li><b>Startup</b> ({@code /startupz}) means started, never "a dependency is reachable": it
 *       completes when the framework's started endpoint answers 2xx ({@code /q/health/started},
 *       Spring Boot's liveness group, Micronaut's liveness, Helidon's {@code started}), or, for a
 *       framework without one, when an application port answers its protocol (an HTTP status of
 *       any value, HTTP/2 frames) or, with no endpoint to ask, accepts a connection; an
 *       unrecognised application whose port takes a request and holds it past
 *       {@code readiness-timeout} is started too (it listens; readiness reports the hang; on
 *       Linux "takes" means accepted and read, from the kernel's tables: a port bound and not yet
 *       accepting is not started), once no other port is left to ask.</li>
 * </ul>
 * <p><b>No thread of its own</b> (issue 37): the agent runs it as an inline asynchronous check on
 * Vitals' scheduler thread ({@link #start(Scheduler)}). Every socket is a non-blocking channel
 * ({@link LoopbackGet}, {@link GrpcHealthCall}, {@link LoopbackConnect}); a run is a series of
 * <em>steps</em> ({@link #step()}), each of which connects, writes and reads what has arrived,
 * never waiting. A step that finds an answer still pending before its deadline unwinds (an
 * internal {@code Pending}) and the next step is scheduled a few milliseconds later, at the
 * latest at that deadline; it re-enters the run where it stopped: the run's deadlines, the calls
 * it has issued and its readiness result are kept in fields, so nothing is asked twice, and what
 * is decided only at a timeout (a tentative endpoint, "timed out", "unanswered for") is decided
 * only once the deadline has passed, after a last read of what had arrived. {@link #check()} is
 * the blocking form (the same steps, with pauses between them) for tests.
 *
 * <p>Runs single flight (by the engine), so it is never called concurrently with itself; its
 * steps run one after another, handed over through the scheduler's queue.
 */
final class AppReadiness implements HealthCheck {
    static final int ABANDON_AFTER_TIMEOUTS = 30;
    private static final System.Logger LOG = Logs.get("dev.vitals.agent");
    /** The first pause between two steps of a run; doubled after each step, up to {@link #STEP_MAX_NANOS}. */
    static final long STEP_MIN_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    /**
     * The longest pause between two steps: a call still pending is read every 50 ms until its
     * deadline (about 20 wake-ups of the scheduler a second while one hangs; the deadline itself
     * is a step of its own, so a longer pause never delays a timeout, only the sight of an early
     * answer).
     */
    static final long STEP_MAX_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    /**
     * Thrown by a step that must wait for an answer before its deadline: unwinds the run to
     * {@link #step()}, which schedules the next step. One instance, no stack trace.
     */
    private static final class Pending extends RuntimeException {
        private static final long serialVersionUID = 1L;
        static final Pending INSTANCE = new Pending();

        private Pending() {
            super("answer pending", null, false, false);
        }
    }

    private enum Purpose { DETECT, READY }

    private final AgentOptions options;
    private final Supplier<List<Integer>> ports;
    private final Supplier<Availability> availability;
    /** The latest result of a run that asked (or waited for) the application; the run's thread only, read while draining. */
    private volatile Health lastAnswer;
    private final Consumer<List<Integer>> onPorts;
    private final Supplier<Frameworks.Framework> frameworks;
    private final long timeoutMillis;

    private Frameworks.Framework framework;
    /** The DOWN answer being backed off from, the current gap between calls and the runs left to skip. */
    private Health backoffHealth;
    private int gapRuns;
    private int skipRuns;
    /** The latest HTTP exchange (answered or in flight): its connection is reused. */
    private LoopbackGet last;
    /** The gRPC connection, once a port is known to speak gRPC. */
    private GrpcHealthCall grpc;
    private Purpose pendingPurpose; // non-null: 'last' (or 'grpc') is in flight for this
    /**
     * The start-up call (until started) and whether it is unanswered: on the readiness connection
     * when that one is free, handed back once answered; a connection of its own only while the
     * readiness call, or an earlier start-up call, is in flight (issue 37: a second connection made
     * Netty servers start an event-loop thread for it).
     */
    private LoopbackGet startedGet;
    private boolean startedPending;
    private List<Integer> app = List.of();
    private int pendingIndex;

    private int port = -1;      // the readiness endpoint's port
    private String path;        // HTTP endpoint path; null with grpcHealth false: follow the listener
    private boolean grpcHealth; // readiness from grpc.health.v1 on 'port'
    private boolean tentative;  // 'path' was taken while its answer was still pending (a hung check, or only slow)
    private boolean detected;
    private boolean startedByEndpoint = true; // false once the started endpoint answered 404
    private List<Integer> searched = List.of();
    /** Port → the h2c health call asking it, while unanswered. */
    private final Map<Integer, GrpcHealthCall> grpcProbes = new HashMap<>();
    /** Port → what it speaks, once known. */
    private final Map<Integer, String> protocol = new HashMap<>();
    /** Port → how many candidates, in order, it answered 404/405/401/403 to: a later run goes on from there. */
    private final Map<Integer, Integer> ruledOut = new HashMap<>();
    /**
     * Ports of unknown protocol that held a detection request unanswered for a full
     * {@code readiness-timeout}: asked after every other port, so a port that never answers (a
     * binary protocol waiting for its own greeting, a hung server) does not hide the others.
     */
    private final Set<Integer> silent = new HashSet<>();
    /** Why start-up may complete from a request held unanswered ({@link #noteHeld}); null: none seen. */
    private String heldWhy;
    /** Set by {@link #onCandidate} when the port closed the connection before a byte: undecided, asked again next run. */
    private boolean closedEmpty;
    private int heldPort;

    // ---- the run in progress (kept across its steps) --------------------------------------
    private boolean inRun;
    /** The run's result once readiness is decided (the start-up step may still be pending). */
    private Health runHealth;
    /** The run's bound: readiness, then the start-up step. */
    private long runEnd;
    /** The readiness part's deadline for detection and for a call left by an earlier run. */
    private long readyEnd;
    private boolean portsRead;
    private boolean frameworkAsked;
    /** The HTTP exchange this run issued, unanswered, and its deadline. */
    private LoopbackGet issued;
    private long issuedEnd;
    /** Whether this run sent a gRPC call on {@link #grpc}, unanswered, and its deadline. */
    private boolean grpcIssued;
    private long grpcEnd;
    /** The start-up call's deadline in this run; 0: not awaited yet in this run. */
    private long startedEnd;
    /** A listener connect in progress (start-up; readiness from the listener outside Linux) and its deadline. */
    private LoopbackConnect connect;
    private long connectEnd;
    /** The earliest deadline a pending step waits for, and the pause before the next step. */
    private long pendingUntil;
    private long stepPauseNanos = STEP_MIN_NANOS;

    /**
     * @param options the agent's options
     * @param ports the application's listening ports, ascending
     * @param availability the registry's availability (startup is marked complete on it)
     * @param onPorts told the ports each run (listener monitors)
     * @param frameworks the framework detection ({@link Frameworks#detect}), called until one is known
     */
    AppReadiness(AgentOptions options, Supplier<List<Integer>> ports, Supplier<Availability> availability,
                 Consumer<List<Integer>> onPorts, Supplier<Frameworks.Framework> frameworks) {
        this.options = options;
        this.ports = ports;
        this.availability = availability;
        this.onPorts = onPorts;
        this.frameworks = frameworks;
        this.timeoutMillis = options.readinessTimeout.toMillis();
        if (options.readiness.kind == AgentOptions.Readiness.Kind.URL) {
            port = options.readiness.port;
            path = options.readiness.path;
            detected = true;
        }
    }

    /**
     * The engine's timeout for this check: above the run's own bounds (one readiness-timeout for
     * the start-up call, one for the readiness call), which report first.
     */
    Duration engineTimeout() {
        return options.readinessTimeout.multipliedBy(2).plusSeconds(1);
    }

    /** @return the framework detected so far, for messages; null before the first run with ports */
    Frameworks.Framework framework() {
        return framework;
    }

    /**
     * One run, on Vitals' scheduler thread: its first step at once, then each next step scheduled
     * on {@code scheduler} while an answer is pending. Never blocks.
     *
     * @param scheduler the registry's scheduler
     * @return completes with the run's health (within the run's own bounds: at most two
     *     {@code readiness-timeout}s plus the scheduler's delays)
     */
    CompletionStage<Health> start(Scheduler scheduler) {
        CompletableFuture<Health> f = new CompletableFuture<>();
        stepOn(scheduler, f);
        return f;
    }

    private void stepOn(Scheduler scheduler, CompletableFuture<Health> f) {
        Health h;
        try {
            h = step();
        } catch (RuntimeException | Error e) {
            f.completeExceptionally(e);
            return;
        }
        if (h != null) {
            f.complete(h);
            return;
        }
        try {
            scheduler.schedule(nextPauseNanos(), () -> stepOn(scheduler, f));
        } catch (RejectedExecutionException e) {
            endRun(); // the registry is closing
            f.complete(Health.unknown("registry closed"));
        }
    }

    /**
     * The blocking form of a run (tests): the same steps as {@link #start(Scheduler)}, with a
     * pause between them on the calling thread.
     */
    @Override
    public Health check() {
        while (true) {
            Health h = step();
            if (h != null) {
                return h;
            }
            if (Thread.currentThread().isInterrupted()) {
                endRun();
                return Health.unknown("interrupted");
            }
            LockSupport.parkNanos(nextPauseNanos());
        }
    }

    /**
     * One step of a run; starts a run when none is in progress. Never waits.
     *
     * @return the run's health once decided, or {@code null} while an answer is pending: call
     *     again after {@link #nextPauseNanos()}
     */
    Health step() {
        if (!inRun) {
            Health last = lastAnswer;
            if (last != null && availability.get().isDraining()) {
                // Shutting down: readiness already reads DOWN (draining), whatever the application says,
                // and a call now may find its health checks torn down mid-answer (Quarkus logged a
                // RejectedExecutionException from a check in flight when Vert.x stopped). Its last answer
                // stands, unchanged, so no transition is logged either.
                return last;
            }
            if (skipRuns > 0 && pendingPurpose == null && started()) {
                skipRuns--;
                return backoffHealth; // the application answered this DOWN before: not asked again yet
            }
            beginRun();
        }
        pendingUntil = Long.MAX_VALUE;
        Health h;
        try {
            h = evaluate();
        } catch (Pending p) {
            return null;
        } catch (RuntimeException | Error e) {
            endRun();
            throw e;
        }
        endRun();
        backOff(h);
        lastAnswer = h;
        return h;
    }

    /** @return the pause before the next step: doubling from 1 ms to 50 ms, never past the deadline waited for */
    long nextPauseNanos() {
        long pause = stepPauseNanos;
        stepPauseNanos = Math.min(STEP_MAX_NANOS, stepPauseNanos * 2);
        long untilDeadline = pendingUntil == Long.MAX_VALUE ? pause : pendingUntil - System.nanoTime();
        return Math.max(0, Math.min(pause, untilDeadline));
    }

    private void beginRun() {
        inRun = true;
        long now = System.nanoTime();
        runEnd = now + 2 * timeoutMillis * 1_000_000L;
        readyEnd = now + timeoutMillis * 1_000_000L;
        runHealth = null;
        portsRead = false;
        frameworkAsked = false;
        issued = null;
        grpcIssued = false;
        startedEnd = 0;
        stepPauseNanos = STEP_MIN_NANOS;
    }

    private void endRun() {
        inRun = false;
        runHealth = null;
        issued = null;
        grpcIssued = false;
        if (connect != null) {
            connect.close();
            connect = null;
        }
    }

    /**
     * The step waits: unwinds to {@link #step()} unless {@code deadline} has passed.
     *
     * @param due whether the deadline had passed before the last read
     */
    private void pendingUnless(boolean due, long deadline) {
        if (!due) {
            pendingUntil = Math.min(pendingUntil, deadline);
            throw Pending.INSTANCE;
        }
    }

    private static boolean due(long deadline) {
        return System.nanoTime() - deadline >= 0;
    }

    /** The exchange's answer; pending before {@code deadline}; null (timed out) after it, once what arrived was read. */
    private LoopbackGet.Answer await(LoopbackGet g, long deadline) {
        boolean due = due(deadline); // the time first: what arrived before it is read below
        LoopbackGet.Answer a = g.poll();
        if (a == null) {
            pendingUnless(due, deadline);
        }
        return a;
    }

    private GrpcHealthCall.Answer await(GrpcHealthCall c, long deadline) {
        boolean due = due(deadline);
        GrpcHealthCall.Answer a = c.poll();
        if (a == null) {
            pendingUnless(due, deadline);
        }
        return a;
    }

    /**
     * Issue 40: frameworks log each health request (Quarkus an INFO line per call while a check is
     * down, Dropwizard's request log a line per call). While the application answers the same DOWN
     * (same status and message), calls are one run apart (runs come every
     * {@code readiness-interval}), then two, four, ... up to {@code readiness-backoff-max}; the
     * runs between report that answer again. Anything else (UP, a timeout, a refused connection,
     * another answer) ends the back-off: a loss of readiness is seen at the readiness period, and a
     * recovery at most {@code readiness-backoff-max} late. Never before start-up completes.
     */
    private void backOff(Health h) {
        Object http = h.details().get("httpStatus");
        Object grpcStatus = h.details().get("grpcStatus");
        boolean answeredDown = h.status() == Status.DOWN && pendingPurpose == null && started()
                && (http instanceof Integer && ((Integer) http < 200 || (Integer) http >= 400)
                    || grpcStatus != null && !"SERVING".equals(grpcStatus));
        if (!answeredDown) {
            backoffHealth = null;
            gapRuns = 0;
            skipRuns = 0;
            return;
        }
        long maxRuns = Math.max(1, options.readinessBackoffMax.toNanos() / options.readinessInterval.toNanos());
        boolean same = backoffHealth != null && backoffHealth.message().equals(h.message()) && backoffHealth.details().equals(h.details());
        gapRuns = same ? (int) Math.min(Math.max(gapRuns, 1) * 2L, maxRuns) : 1;
        skipRuns = gapRuns - 1;
        backoffHealth = h;
    }

    private boolean started() {
        return availability.get().isStartupComplete();
    }

    private void markStarted(String why) {
        if (!started()) {
            availability.get().markStartupComplete();
            LOG.log(System.Logger.Level.INFO, "startup complete: " + why);
        }
    }

    private long left(long end) {
        return (end - System.nanoTime()) / 1_000_000L;
    }

    /**
     * One run (re-entered by each of its steps): readiness, then (until started) the start-up
     * step, on the readiness connection when it is free, else on a connection of its own, so a
     * readiness call left hanging (a dependency blackholed at boot) never holds start-up back.
     */
    private Health evaluate() {
        if (runHealth == null) {
            runHealth = readiness(); // decided once: a pending start-up step does not re-enter it
        }
        if (!started() && !app.isEmpty()) {
            startedStep(runEnd);
        }
        return runHealth;
    }

    private Health readiness() {
        long end = readyEnd;
        if (pendingPurpose == Purpose.DETECT) {
            readPorts();
            LoopbackGet g = last;
            if (unasked(app, g.port)) {
                // A port appeared while one is silent: ask it rather than wait on the silent one.
                silent.add(g.port);
                g.close();
                last = null;
                pendingPurpose = null;
            }
        }
        if (pendingPurpose != null) {
            Health h = resumePending(end);
            if (h != null) {
                return h;
            }
            end = readyEnd = System.nanoTime() + timeoutMillis * 1_000_000L; // a new bound for this run's own calls
        }
        readPorts();
        AgentOptions.Readiness.Kind kind = options.readiness.kind;
        if (kind != AgentOptions.Readiness.Kind.URL) {
            if (app.isEmpty()) {
                return Health.builder(Status.DOWN).message(AppPorts.supported() || !options.appPorts.isEmpty()
                        ? "waiting for the application to listen" : "no app-port configured and no /proc to find it").build();
            }
            if (kind == AgentOptions.Readiness.Kind.NONE) {
                Health h = listenerOnly(app, "readiness not taken from the application (readiness=none)");
                if (h.status() == Status.UP) {
                    markStarted("port " + app.get(0) + " accepts connections");
                }
                return h;
            }
            if (!frameworkAsked && (framework == null || (!framework.known && !started()))) {
                framework = frameworks.get();
            }
            frameworkAsked = true;
            if (detected && path == null && !grpcHealth && !app.equals(searched)) {
                detected = false; // a new port appeared since nothing was found: look again
            }
            if (!detected) {
                Health h = detect(app, end);
                if (h != null) {
                    return h;
                }
            }
        }
        if (noProtocolPortYet()) {
            // Only ports that do not speak HTTP so far (an embedded database, say): not up yet.
            return Health.builder(Status.DOWN).message("waiting for the application's HTTP port (ports " + app
                    + " do not speak plain HTTP; a TLS-only application cannot be asked: readiness=none follows the listener)").build();
        }
        // The poll's own deadline: a full readiness-timeout from its request, whatever this run
        // spent before (the /proc port scan, which a flood of the probe port makes slow: issue 30).
        if (grpcHealth) {
            return grpcCall(timeoutMillis);
        }
        if (path == null) {
            return listenerOnly(httpOr(app), "no health endpoint " + (framework != null && framework.known
                    ? "for " + framework + " (" + Frameworks.describe(framework) + ")" : "found") + " on ports " + app
                    + "; readiness follows the listener");
        }
        return httpCall(Purpose.READY, port, path, 0, Math.max(1, timeoutMillis));
    }

    private void readPorts() {
        if (!portsRead) {
            app = ports.get();
            onPorts.accept(app);
            portsRead = true;
        }
    }

    /**
     * @return whether a port of {@code app} other than {@code except} has not been asked yet,
     *     or has candidates left and has not been silent
     */
    private boolean unasked(List<Integer> app, int except) {
        for (int q : app) {
            if (q != except && !silent.contains(q) && !protocol.containsKey(q)) {
                return true;
            }
        }
        return false;
    }

    /** Detection asked HTTP candidates and only ports that speak something else answered. */
    private boolean noProtocolPortYet() {
        return path == null && !grpcHealth && options.readiness.kind != AgentOptions.Readiness.Kind.URL
                && framework != null && !framework.readiness.isEmpty()
                && !protocol.containsValue("http") && !protocol.containsValue("grpc");
    }

    private List<Integer> httpOr(List<Integer> app) {
        List<Integer> http = new ArrayList<>();
        for (int p : app) {
            if (!"other".equals(protocol.get(p))) {
                http.add(p);
            }
        }
        return http.isEmpty() ? app : http;
    }

    /** Reads the call left in flight by an earlier run (pending until this run's readiness deadline); a Health to report, or null to go on. */
    private Health resumePending(long end) {
        Purpose purpose = pendingPurpose;
        if (purpose == Purpose.READY && grpcHealth) {
            GrpcHealthCall.Answer a = await(grpc, end);
            if (a == null) {
                return timedOutGrpc(true);
            }
            pendingPurpose = null;
            Health h = grpcAnswer(a);
            return h.status() == Status.UP ? late(grpc.ageMillis(), a.statusName(), h) : h;
        }
        LoopbackGet g = last;
        LoopbackGet.Answer a = await(g, end);
        if (a == null) {
            return timedOut(g, true);
        }
        pendingPurpose = null;
        switch (purpose) {
            case READY:
                if (tentative) {
                    tentative = false;
                    if (a.http() && ruledOutStatus(a.status)) {
                        protocol.put(g.port, "http");
                        ruledOut.put(g.port, pendingIndex + 1); // slow, not hung: not the endpoint after all
                        port = -1;
                        path = null;
                        detected = false;
                        return null;
                    }
                }
                if (a.http() && !started() && !hasStartedEndpoint()) {
                    markStarted("port " + g.port + " answers HTTP");
                }
                Health h = answer(a);
                return h.status() == Status.UP ? late(g.ageMillis(), "" + a.status, h) : h;
            default: // DETECT
                return onCandidate(g.port, pendingIndex, a, g);
        }
    }

    /**
     * Learns the readiness endpoint: gRPC ports first when grpc-java is loaded, then the
     * framework's candidates, one request each.
     *
     * @return a Health to report (still looking, or the first answer), or null once decided
     */
    private Health detect(List<Integer> app, long end) {
        List<String> candidates = options.readiness.kind == AgentOptions.Readiness.Kind.PATH
                ? List.of(options.readiness.path) : framework.readiness;
        boolean undecided = false;
        List<Integer> order = new ArrayList<>(app);
        if (framework.healthPort > 0 && order.remove((Integer) framework.healthPort)) {
            order.add(0, framework.healthPort);
        }
        for (int p : app) {
            if (silent.contains(p)) {
                order.remove((Integer) p);
                order.add(p); // asked after every other port
            }
        }
        if (framework.grpc && options.readiness.kind == AgentOptions.Readiness.Kind.AUTO) {
            for (int p : order) {
                if (protocol.containsKey(p)) {
                    continue;
                }
                long left = left(end);
                GrpcHealthCall c = grpcProbes.get(p);
                if (left <= 0 && c == null) {
                    return looking(app);
                }
                if (c == null) {
                    c = GrpcHealthCall.connect(p, left);
                    c.call();
                    grpcProbes.put(p, c);
                }
                GrpcHealthCall.Answer a = await(c, end); // a call already in flight is read once more at the deadline
                if (a == null) {
                    undecided = true; // no answer in time: the same call is waited for next run
                    continue;
                }
                grpcProbes.remove(p);
                if (a.refused) {
                    return Health.builder(Status.DOWN).message("port " + p + " refused a connection").build();
                }
                if (!a.h2) {
                    protocol.put(p, "not-h2");
                    c.close();
                    continue;
                }
                protocol.put(p, "grpc");
                if (a.noHealthService) {
                    c.close();
                    continue;
                }
                grpc = c;
                port = p;
                grpcHealth = true;
                detected = true;
                LOG.log(System.Logger.Level.INFO, "readiness from grpc.health.v1.Health/Check on port " + p);
                return null;
            }
        }
        ports:
        for (int p : order) {
            if ("grpc".equals(protocol.get(p)) || "other".equals(protocol.get(p))) {
                continue;
            }
            // Go on where an earlier run stopped: each candidate is asked once.
            for (int i = ruledOut.getOrDefault(p, 0); i < candidates.size(); i++) {
                long left = left(end);
                if (left <= 0 && !issuedHere(p, candidates.get(i))) {
                    return looking(app);
                }
                Health h = httpCall(Purpose.DETECT, p, candidates.get(i), i, left);
                if (pendingPurpose == Purpose.DETECT) {
                    if (unasked(order, p)) {
                        // Silent for a full timeout, and another port is still to ask: that one
                        // first (next run, this run's time is spent); this one is asked again last.
                        silent.add(p);
                        last.close();
                        last = null;
                        pendingPurpose = null;
                        continue ports;
                    }
                    undecided = true; // no answer yet: waited for next run
                    return h;
                }
                if (h != null) {
                    return h;
                }
                if (detected) {
                    return null;
                }
                if (closedEmpty) {
                    closedEmpty = false;
                    undecided = true; // the next port meanwhile
                    break;
                }
                if (!ruledOut.containsKey(p) || ruledOut.get(p) <= i) {
                    break; // not HTTP
                }
            }
        }
        if (undecided) {
            return looking(app);
        }
        if (options.readiness.kind == AgentOptions.Readiness.Kind.PATH) {
            return Health.builder(Status.DOWN).message("no port of " + app + " serves " + options.readiness.path).build();
        }
        detected = true; // nothing found: follow the listener (until the ports change)
        searched = List.copyOf(app);
        if ((!candidates.isEmpty() || framework.grpc) && (protocol.containsValue("http") || protocol.containsValue("grpc"))) {
            LOG.log(System.Logger.Level.INFO, "no health endpoint for " + framework + " on ports " + app
                    + "; readiness follows the listener");
        }
        return null;
    }

    private Health looking(List<Integer> app) {
        return Health.builder(Status.DOWN).message("looking for the application's health endpoint ("
                + framework + ": " + Frameworks.describe(framework) + ") on ports " + app).build();
    }

    /**
     * The answer to candidate {@code i} on port {@code p}: taken when it answers other than
     * 404/405/401/403; a port that does not answer HTTP is left out.
     *
     * @return a Health to report, or null to go on
     */
    private Health onCandidate(int p, int i, LoopbackGet.Answer a, LoopbackGet g) {
        if (a.refused) {
            return Health.builder(Status.DOWN).message("port " + p + " refused a connection").build();
        }
        silent.remove(p);
        if (!a.http() && a.closedEmpty() && !started()) {
            // Closed before a byte came back: no sign of what it speaks (a server still starting
            // may close connections). Asked again next run, not written off for good.
            closedEmpty = true;
            return null;
        }
        if (!a.http()) {
            protocol.put(p, "other");
            return null;
        }
        protocol.put(p, "http");
        if (!started() && !hasStartedEndpoint()) {
            markStarted("port " + p + " answers HTTP");
        }
        if (ruledOutStatus(a.status)) {
            ruledOut.put(p, i + 1);
            return null;
        }
        List<String> candidates = options.readiness.kind == AgentOptions.Readiness.Kind.PATH
                ? List.of(options.readiness.path) : framework.readiness;
        port = p;
        path = candidates.get(i);
        detected = true;
        LOG.log(System.Logger.Level.INFO, "readiness from " + AppPorts.origin(p) + path + " (" + framework + ")");
        return answer(a);
    }

    /** 404/405/401/403: not this candidate. */
    private static boolean ruledOutStatus(int status) {
        return status == 404 || status == 405 || status == 401 || status == 403;
    }

    private boolean hasStartedEndpoint() {
        return framework != null && framework.started != null && startedByEndpoint
                && options.readiness.kind == AgentOptions.Readiness.Kind.AUTO;
    }

    /**
     * Start-up, on a connection of its own: the framework's started endpoint where it has one;
     * else, for a framework recognised, its port accepting a connection; else (unknown) a port
     * answering HTTP, marked where the answer is read ({@link #onCandidate}, {@link #httpCall}).
     */
    private void startedStep(long runEnd) {
        if (hasStartedEndpoint()) {
            if (path != null && port > 0) {
                long wait = Math.max(1, Math.min(timeoutMillis, left(runEnd)));
                if (startedEnd == 0) {
                    startedEnd = System.nanoTime() + wait * 1_000_000L; // this run's bound for the start-up call
                }
                if (!startedPending) {
                    if (startedGet == null && last != null && pendingPurpose == null) {
                        startedGet = last.next(port, framework.started, wait); // the readiness connection, free
                        last = null;
                    } else {
                        startedGet = startedGet == null ? LoopbackGet.start(port, framework.started, wait)
                                : startedGet.next(port, framework.started, wait);
                    }
                    startedPending = true;
                }
                LoopbackGet.Answer a = await(startedGet, startedEnd);
                if (a == null) {
                    if (startedGet.ageMillis() >= timeoutMillis * ABANDON_AFTER_TIMEOUTS) {
                        startedGet.close();
                        startedGet = null;
                        startedPending = false;
                    }
                    return; // waited for on the next run, never asked twice at once; readiness opens another meanwhile
                }
                startedPending = false;
                onStarted(a, startedGet);
                if (last == null) {
                    last = startedGet; // answered: the readiness poll goes on on this connection
                    startedGet = null;
                } else if (started()) {
                    startedGet.close(); // not needed any more
                    startedGet = null;
                }
                return;
            }
            if (!detected) {
                return; // no port answered yet
            }
            startedByEndpoint = false; // the framework's endpoints are not served: the listener decides
        }
        if (grpcHealth) {
            markStarted("port " + port + " answers gRPC");
            return;
        }
        if (heldWhy != null && (framework == null || !framework.known)) {
            // Not while another port is left to ask, read afresh: one may have opened while the
            // run waited on this one (it is asked next run, the wait on this one given up).
            if (options.readiness.kind == AgentOptions.Readiness.Kind.URL || !unasked(ports.get(), heldPort)) {
                markStarted(heldWhy);
            }
            return;
        }
        if (noProtocolPortYet()) {
            return;
        }
        boolean known = framework != null && framework.known;
        if (known || (path == null && detected && (protocol.containsValue("http") || protocol.containsValue("grpc")))) {
            int p = port > 0 ? port : httpOr(app).get(0);
            if (connects(p)) { // pending while connecting (a full accept backlog), never waiting
                markStarted("port " + p + " accepts connections");
            }
        }
    }

    /**
     * Called when a call's deadline passes unanswered. For a framework not recognised, or a
     * {@code readiness} URL (no started endpoint), a port that took the request and holds it for
     * a full {@code readiness-timeout} is an application whose every request hangs from boot: it
     * is up and listening (a {@code tcpSocket} probe would pass it), so start-up completes;
     * readiness goes on reporting the hang ("timed out") and liveness watches the worker pools.
     * Without it start-up never completed and kubelet restarted the pod at the startup probe's
     * failureThreshold, whatever the hang was. On Linux "took" is read from the kernel's tables
     * ({@link AppPorts#serverSide}): the application accepted the connection and read the
     * request; a connection left in the accept queue (a port bound, not yet accepting) or with
     * the request unread is not started. A port that reads a request and never answers (a
     * binary protocol waiting for more) cannot be told from a hung HTTP server, and counts.
     */
    private void noteHeld(LoopbackGet g) {
        if (heldWhy != null || framework != null && framework.known || started() || !g.sent()
                || g.ageMillis() < timeoutMillis * 9 / 10) { // a call given less than a timeout's wait (late in a run) says nothing yet
            return;
        }
        String how = "accepts connections";
        if (AppPorts.supported()) {
            AppPorts.ServerSide side = AppPorts.serverSide(g.port, g.localPort());
            if (side != AppPorts.ServerSide.READ) {
                return;
            }
            how = "accepted the connection and read GET " + g.path + ";";
        } else {
            how = "accepts connections and took GET " + g.path + ";";
        }
        heldPort = g.port;
        heldWhy = "port " + g.port + " " + how + " no answer " + g.ageMillis()
                + " ms after it was sent (no known framework; readiness reports the hang)";
    }

    private void onStarted(LoopbackGet.Answer a, LoopbackGet g) {
        if (a.http() && a.status >= 200 && a.status < 300) {
            markStarted(g.path + " answered " + a.status);
        } else if (a.http() && (a.status == 404 || a.status == 405)) {
            startedByEndpoint = false; // no such endpoint (Spring Boot without the probes group): the port answers HTTP
            markStarted("port " + g.port + " answers HTTP (" + g.path + " answered " + a.status + ")");
        }
    }

    /**
     * One GET on the kept connection. DETECT answers go through {@link #onCandidate};
     * READY answers are the check's result.
     *
     * @return the Health to report for READY, a timeout, or null
     */
    private Health httpCall(Purpose purpose, int p, String pth, int index, long waitMillis) {
        if (!issuedHere(p, pth)) {
            last = last == null ? LoopbackGet.start(p, pth, waitMillis) : last.next(p, pth, waitMillis);
            issued = last;
            issuedEnd = System.nanoTime() + Math.max(1, waitMillis) * 1_000_000L;
        }
        LoopbackGet.Answer a = await(last, issuedEnd); // pending: a later step comes back here, the request not sent again
        issued = null;
        if (a == null) {
            pendingPurpose = purpose;
            pendingIndex = index;
            if (purpose == Purpose.DETECT && (framework.known || "http".equals(protocol.get(p)))) {
                // The framework's own candidate, or a path on a port that answered HTTP before,
                // hangs (a hung check): that is the endpoint.
                // Taken tentatively: if it answers 404 after all (only slow), detection goes on.
                port = p;
                path = pth;
                detected = true;
                tentative = true;
                pendingPurpose = Purpose.READY;
            }
            return timedOut(last, false);
        }
        switch (purpose) {
            case DETECT:
                return onCandidate(p, index, a, last);
            default:
                if (a.http() && !started() && !hasStartedEndpoint()) {
                    markStarted("port " + p + " answers HTTP");
                }
                return answer(a);
        }
    }

    /** Whether this run issued the call to {@code p}{@code pth} and it is unanswered (a later step waits on it). */
    private boolean issuedHere(int p, String pth) {
        return issued != null && issued == last && issued.port == p && issued.path.equals(pth);
    }

    private Health grpcCall(long waitMillis) {
        if (!grpcIssued) {
            if (grpc == null || !grpc.open()) {
                if (grpc != null) {
                    grpc.close();
                }
                grpc = GrpcHealthCall.connect(port, waitMillis);
            }
            grpc.call();
            grpcIssued = true;
            grpcEnd = System.nanoTime() + Math.max(1, waitMillis) * 1_000_000L;
        }
        GrpcHealthCall.Answer a = await(grpc, grpcEnd);
        grpcIssued = false;
        if (a == null) {
            pendingPurpose = Purpose.READY;
            return timedOutGrpc(false);
        }
        return grpcAnswer(a);
    }

    private Health grpcAnswer(GrpcHealthCall.Answer a) {
        String endpoint = "grpc://" + AppPorts.origin(port).substring("http://".length()) + GrpcHealthCall.PATH;
        if (a.serving == 1) {
            return Health.builder(Status.UP).detail("endpoint", endpoint).detail("grpcStatus", a.statusName()).build();
        }
        Health.Builder b = Health.builder(Status.DOWN).detail("endpoint", endpoint);
        if (a.serving >= 0) {
            return b.message("answered " + a.statusName()).detail("grpcStatus", a.statusName()).build();
        }
        if (a.noHealthService) {
            return b.message("the health service no longer answers (gRPC error)").build();
        }
        return b.message(a.refused ? "not listening (connection refused)" : a.failure).build();
    }

    /**
     * A passing answer that came after {@code readiness-timeout} (waited for over several runs):
     * still a failed poll, as kubelet counts an answer past {@code timeoutSeconds}, so a check
     * slower than the timeout reads DOWN throughout instead of flickering UP each time a late
     * answer lands. The next run asks again.
     */
    private Health late(long ageMillis, String what, Health upAnswer) {
        Health.Builder b = Health.builder(Status.DOWN).message("timed out after " + timeoutMillis + " ms: the answer ("
                + what + ") came after " + ageMillis + " ms");
        upAnswer.details().forEach(b::detail);
        return b.build();
    }

    private Health timedOutGrpc(boolean earlier) {
        long age = grpc.ageMillis();
        if (age >= timeoutMillis * ABANDON_AFTER_TIMEOUTS) {
            grpc.close();
            grpc = null;
            pendingPurpose = null;
        }
        return Health.builder(Status.DOWN)
                .message("timed out after " + timeoutMillis + " ms: " + GrpcHealthCall.PATH + " on port " + port
                        + (earlier ? " unanswered for " + age + " ms" + inFlight(age >= timeoutMillis * ABANDON_AFTER_TIMEOUTS) : ""))
                .build();
    }

    /** @return what happens to a call left unanswered: waited on, or (after {@link #ABANDON_AFTER_TIMEOUTS} timeouts) closed */
    private String inFlight(boolean abandoned) {
        return abandoned ? " (closed: a new call next run)"
                : " (one call in flight: a new call when it answers, or after "
                        + AgentOptions.format(options.readinessTimeout.multipliedBy(ABANDON_AFTER_TIMEOUTS)) + ")";
    }

    /**
     * Readiness from the listener. On Linux the port's LISTEN row in the kernel's tables
     * ({@link AppPorts#listeningInTable}), no connection at all (issue 37: a connect every poll is
     * a connection the application accepts and registers, on a Vert.x or Netty event loop it may
     * start for it); elsewhere a TCP connect, closed at once, no byte sent (nothing in access logs).
     * On loopback a connect is refused exactly when no socket listens, so both say the same; a
     * full accept backlog is not read from the table (the connect timed out on it).
     */
    private Health listenerOnly(List<Integer> app, String note) {
        int p = app.get(0);
        if (AppPorts.supported() ? !AppPorts.listeningInTable().contains(p) : !connects(p)) {
            return Health.builder(Status.DOWN).message("port " + p + " is not listening (a connection would be refused)").build();
        }
        return Health.builder(Status.UP).message(note).build();
    }

    /**
     * Whether port {@code p} accepts a connection: a non-blocking connect ({@link
     * LoopbackConnect}), pending across steps while the handshake is in progress, false when
     * refused or not done within {@code readiness-timeout} (a full accept backlog: the kernel
     * drops the handshake and a blocking connect would hang).
     */
    private boolean connects(int p) {
        if (connect == null || connect.port != p) {
            if (connect != null) {
                connect.close();
            }
            connect = LoopbackConnect.start(p);
            connectEnd = System.nanoTime() + timeoutMillis * 1_000_000L;
        }
        boolean due = due(connectEnd);
        Boolean r = connect.poll();
        if (r == null) {
            pendingUnless(due, connectEnd);
        }
        connect.close();
        connect = null;
        return Boolean.TRUE.equals(r);
    }

    private Health timedOut(LoopbackGet g, boolean earlier) {
        noteHeld(g);
        long age = g.ageMillis();
        String what = pendingPurpose == Purpose.DETECT && options.readiness.kind == AgentOptions.Readiness.Kind.AUTO
                ? "looking for the health endpoint: " : "";
        if (!started() && AppPorts.supported() && g.sent()
                && AppPorts.serverSide(g.port, g.localPort()) == AppPorts.ServerSide.NOT_ACCEPTED) {
            what += "the connection waits in port " + g.port + "'s accept queue (the application has not accepted it): ";
        }
        boolean abandoned = age >= timeoutMillis * ABANDON_AFTER_TIMEOUTS;
        if (abandoned) {
            g.close();
            pendingPurpose = null;
        }
        return Health.builder(Status.DOWN)
                .message(what + "timed out after " + timeoutMillis + " ms: GET " + g.path + " on port " + g.port
                        + (earlier ? " unanswered for " + age + " ms" + inFlight(abandoned) : ""))
                .detail("endpoint", AppPorts.origin(g.port) + g.path)
                .build();
    }

    private Health answer(LoopbackGet.Answer a) {
        String endpoint = (port > 0 ? AppPorts.origin(port) : "http://127.0.0.1:?") + (path != null ? path : "");
        if (a.http() && a.status >= 200 && a.status < 400) {
            return Health.builder(Status.UP).detail("endpoint", endpoint).detail("httpStatus", a.status).build();
        }
        Health.Builder b = Health.builder(Status.DOWN).detail("endpoint", endpoint);
        if (a.http()) {
            b.message("answered " + a.status).detail("httpStatus", a.status);
        } else {
            b.message(a.refused ? "not listening (connection refused)" : a.failure);
        }
        return b.build();
    }
}
