package dev.vitals.agent.impl;

import dev.vitals.Check;
import dev.vitals.Groups;
import dev.vitals.Health;
import dev.vitals.HealthCheck;
import dev.vitals.HealthRegistry;
import dev.vitals.StartupCompletion;
import dev.vitals.Status;
import dev.vitals.Warmup;
import dev.vitals.internal.Logs;
import dev.vitals.monitor.DeadlockMonitor;
import dev.vitals.monitor.ListenerMonitor;
import dev.vitals.monitor.Monitor;
import dev.vitals.monitor.LagMonitor;
import dev.vitals.server.DetailsPolicy;
import dev.vitals.server.ProbeServer;
import java.lang.System.Logger.Level;
import java.lang.instrument.Instrumentation;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The agent's implementation, loaded by {@code VitalsAgent} in its own class loader. {@link
 * #start} validates the options on the calling thread (the JVM's premain), then builds the
 * registry, the monitors and the probe server on a short-lived daemon thread so the
 * application's {@code main} is not held up by the server's start (DESIGN.md section 7d).
 *
 * <p>Groups: liveness = {@code jvm} (deadlock, each application port's listener, each worker
 * pool's progress, the scheduler heartbeat) and {@code availability}; readiness = {@code app}
 * (the application's own health endpoint) and {@code availability}; startup =
 * {@code availability}, complete when the application has started (its framework's started
 * endpoint, else its port answering), never because a dependency is reachable ({@link AppReadiness}).
 */
public final class AgentMain {
    private static final System.Logger LOG = Logs.get("dev.vitals.agent");
    private static volatile AgentMain running;
    private static final long RESCAN_STARTING_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final long RESCAN_AFTER_START_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final AgentOptions options;
    private final long startNanos = System.nanoTime();
    /** Listener liveness without connecting (Linux: the kernel's tables); elsewhere {@link #listeners}. */
    private final ListenerWatch watch;
    private final Map<Integer, ListenerMonitor> listeners = new ConcurrentHashMap<>();
    private volatile DeadlockMonitor deadlock;
    private volatile LagMonitor lag;
    private volatile WorkerPools pools;
    private volatile boolean measuring;
    private volatile Instrumentation inst;
    private volatile HealthRegistry registry;
    private volatile ProbeServer server;
    private volatile int probePort;
    private volatile List<Integer> lastPorts = List.of();
    private volatile Warmup warmup;
    private volatile int warmupPort = -1;
    private long lastScanNanos;

    /** The JVM's instrumentation for framework detection (its loaded classes); null when none. */
    private final Instrumentation classes;

    private AgentMain(AgentOptions options, Instrumentation classes) {
        this.options = options;
        this.classes = classes;
        this.watch = AppPorts.supported() ? new ListenerWatch(options.listenerGrace) : null;
    }

    /**
     * Validates {@code args} (with {@code vitals.agent.*} system properties and
     * {@code VITALS_AGENT_*} environment variables) and starts the agent in the background. On a
     * bad option prints one line to standard error and halts the JVM with exit code 2.
     *
     * @param args agent arguments, {@code key=value} pairs separated by {@code ,}; may be empty
     * @param inst the JVM's instrumentation, for the worker pools' task counts and the framework
     *     detection (loaded classes); null: pools are read from stacks only, no framework known
     */
    public static void start(String args, Instrumentation inst) {
        AgentOptions options;
        try {
            options = AgentOptions.resolve(args, System.getProperties(), System.getenv());
        } catch (IllegalArgumentException e) {
            System.err.println("vitals-agent: " + e.getMessage());
            System.err.flush();
            Runtime.getRuntime().halt(2);
            return;
        }
        if (!options.enabled) {
            return;
        }
        if (options.port != 0 && !probePortFree(options)) {
            return; // halted
        }
        // Before any Vitals class logs: the JDK's logging is never started by the agent (AgentLog).
        Logs.sink(name -> new AgentLog(name, options.log, System.err));
        AgentMain agent = new AgentMain(options, inst);
        agent.inst = options.workers != null ? inst : null;
        running = agent;
        Thread t = new Thread(agent::startInBackground, "vitals-agent-start");
        t.setDaemon(true);
        t.start();
    }

    /**
     * A fixed probe port is tried on premain's thread, before the application's {@code main}: a
     * port taken (another agent, the application's own port) stops the JVM before the application
     * has run a line (a fresh user saw {@code main} run for half a second, binding and working,
     * before the background start failed). A bind and a close, about a millisecond; the server
     * binds again in the background. On failure one line and exit code 1, as a failed start.
     *
     * @return whether the port could be bound
     */
    private static boolean probePortFree(AgentOptions options) {
        try (java.net.ServerSocket s = new java.net.ServerSocket()) {
            s.setReuseAddress(true); // as the server's own bind: a port in TIME_WAIT is free
            s.bind(new java.net.InetSocketAddress(InetAddress.getByName(options.host), options.port), 1);
            return true;
        } catch (java.io.IOException e) {
            String where = "port " + options.port + " (" + options.host + ")";
            System.err.println("vitals-agent: cannot start: probe server cannot listen on " + where + ": "
                    + (e.getMessage() != null ? e.getMessage() : e.toString()));
            System.err.flush();
            Runtime.getRuntime().halt(1);
            return false;
        }
    }

    /** Installs the pools' task counting; on failure one line, and the pools are read from stacks. */
    private static boolean instrument(Instrumentation inst) {
        try {
            ExecutorInstrumentation.install(inst);
            return true;
        } catch (RuntimeException | LinkageError e) {
            System.err.println("vitals-agent: worker pools read from stacks only: " + (e.getMessage() != null ? e.getMessage() : e.toString()));
            return false;
        }
    }

    private void startInBackground() {
        try {
            run();
        } catch (RuntimeException | Error e) {
            // Never a half-working agent: the probes are what kubelet relies on.
            System.err.println("vitals-agent: cannot start: " + (e.getMessage() != null ? e.getMessage() : e.toString()));
            System.err.flush();
            Runtime.getRuntime().halt(1);
        }
    }

    private void run() {
        Instrumentation i = inst;
        if (i != null) {
            // Here, not on the premain thread: the application's main is not held up. The
            // instrumented methods are entered again per task, so pools started meanwhile are
            // counted from their next task.
            measuring = instrument(i);
            inst = null;
        }
        // No check thread at all (issue 37): both checks run inline on the scheduler thread, 'app'
        // with non-blocking sockets. Platform threads for the check executor all the same, were a
        // check ever to need one: the first virtual thread would start the JDK's carrier pool, its
        // delay scheduler and poller threads in the application's JVM (five threads on Java 25).
        HealthRegistry.Builder b = HealthRegistry.builder().startupCompletion(StartupCompletion.MANUAL).virtualThreads(false);
        List<Monitor> monitors = new ArrayList<>();
        if (options.deadlock) {
            deadlock = DeadlockMonitor.builder().interval(options.deadlockInterval).build();
            monitors.add(deadlock);
        }
        HealthRegistry[] holder = new HealthRegistry[1];
        if (options.pause) {
            // JVM pauses without a thread of their own: the lag of a heartbeat on Vitals' scheduler
            // (a safepoint or GC pause delays it like everything else).
            lag = LagMonitor.forExecutor("pauses", task -> holder[0].scheduler().schedule(0, task)).build();
            monitors.add(lag);
        }
        // One liveness check and one readiness check, both inline on the scheduler thread: the
        // agent's threads are the probe loop and the scheduler (DESIGN.md section 7d, threads).
        b.register(inline("jvm", Groups.LIVENESS, true, Duration.ofSeconds(1), this::jvmHealth));
        AppReadiness readiness = new AppReadiness(options, this::appPorts,
                () -> holder[0].availability(), this::onPorts,
                () -> Frameworks.detect(Frameworks.loadedMarkers(classes), System.getProperties()));
        b.register(appCheck(readiness, options, () -> holder[0].scheduler()));
        if (options.warmupPath != null) {
            warmup = Warmup.builder().requests(options.warmupRequests, options.warmupLatency).maxWait(options.warmupMaxWait)
                    .routine(this::warmUp).build();
            b.register(warmup.check());
        }
        HealthRegistry r = b.build();
        holder[0] = r;
        registry = r;
        for (Monitor m : monitors) {
            m.start(r);
        }
        if (options.workers != null) {
            pools = new WorkerPools(options.workers, options.stallAfter, r, measuring);
            samplePools(pools);
        }
        if (!options.appPorts.isEmpty()) {
            onPorts(options.appPorts);
        }
        InetAddress bind;
        try {
            bind = InetAddress.getByName(options.host);
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException("option 'host': not an address: " + options.host);
        }
        // The probe server first, so port discovery knows which port is the agent's own.
        server = ProbeServer.builder(r)
                .port(options.port)
                .bindAddress(bind)
                .eventLoopThreads(1)
                .transport(ProbeServer.Transport.JDK) // java.nio only: no Netty class in the application's JVM
                .detailsPolicy(options.detailsAlways ? DetailsPolicy.always() : DetailsPolicy.never())
                .build()
                .start();
        probePort = server.port();
        r.start();
        installDrain(r, options.drainDelay);
        System.err.println("vitals-agent: probes on port " + probePort + " (/livez /readyz /startupz /health), started in "
                + (System.nanoTime() - startNanos) / 1_000_000 + " ms");
    }

    /**
     * The readiness check {@code app}: inline and asynchronous, each run a series of non-blocking
     * steps on the registry's scheduler ({@link AppReadiness#start}), so it holds no check thread
     * and never blocks the scheduler (issue 37).
     *
     * @param readiness the check
     * @param options the agent's options (interval, max age)
     * @param scheduler the registry's scheduler, once built
     * @return the registration
     */
    static Check appCheck(AppReadiness readiness, AgentOptions options, java.util.function.Supplier<dev.vitals.Scheduler> scheduler) {
        return Check.asyncBuilder("app", () -> readiness.start(scheduler.get()))
                .inline(true)
                .groups(Groups.READINESS)
                .interval(options.readinessInterval)
                .timeout(readiness.engineTimeout())
                .maxAge(options.readinessMaxAge)
                .build();
    }

    /**
     * A check that only reads in-memory figures: run inline on the scheduler thread (no check
     * thread), completed at once.
     */
    private static Check inline(String name, String group, boolean critical, Duration interval, HealthCheck read) {
        Duration every = interval.compareTo(Duration.ofSeconds(1)) < 0 ? Duration.ofSeconds(1) : interval;
        Duration maxAge = every.multipliedBy(3).compareTo(Duration.ofSeconds(30)) < 0 ? Duration.ofSeconds(30) : every.multipliedBy(3);
        return Check.asyncBuilder(name, () -> {
            try {
                return CompletableFuture.completedFuture(read.check());
            } catch (Exception e) {
                return CompletableFuture.failedFuture(e);
            }
        }).inline(true).groups(group).critical(critical).interval(every).timeout(Duration.ofSeconds(1)).maxAge(maxAge).build();
    }

    private void samplePools(WorkerPools pools) {
        try {
            pools.sample();
        } catch (RuntimeException e) {
            LOG.log(Level.DEBUG, "worker pool sample failed", e);
        }
        try {
            registry.scheduler().schedule(TimeUnit.SECONDS.toNanos(1), () -> samplePools(pools));
        } catch (java.util.concurrent.RejectedExecutionException e) {
            pools.close(); // registry closed
        }
    }

    /**
     * The application's ports: configured, or found in /proc at most once a second while starting
     * (ports open one after another) and once every 10 s after start-up (the scan reads every
     * descriptor of the process; ports rarely change then). The scheduler thread only (the
     * {@code app} check's first step of a run).
     */
    private List<Integer> appPorts() {
        if (!options.appPorts.isEmpty()) {
            return options.appPorts;
        }
        long now = System.nanoTime();
        HealthRegistry r = registry;
        long every = r != null && r.availability().isStartupComplete() ? RESCAN_AFTER_START_NANOS : RESCAN_STARTING_NANOS;
        if (now - lastScanNanos >= every || lastPorts.isEmpty()) {
            lastScanNanos = now;
            lastPorts = AppPorts.listening(Set.of(probePort));
        }
        return lastPorts;
    }

    /**
     * The warm-up routine (option {@code warmup-path}): GETs of the path on the application's first
     * port, one at a time, each reported to the warm-up with its latency, until enough answered
     * within {@code warmup-latency}, the maximum wait passed, or 20 × {@code warmup-requests} calls
     * were made. Runs on the warm-up's own thread, started once the application listens.
     */
    private void warmUp() {
        int port = warmupPort;
        if (port < 0) {
            return;
        }
        long deadline = System.nanoTime() + options.warmupMaxWait.toNanos();
        long timeoutMillis = Math.max(1, options.warmupMaxWait.toMillis());
        for (long i = 0; i < 20L * options.warmupRequests && !warmup.warm() && System.nanoTime() < deadline; i++) {
            long t0 = System.nanoTime();
            try (LoopbackGet g = LoopbackGet.start(port, options.warmupPath, Math.min(timeoutMillis, 2000))) {
                LoopbackGet.Answer a = g.await(Math.min(timeoutMillis, Math.max(1, (deadline - t0) / 1_000_000)));
                if (a != null && a.http() && a.status < 400) {
                    warmup.recordRequestNanos(System.nanoTime() - t0);
                } else if (a != null && a.refused) {
                    return; // the application stopped listening: readiness says so on its own
                }
            }
        }
    }

    /** Starts a listener monitor for each port not watched yet (DESIGN.md 5a, case C06). */
    private void onPorts(List<Integer> ports) {
        HealthRegistry r = registry;
        if (r == null) {
            return;
        }
        Warmup w = warmup;
        if (w != null && !ports.isEmpty()) {
            if (warmupPort < 0) {
                warmupPort = ports.get(0);
            }
            w.start(); // once: the maximum wait counts from the first port that listens
        }
        for (int p : ports) {
            if (watch != null) {
                watch.watch(p); // from the kernel's tables: no connection to the application
                continue;
            }
            listeners.computeIfAbsent(p, port -> {
                ListenerMonitor m = ListenerMonitor.builder("app-listener-" + port,
                        new java.net.InetSocketAddress(AppPorts.address(port), port)).grace(options.listenerGrace).build();
                m.start(r);
                return m;
            });
        }
    }

    /**
     * Liveness from the JVM: deadlock, each application port's listener, each worker pool's
     * progress, and the scheduler heartbeat (pauses; DOWN only when stuck for 60 s). Worst status
     * wins; the message lists every part that is not UP.
     */
    private Health jvmHealth() throws Exception {
        Map<String, Object> details = new TreeMap<>();
        List<String> problems = new ArrayList<>();
        Status worst = Status.UP;
        DeadlockMonitor d = deadlock;
        if (d != null) {
            worst = part("deadlock", d.healthCheck().check(), details, problems, worst);
        }
        ListenerWatch lw = watch;
        if (lw != null) {
            Set<Integer> watched = lw.ports();
            if (!watched.isEmpty()) {
                Set<Integer> listening = AppPorts.listeningInTable();
                long now = System.nanoTime();
                for (int port : new java.util.TreeSet<>(watched)) {
                    worst = part("listener " + port, lw.health(port, listening, now), details, problems, worst);
                }
            }
        }
        if (listeners.isEmpty() && (lw == null || lw.ports().isEmpty())) {
            details.put("listener", "waiting for the application to listen");
        }
        for (Map.Entry<Integer, ListenerMonitor> e : new TreeMap<>(listeners).entrySet()) {
            worst = part("listener " + e.getKey(), e.getValue().healthCheck().check(), details, problems, worst);
        }
        WorkerPools w = pools;
        if (w != null) {
            Health pools = w.health();
            worst = part("workers", pools, details, problems, worst);
            // Each pool's figures, measured or inferred from stacks: "pool executor-thread-*".
            pools.details().forEach((k, v) -> details.put("pool " + k, v));
        }
        LagMonitor l = lag;
        if (l != null) {
            worst = part("pauses", l.healthCheck().check(), details, problems, worst);
            l.snapshot().ifPresent(s -> details.put("pausesLag", s.toString()));
        }
        Health.Builder out = Health.builder(worst);
        if (!problems.isEmpty()) {
            out.message(String.join("; ", problems));
        }
        details.forEach(out::detail);
        return out.build();
    }

    private static Status part(String name, Health h, Map<String, Object> details, List<String> problems, Status worst) {
        details.put(name, h.status().toString());
        if (h.status() != Status.UP) {
            problems.add(h.message().orElse(name + " " + h.status()));
        }
        return h.status().compareTo(worst) > 0 ? h.status() : worst;
    }

    /**
     * SIGTERM: readiness fails at once (liveness unchanged), and after {@code delay} the JVM's
     * own SIGTERM handling runs (the application's shutdown hooks). Under {@code -Xrs}, or when
     * the signal cannot be taken, a shutdown hook drains instead, alongside the application's;
     * under {@code -Xrs} a SIGTERM ends a plain JVM at once without running any hook, so that
     * hook only helps when the JVM is shut down otherwise ({@code System.exit}).
     */
    private static void installDrain(HealthRegistry r, Duration delay) {
        if (delay.isZero()) {
            return;
        }
        // sun.misc by full name, not imported: an import of it is a javadoc warning ("internal
        // proprietary API", not suppressible), and the release build fails on warnings.
        sun.misc.SignalHandler[] previous = new sun.misc.SignalHandler[1];
        java.util.concurrent.atomic.AtomicBoolean draining = new java.util.concurrent.atomic.AtomicBoolean();
        sun.misc.SignalHandler drain = sig -> {
            // One drain per JVM: a second SIGTERM (an operator's second Ctrl-C, a supervisor's
            // retry) ends the wait and shuts down now, instead of logging and draining again.
            if (draining.compareAndSet(false, true)) {
                LOG.log(Level.INFO, "SIGTERM: readiness fails for " + delay.toMillis() + " ms before shutdown");
                awaitDrain(r, delay);
            } else {
                LOG.log(Level.INFO, "SIGTERM again while draining: shutting down now");
            }
            sun.misc.SignalHandler prev = previous[0];
            if (prev == null || prev == sun.misc.SignalHandler.SIG_DFL || prev == sun.misc.SignalHandler.SIG_IGN) {
                System.exit(128 + 15);
            } else {
                prev.handle(sig);
            }
        };
        try {
            previous[0] = sun.misc.Signal.handle(new sun.misc.Signal("TERM"), drain);
        } catch (IllegalArgumentException | UnsupportedOperationException e) {
            Thread hook = new Thread(() -> awaitDrain(r, delay), "vitals-drain");
            Runtime.getRuntime().addShutdownHook(hook);
        }
    }

    private static void awaitDrain(HealthRegistry r, Duration delay) {
        try {
            r.availability().drain(delay).get(delay.toMillis() + 5_000, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            LOG.log(Level.DEBUG, "drain ended early", e);
        }
    }

    /** @return the agent of this JVM, for tests inside the agent's class loader; null if not started */
    static AgentMain running() {
        return running;
    }

    /** @return the bound probe port, 0 before the server started */
    int probePort() {
        return probePort;
    }

    /** @return the registry, null before it is built */
    HealthRegistry registry() {
        return registry;
    }
}
