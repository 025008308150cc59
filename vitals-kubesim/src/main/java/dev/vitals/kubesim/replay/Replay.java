package dev.vitals.kubesim.replay;

import dev.vitals.kubesim.model.ContainerRuntime;

import dev.vitals.kubesim.Simulation;
import dev.vitals.kubesim.fault.FaultProxy;
import dev.vitals.kubesim.fault.LoadGenerator;
import dev.vitals.kubesim.model.PodSpec;
import dev.vitals.kubesim.model.ProbeType;
import dev.vitals.kubesim.model.Resources;
import dev.vitals.kubesim.model.SimEvent;
import dev.vitals.kubesim.result.SimulationResult;
import dev.vitals.kubesim.runtime.ProcessRuntime;
import dev.vitals.kubesim.runtime.ResourceLimits;
import dev.vitals.kubesim.scenario.Action;
import dev.vitals.kubesim.scenario.ActionRunner;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Runs replay cases: for each case, the demo jar under {@code --wiring naive} and under
 * {@code --wiring vitals} (side by side by default), each as "the container" of a
 * {@link Simulation} with the case's probes, behind a {@link FaultProxy} in front of the
 * demo's own H2 TCP server, with the case's actions timed from the first Ready.
 *
 * <pre>{@code
 * List<RunRecord> runs = Replay.builder(Path.of("vitals-demo/target/vitals-demo.jar"))
 *         .progress(line -> System.err.print("\r" + line))
 *         .build()
 *         .run(ReplayCatalog.select(List.of("incident")));
 * }</pre>
 *
 * <p>Ports (application, probe, H2, proxy) are picked free at run time for each run. Threads
 * are daemons named {@code vitals-replay-…}. Not for concurrent use: one {@link #run} at a time.
 */
public final class Replay {
    private static final System.Logger LOG = System.getLogger("dev.vitals.kubesim.replay");
    private final Path demoJar;
    private final Path java;
    private final boolean parallel;
    private final Path logDir;
    private final Consumer<String> progress;
    private final Duration progressEvery;
    private final List<String> jvmFlags;
    private final Path agentJar;

    private Replay(Builder b) {
        this.demoJar = b.demoJar;
        this.java = b.java;
        this.parallel = b.parallel;
        this.logDir = b.logDir;
        this.progress = b.progress;
        this.progressEvery = b.progressEvery;
        this.jvmFlags = List.copyOf(b.jvmFlags);
        this.agentJar = b.agentJar != null ? b.agentJar : AgentJar.besideDemo(demoJar);
    }

    /** The agent jar for {@link Wiring#NAIVE_AGENT} runs; checked when such a run starts. */
    private Path agentJar() {
        if (!Files.isRegularFile(agentJar)) {
            throw new IllegalArgumentException("agent jar not found: " + agentJar
                    + " (build it with: mvn -pl vitals-agent -am package -DskipTests)");
        }
        return agentJar;
    }

    /**
     * @param demoJar the demo's shaded jar ({@code vitals-demo/target/vitals-demo.jar})
     * @return a builder
     */
    public static Builder builder(Path demoJar) {
        return new Builder(demoJar);
    }

    /**
     * Runs every case that is not {@linkplain ReplayCase#skip() skipped}, one case at a time, its two runs side by side (or one after the other,
     * see {@link Builder#parallel(boolean)}). Blocks for about the sum of the cases' durations
     * (plus a few seconds of start and stop each).
     *
     * @param cases the cases
     * @return the runs: per case naive then vitals
     * @throws Interrupted when interrupted (children are killed): it carries the runs that had
     *         finished
     * @throws IllegalStateException when a run fails to set up (a port, the log directory) or
     *         does not finish within its duration plus two minutes
     */
    public List<RunRecord> run(List<ReplayCase> cases) throws InterruptedException {
        List<RunRecord> out = new ArrayList<>();
        AtomicInteger n = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "vitals-replay-run-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        ScheduledExecutorService driver = Executors.newScheduledThreadPool(2, r -> {
            Thread t = new Thread(r, "vitals-replay-driver-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        Thread hook = new Thread(TrackingRuntime::killAll, "vitals-replay-cleanup");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            Files.createDirectories(logDir);
            for (ReplayCase c : cases) {
                if (c.skip().isEmpty()) { // else sizing could not give it its margins here: reported, not run
                    runCase(c, pool, driver, out);
                }
            }
            return out;
        } catch (IOException e) {
            throw new IllegalStateException("cannot create the log directory " + logDir + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            throw new Interrupted(out); // a signal (issue 30): the finished runs go in the reports
        } finally {
            pool.shutdownNow();
            driver.shutdownNow();
            TrackingRuntime.killAll();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException ignored) {
                // the JVM is shutting down; the hook runs
            }
        }
    }

    /** Runs one case's wirings, side by side or in turn, with a progress line; adds each run's record to {@code out}. */
    private void runCase(ReplayCase c, ExecutorService pool, ScheduledExecutorService driver, List<RunRecord> out)
            throws InterruptedException {
        List<Job> jobs = new ArrayList<>();
        for (Wiring w : c.wirings()) {
            jobs.add(new Job(c, w, driver));
        }
        ScheduledFuture<?> ticker = driver.scheduleAtFixedRate(() -> progress.accept(line(c, jobs)),
                progressEvery.toMillis(), progressEvery.toMillis(), TimeUnit.MILLISECONDS);
        try {
            if (parallel) {
                List<Future<RunRecord>> fs = new ArrayList<>();
                for (Job j : jobs) {
                    fs.add(pool.submit(j::run));
                }
                for (Future<RunRecord> f : fs) {
                    out.add(await(f, c));
                }
            } else {
                for (Job j : jobs) {
                    out.add(await(pool.submit(j::run), c));
                }
            }
        } finally {
            ticker.cancel(false);
        }
    }

    /** A replay stopped by an interrupt, with the runs that had finished (a case's pair may be half done). */
    public static final class Interrupted extends InterruptedException {
        private static final long serialVersionUID = 1L;
        private final transient List<RunRecord> finished;

        Interrupted(List<RunRecord> finished) {
            super("interrupted after " + finished.size() + " finished run(s)");
            this.finished = List.copyOf(finished);
        }

        /** @return the runs that had finished, in the order of {@link #run(List)}'s result */
        public List<RunRecord> finished() {
            return finished;
        }
    }

    /** The demo's command line: this replay's JVM and flags, the wiring, its ports, the database reached through {@code dbVia}. */
    private List<String> demoCommand(Wiring w, int appPort, int probePort, int dbPort, int dbVia, List<String> flags) {
        List<String> cmd = new ArrayList<>(List.of(java.toString()));
        cmd.addAll(jvmFlags);
        if (w == Wiring.NAIVE_AGENT) {
            // The agent's probe server takes the probe port; the naive demo itself has none.
            cmd.add("-javaagent:" + agentJar() + "=port=" + probePort + ",workers=demo-worker-,drain-delay=1s");
        }
        cmd.addAll(List.of("-jar", demoJar.toString(), "--wiring", w.demoWiring(), "--port", Integer.toString(appPort),
                "--probe-port", Integer.toString(probePort), "--db-port", Integer.toString(dbPort),
                "--db-url", "jdbc:h2:tcp://127.0.0.1:" + dbVia + "/mem:demo", "--drain-ms", "1000"));
        cmd.addAll(flags);
        return cmd;
    }

    /**
     * Measures how long the demo takes to boot on this machine, now: {@code rounds} times, both
     * wirings side by side (one after the other with {@code parallel(false)}), as the runs will
     * be; each boot from spawn to the first 200 of its startup endpoint (naive {@code /healthz}
     * on the application port, Vitals {@code /startupz} on the probe port), then the JVM is
     * stopped. Blocks for about {@code rounds} boots.
     *
     * @param rounds 1–10
     * @return the sizing from the samples (2 per round)
     * @throws IllegalArgumentException when rounds is out of range
     * @throws IllegalStateException when a boot fails (the demo exits, or does not answer within
     *         {@link #BOOT_LIMIT}); its output is in the log directory as {@code boot-<wiring>-<round>.log}
     * @throws InterruptedException when interrupted (the children are killed)
     */
    public Sizing measureBoot(int rounds) throws InterruptedException {
        return measureBoot(rounds, Resources.NONE);
    }

    /**
     * As {@link #measureBoot(int)}, each booting JVM in its own cgroup with {@code resources}
     * (the {@code cpu-limit} scenario's boot under its limit: a JVM under 500m boots several
     * times slower, and sizing it from the unconstrained boot would give wrong margins).
     *
     * @param rounds 1–10
     * @param resources the limits each boot runs under ({@link Resources#NONE}: none)
     * @return the sizing from the samples (2 per round)
     * @throws IllegalArgumentException when rounds is out of range
     * @throws IllegalStateException when a boot fails, or resources are set and no cgroup can be
     *         created here ({@link ResourceLimits#status()} says why)
     * @throws InterruptedException when interrupted (the children are killed)
     */
    public Sizing measureBoot(int rounds, Resources resources) throws InterruptedException {
        if (!resources.isEmpty() && !ResourceLimits.of(resources).applied()) {
            throw new IllegalStateException("cannot boot under " + resources.describe() + ": "
                    + ResourceLimits.of(resources).status());
        }
        if (rounds < 1 || rounds > 10) {
            throw new IllegalArgumentException("boot rounds must be 1-10, was " + rounds);
        }
        Thread hook = new Thread(TrackingRuntime::killAll, "vitals-replay-cleanup");
        Runtime.getRuntime().addShutdownHook(hook);
        ExecutorService pool = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "vitals-replay-boot");
            t.setDaemon(true);
            return t;
        });
        List<Double> samples = new ArrayList<>();
        try {
            Files.createDirectories(logDir);
            for (int round = 1; round <= rounds; round++) {
                int n = round;
                List<Future<Double>> fs = new ArrayList<>();
                for (Wiring w : List.of(Wiring.NAIVE, Wiring.VITALS)) {
                    Future<Double> f = pool.submit(() -> bootWithRetry(w, n, resources));
                    if (!parallel) {
                        samples.add(awaitBoot(f));
                    } else {
                        fs.add(f);
                    }
                }
                for (Future<Double> f : fs) {
                    samples.add(awaitBoot(f));
                }
            }
            return Sizing.measured(samples);
        } catch (IOException e) {
            throw new IllegalStateException("cannot create the log directory " + logDir + ": " + e.getMessage(), e);
        } finally {
            pool.shutdownNow();
            TrackingRuntime.killAll();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException ignored) {
                // the JVM is shutting down; the hook runs
            }
        }
    }

    /** Longest a boot may take before calibration gives up. */
    public static final Duration BOOT_LIMIT = Duration.ofSeconds(300);

    private static double awaitBoot(Future<Double> f) throws InterruptedException {
        try {
            return f.get(BOOT_LIMIT.toSeconds() + 30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException) {
                throw (RuntimeException) cause;
            }
            throw new IllegalStateException("boot measurement failed: " + cause, cause);
        } catch (TimeoutException e) {
            f.cancel(true);
            throw new IllegalStateException("boot measurement did not finish within " + BOOT_LIMIT.toSeconds() + " s");
        }
    }

    /** One boot; a boot that fails (a port taken by another process in between, say) is tried once more on fresh ports. */
    private double bootWithRetry(Wiring w, int round, Resources resources) throws InterruptedException {
        try {
            return bootOnce(w, round, "", resources);
        } catch (IllegalStateException first) {
            LOG.log(System.Logger.Level.WARNING, "boot measurement failed, trying again: " + first.getMessage());
            return bootOnce(w, round, "-retry", resources);
        }
    }

    private double bootOnce(Wiring w, int round, String suffix, Resources resources) throws InterruptedException {
        int[] ports = Ports.pick(3);
        List<String> cmd = demoCommand(w, ports[0], ports[1], ports[2], ports[2], List.of());
        Path log = logDir.resolve("boot-" + w.flag() + (resources.isEmpty() ? "" : "-limited") + "-" + round + suffix + ".log");
        try {
            Files.deleteIfExists(log);
        } catch (IOException e) {
            throw new IllegalStateException("cannot reset " + log + ": " + e.getMessage(), e);
        }
        boolean naive = w == Wiring.NAIVE;
        int port = naive ? ports[0] : ports[1];
        String path = naive ? "/healthz" : "/startupz";
        AtomicInteger exit = new AtomicInteger(Integer.MIN_VALUE);
        long t0 = System.nanoTime();
        dev.vitals.kubesim.model.ContainerRuntime.Instance i = new TrackingRuntime(
                new ProcessRuntime(cmd, ProcessBuilder.Redirect.appendTo(log.toFile()), Map.of(), null,
                        ResourceLimits.of(resources))).start(round, exit::set);
        try {
            long deadline = t0 + BOOT_LIMIT.toNanos();
            while (System.nanoTime() < deadline) {
                if (exit.get() != Integer.MIN_VALUE) {
                    throw new IllegalStateException("the demo (" + w.flag() + ") exited with code " + exit.get()
                            + " while booting; its output: " + log);
                }
                if (answers(port, path)) {
                    return (System.nanoTime() - t0) / 1e9;
                }
                Thread.sleep(50);
            }
            throw new IllegalStateException("the demo (" + w.flag() + ") did not answer " + path + " within "
                    + BOOT_LIMIT.toSeconds() + " s; its output: " + log);
        } finally {
            i.terminate();
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (exit.get() == Integer.MIN_VALUE && System.nanoTime() < until) {
                Thread.sleep(20);
            }
            i.kill();
        }
    }

    /** The simulator's prober, for boot calibration: one GET as the kubelet's startup probe would make it. */
    private static final dev.vitals.kubesim.probe.Prober PROBER = new dev.vitals.kubesim.probe.Prober("127.0.0.1", Map.of(),
            dev.vitals.kubesim.model.KubeletOptions.defaults().kubeletVersion());

    /** One GET with a 1 s deadline; true when it passes as a probe (200-399). */
    private static boolean answers(int port, String path) {
        return PROBER.get(port, path, Duration.ofSeconds(1)).result().counted() == dev.vitals.kubesim.model.ProbeResult.SUCCESS;
    }

    private static RunRecord await(Future<RunRecord> f, ReplayCase c) throws InterruptedException {
        try {
            return f.get(c.duration().toSeconds() + 120, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException) {
                throw (RuntimeException) cause;
            }
            throw new IllegalStateException("run of " + c.name() + " failed: " + cause, cause);
        } catch (TimeoutException e) {
            f.cancel(true);
            throw new IllegalStateException("run of " + c.name() + " did not finish within its duration plus 120 s");
        }
    }

    private static String line(ReplayCase c, List<Job> jobs) {
        StringBuilder sb = new StringBuilder("[").append(c.name()).append("] ");
        for (int i = 0; i < jobs.size(); i++) {
            sb.append(i == 0 ? "" : " | ").append(jobs.get(i).status());
        }
        return sb.toString();
    }

    /** The log file of one run's demo output. */
    Path logFile(ReplayCase c, Wiring w) {
        return logDir.resolve(c.name() + "-" + w.flag() + ".log");
    }

    /** One run: a case under one wiring. */
    private final class Job {
        private final ReplayCase c;
        private final Wiring w;
        private final ScheduledExecutorService driver;
        private final List<RunRecord.Note> notes = Collections.synchronizedList(new ArrayList<>());
        private final Map<String, double[]> windows = Collections.synchronizedMap(new LinkedHashMap<>());
        private final List<ScheduledFuture<?>> timers = Collections.synchronizedList(new ArrayList<>());
        private final List<Runnable> cleanups = Collections.synchronizedList(new ArrayList<>());
        private volatile long startNanos = -1;
        private volatile double t;
        private volatile boolean ready;
        private volatile int restarts;
        private volatile boolean started;
        private volatile double burstArmedAt = -1;
        private volatile boolean burstFired;
        private volatile boolean readySeen;
        private volatile TrackingRuntime runtime;
        private volatile FaultProxy proxy;
        private volatile int appPort;

        Job(ReplayCase c, Wiring w, ScheduledExecutorService driver) {
            this.c = c;
            this.w = w;
            this.driver = driver;
        }

        String status() {
            double now = startNanos < 0 ? 0 : (System.nanoTime() - startNanos) / 1e9;
            return String.format(Locale.ROOT, "%s %4.0fs/%ds restarts %d %s", w.flag(), Math.min(now, c.duration().toSeconds()),
                    c.duration().toSeconds(), restarts, ready ? "ready" : "not ready");
        }

        RunRecord run() throws InterruptedException {
            int[] ports = Ports.pick(5);
            appPort = ports[0];
            int probePort = ports[1];
            int dbPort = ports[2];
            int proxyPort = ports[3];
            List<String> cmd = demoCommand(w, appPort, probePort, dbPort, proxyPort, c.demoFlags());
            cmd.addAll(c.grpcFlags(w, ports[4]));
            Path log = logFile(c, w);
            try {
                Files.deleteIfExists(log);
            } catch (IOException e) {
                throw new IllegalStateException("cannot reset " + log + ": " + e.getMessage(), e);
            }
            // A case with resources: each demo instance in its own cgroup with them, as a container
            // runtime gives each container; the throttling counters land in the result's limits().
            ResourceLimits limits = ResourceLimits.of(c.resources());
            runtime = new TrackingRuntime(new ProcessRuntime(cmd, ProcessBuilder.Redirect.appendTo(log.toFile()), Map.of(), null,
                    limits));
            PodSpec pod = c.pod(w, appPort, probePort, ports[4]);
            proxy = new FaultProxy(new FaultProxy.Spec("db", proxyPort, "127.0.0.1", dbPort)).start();
            SimulationResult result;
            try {
                result = Simulation.builder(pod).runtime(runtime).limits(limits).duration(c.duration()).listener(this::onEvent)
                        .build().run();
            } finally {
                synchronized (timers) {
                    timers.forEach(f -> f.cancel(false));
                }
                synchronized (cleanups) {
                    cleanups.forEach(Replay::safely);
                }
                proxy.close();
            }
            return new RunRecord(c, w, result, pod, notes, windows, cmd);
        }

        /** On the kubelet thread: must not block. */
        private void onEvent(SimEvent e) {
            if (!started) {
                started = true;
                startNanos = System.nanoTime() - (long) (RunRecord.seconds(e.at()) * 1e9);
            }
            t = RunRecord.seconds(e.at());
            if (e.type() == SimEvent.Type.START && e.instance() > 1) {
                restarts = e.instance() - 1;
            }
            if (e.type() == SimEvent.Type.READY || e.type() == SimEvent.Type.NOT_READY) {
                ready = e.type() == SimEvent.Type.READY;
                if (ready && !readySeen) {
                    readySeen = true;
                    scheduleActions(RunRecord.seconds(e.at()));
                }
            }
            if (burstArmedAt >= 0 && !burstFired && e.type() == SimEvent.Type.PROBE
                    && e.probe().orElse(null) == ProbeType.LIVENESS && RunRecord.seconds(e.at()) >= burstArmedAt) {
                burstFired = true;
                for (ReplayStep s : c.steps()) {
                    if (s.trigger() == ReplayStep.Trigger.NEXT_LIVENESS_PROBE) {
                        later(Duration.ofMillis(300), () -> perform(s));
                    }
                }
            }
        }

        private double now() {
            return (System.nanoTime() - startNanos) / 1e9;
        }

        private void note(String text) {
            notes.add(new RunRecord.Note(now(), text));
        }

        private void later(Duration d, Runnable r) {
            timers.add(driver.schedule(() -> {
                try {
                    r.run();
                } catch (RuntimeException ex) {
                    note("action failed: " + ex.getMessage());
                    LOG.log(System.Logger.Level.WARNING, "replay action failed", ex);
                }
            }, d.toNanos(), TimeUnit.NANOSECONDS));
        }

        private void scheduleActions(double readyAt) {
            note(String.format(Locale.ROOT, "first Ready at %.1fs: actions are timed from here", readyAt));
            for (ReplayStep s : c.steps()) {
                if (s.trigger() == ReplayStep.Trigger.NEXT_LIVENESS_PROBE) {
                    burstArmedAt = readyAt + s.after().toNanos() / 1e9;
                    continue;
                }
                later(s.after(), () -> perform(s));
            }
        }

        /**
         * Performs a step's start actions through the shared {@link ActionRunner}, and its end actions
         * {@code length} later on the same container instance; its window [start, end] goes to the
         * report under its kind (a load's end is when its last request finished).
         */
        private void perform(ReplayStep s) {
            Optional<ContainerRuntime.Instance> instance = runtime.current();
            List<LoadGenerator.Handle> loads = new java.util.concurrent.CopyOnWriteArrayList<>();
            boolean countBounded = s.start().stream().anyMatch(a -> a instanceof Action.Load);
            double at = now();
            windows.put(s.kind(), new double[] {at, at + s.length().toNanos() / 1e9});
            StringBuilder outcome = new StringBuilder();
            for (Action a : s.start()) {
                outcome.append(ActionRunner.perform(a, target(instance, loads::add), stats -> {
                    if (countBounded && s.length().isZero()) {
                        windows.computeIfPresent(s.kind(), (k, v) -> new double[] {v[0], now()});
                    }
                    note(s.kind() + " finished: " + stats);
                }));
            }
            note(s.kind() + " started" + (s.trigger() == ReplayStep.Trigger.NEXT_LIVENESS_PROBE ? " 300 ms after a liveness probe" : "")
                    + ": " + s.description() + instance.map(i -> " (" + i.describe() + ")").orElse("") + outcome);
            if (!s.length().isZero()) {
                later(s.length(), () -> {
                    StringBuilder ended = new StringBuilder();
                    for (Action a : s.end()) {
                        ended.append(ActionRunner.perform(a, target(instance, loads::add), stats -> { }));
                    }
                    String totals = loads.stream().map(LoadGenerator.Handle::totals).filter(t -> !t.isEmpty())
                            .reduce((x, y) -> x + "; " + y).map(t -> ": " + t).orElse("");
                    note(s.kind() + " over" + (s.end().isEmpty() ? "" : " (" + s.end().stream().map(Action::describe)
                            .reduce((x, y) -> x + ", " + y).orElse("") + ")") + ended + totals);
                });
            }
        }

        /** What the shared {@link ActionRunner} acts on in this run: the "db" proxy, the demo, one instance. */
        private ActionRunner.Target target(Optional<ContainerRuntime.Instance> instance, Consumer<LoadGenerator.Handle> loads) {
            return new ActionRunner.Target() {
                @Override
                public FaultProxy proxy(String name) {
                    if (!name.equals("db")) {
                        throw new IllegalStateException("a replay has one proxy, db; not " + name);
                    }
                    return proxy;
                }

                @Override
                public Optional<ContainerRuntime.Instance> instance() {
                    return instance;
                }

                @Override
                public String podIp() {
                    return "127.0.0.1";
                }

                @Override
                public int appPort() {
                    return appPort;
                }

                @Override
                public void loadStarted(LoadGenerator.Handle handle) {
                    cleanups.add(handle::cancel);
                    loads.accept(handle);
                }

                @Override
                public void paused(boolean paused) {
                    if (paused) {
                        instance.ifPresent(i -> cleanups.add(() -> safely(i::resume)));
                    }
                }

                @Override
                public void deletePod(Optional<Duration> grace) {
                    throw new IllegalStateException("replay cases do not delete the pod");
                }
            };
        }

    }

    private static void safely(Runnable r) {
        try {
            r.run();
        } catch (RuntimeException ignored) {
            // best effort at teardown
        }
    }

    /** Builder; not thread-safe. */
    public static final class Builder {
        private final Path demoJar;
        private Path agentJar;
        private Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        private boolean parallel = true;
        private Path logDir = Path.of(System.getProperty("java.io.tmpdir"), "vitals-replay");
        private Consumer<String> progress = line -> { };
        private Duration progressEvery = Duration.ofSeconds(1);
        // C1 only, one compiler thread: a JVM that boots (a naive restart) takes less CPU from
        // the run beside it on a 2-core machine; the same flags for both wirings.
        private final List<String> jvmFlags = new ArrayList<>(List.of("-Xmx256m", "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1", "-XX:CICompilerCount=1"));

        private Builder(Path demoJar) {
            this.demoJar = Objects.requireNonNull(demoJar, "demoJar").toAbsolutePath();
        }

        /**
         * @param java the {@code java} launcher for the demo (default: this JVM's)
         * @return this builder
         */
        public Builder java(Path java) {
            this.java = Objects.requireNonNull(java, "java");
            return this;
        }

        /**
         * @param p true (default) to run a case's naive and Vitals runs side by side, false for one after the
         *        other
         * @return this builder
         */
        public Builder parallel(boolean p) {
            this.parallel = p;
            return this;
        }

        /**
         * @param dir where each run's demo output goes, as {@code <case>-<wiring>.log} (default: the temp
         *        directory's {@code vitals-replay})
         * @return this builder
         */
        public Builder logDir(Path dir) {
            this.logDir = Objects.requireNonNull(dir, "dir");
            return this;
        }

        /**
         * @param p receives a one-line status of the running case about every {@code every}
         *        (from a replay thread; must not block)
         * @param every how often, at least 100 ms
         * @return this builder
         */
        public Builder progress(Consumer<String> p, Duration every) {
            if (every.toMillis() < 100) {
                throw new IllegalArgumentException("progress interval must be at least 100 ms, was " + every);
            }
            this.progress = Objects.requireNonNull(p, "progress");
            this.progressEvery = every;
            return this;
        }

        /**
         * @param jar {@code vitals-agent.jar} for naive-agent runs (default: {@code
         *        vitals-agent/target/vitals-agent.jar} beside the demo's module)
         * @return this builder
         */
        public Builder agentJar(Path jar) {
            this.agentJar = Objects.requireNonNull(jar, "jar").toAbsolutePath();
            return this;
        }

        /**
         * @param flags JVM flags for the demo (default {@code -Xmx256m -XX:+UseSerialGC
         *        -XX:TieredStopAtLevel=1 -XX:CICompilerCount=1})
         * @return this builder
         */
        public Builder jvmFlags(List<String> flags) {
            jvmFlags.clear();
            jvmFlags.addAll(flags);
            return this;
        }

        /**
         * @return the replay
         * @throws IllegalArgumentException when the demo jar is not a file
         */
        public Replay build() {
            if (!Files.isRegularFile(demoJar)) {
                throw new IllegalArgumentException("demo jar not found: " + demoJar);
            }
            return new Replay(this);
        }
    }
}
