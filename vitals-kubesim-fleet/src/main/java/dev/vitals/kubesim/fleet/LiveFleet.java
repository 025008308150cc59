package dev.vitals.kubesim.fleet;

import dev.vitals.kubesim.fault.FaultProxy;
import dev.vitals.kubesim.model.ContainerRuntime;
import dev.vitals.kubesim.model.Kubelet;
import dev.vitals.kubesim.model.KubeletOptions;
import dev.vitals.kubesim.model.PodSpec;
import dev.vitals.kubesim.model.ProbeHandler;
import dev.vitals.kubesim.model.ProbeOutcome;
import dev.vitals.kubesim.model.ProbeResult;
import dev.vitals.kubesim.model.ProbeSpec;
import dev.vitals.kubesim.model.Resources;
import dev.vitals.kubesim.model.SimEvent;
import dev.vitals.kubesim.model.SimTime;
import dev.vitals.kubesim.probe.Prober;
import dev.vitals.kubesim.probe.RealProbeExecutor;
import dev.vitals.kubesim.runtime.ProcessRuntime;
import dev.vitals.kubesim.runtime.ResourceLimits;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * The live engine: N real processes of a command, each given {@code PORT}, {@code PROBE_PORT}
 * and {@code REPLICA} (0-based) in its environment and probed and restarted by its own kubelet
 * model (the one {@code simulate} runs), behind a real TCP {@link ServiceProxy}. The spec's
 * clients send {@code GET <path>} requests through the Service, each on a new connection
 * ({@code Connection: close}); a 2xx or 3xx answer within the timeout is a success. Probes go to
 * {@code PROBE_PORT} when the spec's probe server is {@code isolated}, else to {@code PORT}
 * (the handler's port in the manifest is replaced; its path and scheme are kept).
 *
 * <p>Kill actions send SIGKILL to the replica's process. A shared dependency needs its
 * {@code target}: replicas reach it through a {@link FaultProxy} ({@code DEPENDENCY_HOST},
 * {@code DEPENDENCY_PORT} in their environment), and an outage refuses new connections and resets
 * open ones until it ends. Not offered live: clients with kept connections (each request is a new
 * connection).
 *
 * <p>A rollout runs as on the model engine, with the same {@link DeploymentController}: pods
 * {@code [replicas, 2·replicas)} are the new ReplicaSet's, real processes of the same command with
 * {@code VERSION=new} and the rollout's declared new-version behaviour in their environment
 * ({@link #rolloutEnvironment}); a deleted old pod leaves the endpoints after the propagation
 * delay and gets SIGTERM with the pod's grace period. Each response the Service relays counts
 * for the version of the pod that sent it (a 2xx/3xx status line is answered, a reset, a refused
 * connection or a client that gave up first is failed).
 * Runs once; blocks for warm-up plus the duration. Threads: the kubelet thread, probe threads per
 * replica, {@code vitals-fleet-client-N} and the Service's threads, all daemons.
 */
public final class LiveFleet {
    /** The most replicas the live engine runs. */
    public static final int MAX_REPLICAS = 64;
    /** Open-loop requests in flight per population at most; beyond, a request fails at once (client-side limit). */
    static final int MAX_IN_FLIGHT = 512;
    /** The clients' GETs: the simulator's one HTTP GET (a request answered 200-399 within its timeout is ok). */
    private static final Prober CLIENT = new Prober("127.0.0.1", Map.of(), KubeletOptions.defaults().kubeletVersion());
    private final FleetSpec spec;
    private final List<String> command;
    private final int servicePort;
    private final String label;
    private final ProcessBuilder.Redirect output;
    private final Consumer<String> progress;
    private final String path;
    private final List<ResourceLimits> limits;
    private Map<String, String> staticEnv = Map.of(); // the container's env[] as $(VAR) sees it (R68)
    private Map<String, String> processEnv = Map.of(); // the container's env as its process gets it

    /**
     * @param spec the fleet (its replica model's numbers are not used: the processes are real)
     * @param command the command each replica runs
     * @param servicePort the Service's port, 0 for a free one
     * @param path the path the clients request, e.g. {@code /}
     * @param output where the replicas' stdout and stderr go
     * @param progress receives a line now and then (may ignore it)
     * @param label what to call the run in reports
     * @throws IllegalArgumentException when the spec has more than {@value #MAX_REPLICAS} replicas, or a dependency without a target
     */
    public LiveFleet(FleetSpec spec, List<String> command, int servicePort, String path, ProcessBuilder.Redirect output,
            Consumer<String> progress, String label) {
        this(spec, command, servicePort, path, output, progress, label, Resources.NONE);
    }

    /**
     * As the constructor without resources, each replica's every instance in its own cgroup with
     * {@code resources} (a manifest's {@code resources.limits}), as the container runtime gives each
     * container; where no cgroup can be created the replicas run without them and
     * {@link #limits()} says so.
     *
     * @param spec the fleet (its replica model's numbers are not used: the processes are real)
     * @param command the command each replica runs
     * @param servicePort the Service's port, 0 for a free one
     * @param path the path the clients request, e.g. {@code /}
     * @param output where the replicas' stdout and stderr go
     * @param progress receives a line now and then (may ignore it)
     * @param label what to call the run in reports
     * @param resources the container's resources ({@link Resources#NONE}: none)
     * @throws IllegalArgumentException as the other constructor
     */
    public LiveFleet(FleetSpec spec, List<String> command, int servicePort, String path, ProcessBuilder.Redirect output,
            Consumer<String> progress, String label, Resources resources) {
        List<ResourceLimits> l = new ArrayList<>();
        if (!resources.isEmpty()) {
            int pods = spec.rollout().isPresent() ? 2 * spec.replicas() : spec.replicas();
            for (int i = 0; i < pods; i++) {
                l.add(ResourceLimits.of(resources)); // one per pod: its report numbers that pod's instances
            }
        }
        this.limits = List.copyOf(l);
        this.spec = Objects.requireNonNull(spec, "spec");
        this.command = List.copyOf(command);
        this.servicePort = servicePort;
        this.path = Objects.requireNonNull(path, "path");
        this.output = Objects.requireNonNull(output, "output");
        this.progress = Objects.requireNonNull(progress, "progress");
        this.label = Objects.requireNonNull(label, "label");
        if (command.isEmpty()) {
            throw new IllegalArgumentException("the live engine needs a command");
        }
        if (spec.replicas() > MAX_REPLICAS) {
            throw new IllegalArgumentException("the live engine runs 1-" + MAX_REPLICAS + " replicas, was " + spec.replicas());
        }
        if (spec.dependency().isPresent() && spec.dependency().get().target().isEmpty()) {
            throw new IllegalArgumentException("the live engine needs dependency.target (host:port of the real dependency, "
                    + "reached through a fault proxy), or use the model engine");
        }
        for (FleetSpec.Clients c : spec.clients()) {
            if (c.connections() > 0 || c.persistent()) {
                throw new IllegalArgumentException("clients '" + c.name() + "': the live engine opens a new connection per request "
                        + "(no connections/persistent)");
            }
            if (c.policy().keys() > 1 || c.policy().http2() || c.policy().node() >= 0) {
                throw new IllegalArgumentException("clients '" + c.name() + "': the live engine's clients all come from 127.0.0.1 "
                        + "over HTTP/1.1 outside any node (keys 0 or 1, no http2, no node); the rest runs on the model engine");
            }
            if (c.policy().keys() != spec.clients().get(0).policy().keys()) {
                throw new IllegalArgumentException("clients '" + c.name() + "': the live engine keys every client alike (keys 0 or 1 "
                        + "for all populations: they share 127.0.0.1)");
            }
        }
        Routing routing = spec.service().routing();
        if (routing.layer() != Routing.Layer.KUBE_PROXY || routing.trafficPolicy() != Routing.TrafficPolicy.CLUSTER) {
            throw new IllegalArgumentException("the live engine's Service is kube-proxy's on one host (iptables or ipvs, "
                    + "sessionAffinity); an ingress and node-local policies run on the model engine");
        }
        if (spec.background().isPresent()) {
            throw new IllegalArgumentException("background traffic runs on the model engine (the live replicas serve the clients only)");
        }
        if (servicePort < 0 || servicePort > 65535) {
            throw new IllegalArgumentException("service port must be 0-65535, was " + servicePort);
        }
    }

    /**
     * @return per replica (index = {@code REPLICA}; in a rollout, the old pods then the new ones),
     *         how its resources are applied and, after
     *         {@link #run()}, each of its instances' CPU used, periods and time throttled and memory
     *         peak; empty without resources
     */
    public List<ResourceLimits> limits() {
        return limits;
    }

    /**
     * The container's environment (a manifest's {@code env}), given before {@link #run}: each
     * replica's process gets {@code process} (as {@code simulate} resolves it:
     * {@code ContainerProcess.env()}), and its exec probes expand {@code $(VAR)} from
     * {@code declared} ({@code ContainerProcess.staticEnv}: a {@code valueFrom} variable is empty;
     * R68, kubelet {@code ExpandContainerCommandOnlyStatic}) through the prober {@code simulate}
     * uses. In both, the engine's own variables ({@code PORT}, {@code PROBE_PORT}, {@code REPLICA},
     * {@code DEPENDENCY_*}, {@code VERSION}, {@code ROLLOUT_*}) are the container's too and win a
     * clash. Not thread-safe: call it before {@link #run}.
     *
     * @param declared the static env for {@code $(VAR)} expansion
     * @param process the env the process starts with
     * @return this
     */
    public LiveFleet environment(Map<String, String> declared, Map<String, String> process) {
        this.staticEnv = Map.copyOf(declared);
        this.processEnv = Map.copyOf(process);
        return this;
    }

    /**
     * Runs warm-up (every replica Ready in the Service, at most {@link ModelFleet#WARMUP_CAP}), then
     * the scenario.
     *
     * @return what happened; with resources, each lane carries its instances' cgroup counters
     * @throws IllegalArgumentException when the Service port is in use (the message names it)
     * @throws Interrupted when interrupted (a signal to the CLI): processes and threads are cleaned
     *         up and the exception carries what was measured until then
     */
    public FleetResult run() throws InterruptedException {
        FleetResult r = runOnce();
        if (limits.isEmpty()) {
            return r;
        }
        // the processes have exited (teardown): each lane gets its instances' cgroup counters
        List<List<ResourceLimits.InstanceUsage>> perLane = new ArrayList<>();
        for (ResourceLimits l : limits) {
            perLane.add(l.report().instances());
        }
        return r.withResources(perLane);
    }

    /**
     * One live run's shared parts, for the steps of {@link #runOnce()}.
     *
     * @param rec the recorder; guarded by {@code lock}
     * @param lock guards {@code rec} and the pods' controller
     * @param time the real clock and the kubelet thread
     * @param stop set when the clients must stop
     * @param clients the clients' threads
     * @param service the Service in front of the replicas
     * @param dependency the fault proxy in front of the shared dependency, or null without one
     * @param pods the replicas (and, in a rollout, the new ReplicaSet's pods)
     * @param start when the run started, {@link System#nanoTime()}
     */
    private record LiveRun(Recorder rec, Object lock, SimTime time, AtomicBoolean stop, ExecutorService clients,
            ServiceProxy service, FaultProxy dependency, LivePods pods, long start) {
    }

    private FleetResult runOnce() throws InterruptedException {
        int n = spec.replicas();
        Rollout rollout = spec.rollout().orElse(null);
        Recorder rec = new Recorder(rollout == null ? n : 2 * n, n, spec.duration().toNanos() / 1e9);
        rec.routing(spec.service().routing().describe());
        Object lock = new Object();
        SimTime time = SimTime.real();
        ExecutorService clients = Executors.newCachedThreadPool(daemon("vitals-fleet-client-"));
        ServiceProxy service = openService();
        FaultProxy dependency = startDependency(service);
        long start = System.nanoTime();
        LiveRun run = new LiveRun(rec, lock, time, new AtomicBoolean(), clients, service, dependency,
                new LivePods(rollout, rec, lock, time, service, dependency, start), start);
        try {
            double t0 = warmUp(run, rollout);
            long t0ns = start + Math.round(t0 * 1e9);
            schedule(run, rollout, t0, t0ns);
            startClients(run, t0ns);
            long end = t0ns + spec.duration().toNanos();
            sample(run, t0ns, end);
            run.stop().set(true);
            return finish(run, (end - start) / 1e9);
        } catch (InterruptedException e) {
            // a signal (issue 30): what was measured until now, for reports marked interrupted;
            // the finally below stops every replica
            run.stop().set(true);
            long ran = System.nanoTime() - start;
            FleetResult partial;
            synchronized (lock) {
                partial = rec.result("live", label, ran / 1e9, spec.expectations());
            }
            throw new Interrupted(partial, Duration.ofNanos(ran));
        } finally {
            tearDown(run);
        }
    }

    /** The Service on its port; no clients (a manifest alone: load is driven from outside): each connection its own key. */
    private ServiceProxy openService() {
        try {
            boolean oneKey = !spec.clients().isEmpty() && spec.clients().get(0).policy().keys() == 1;
            return new ServiceProxy(servicePort, spec.service().routing(), oneKey);
        } catch (IOException e) {
            throw new IllegalArgumentException("service port " + servicePort + ": " + e.getMessage());
        }
    }

    /** @return the fault proxy in front of the spec's dependency, or null without one (the Service is closed on failure) */
    private FaultProxy startDependency(ServiceProxy service) {
        if (spec.dependency().isEmpty()) {
            return null;
        }
        FleetSpec.Dependency d = spec.dependency().get();
        String t = d.target().orElseThrow();
        int colon = t.lastIndexOf(':');
        try {
            return new FaultProxy(new FaultProxy.Spec(d.name(), 0, t.substring(0, colon),
                    Integer.parseInt(t.substring(colon + 1)))).start();
        } catch (RuntimeException e) {
            service.close();
            throw new IllegalArgumentException("dependency '" + d.name() + "': " + e.getMessage());
        }
    }

    /**
     * Creates the pods and waits until every replica is an endpoint, at most {@link ModelFleet#WARMUP_CAP}.
     *
     * @return when the scenario starts, seconds since the run's start
     */
    private double warmUp(LiveRun run, Rollout rollout) throws InterruptedException {
        int n = spec.replicas();
        ServiceProxy service = run.service();
        LivePods pods = run.pods();
        if (rollout != null) {
            service.observe((port, ok, seconds) -> pods.answered(port, ok, seconds));
        }
        String keyed = spec.clients().isEmpty() ? "clients" : spec.clients().get(0).name();
        service.onRoute((key, port) -> {
            synchronized (run.lock()) {
                run.rec().holds(0, keyed, 0, pods.replicaOf(port), (System.nanoTime() - run.start()) / 1e9);
            }
        });
        run.time().runAndWait(() -> {
            for (int i = 0; i < n; i++) {
                pods.create(i);
            }
        });
        long cap = run.start() + ModelFleet.WARMUP_CAP.toNanos();
        while (service.endpoints() < n && System.nanoTime() < cap) {
            Thread.sleep(100);
        }
        double t0 = (System.nanoTime() - run.start()) / 1e9;
        synchronized (run.lock()) {
            run.rec().scenarioStart(t0);
        }
        progress.accept(String.format(java.util.Locale.ROOT, "warm-up done in %.1f s (%d of %d endpoints); Service on 127.0.0.1:%d",
                t0, service.endpoints(), n, service.port()));
        return t0;
    }

    /** Schedules the spec's kills, the rollout and the dependency's outages, from the scenario's start {@code t0ns}. */
    private void schedule(LiveRun run, Rollout rollout, double t0, long t0ns) {
        SimTime time = run.time();
        for (FleetSpec.Kill a : spec.actions()) {
            Kubelet k = run.pods().kubelets[a.replica()];
            time.schedule(t0ns + a.at().toNanos() - System.nanoTime(), () -> k.currentInstance().ifPresent(inst -> time.offload(inst::kill)));
        }
        if (rollout != null) {
            time.schedule(t0ns + rollout.at().toNanos() - System.nanoTime(), () -> run.pods().startRollout(t0));
        }
        FaultProxy proxy = run.dependency();
        if (proxy == null) {
            return;
        }
        for (FleetSpec.Window w : spec.dependency().get().outages()) {
            time.schedule(t0ns + w.at().toNanos() - System.nanoTime(), () -> time.offload(() -> {
                proxy.refuse(); // new connections refused, open ones reset: the dependency is down
                proxy.cut();
            }));
            time.schedule(t0ns + w.at().toNanos() + w.duration().toNanos() - System.nanoTime(), () -> time.offload(proxy::heal));
        }
    }

    /** Starts each population's clients: {@code concurrency} closed loops, else one open loop. */
    private void startClients(LiveRun run, long t0ns) {
        SplittableRandom seeds = new SplittableRandom(spec.seed());
        for (FleetSpec.Clients c : spec.clients()) {
            Client client = new Client(c, run.service().port(), run.rec(), run.lock(), run.start(), t0ns, run.stop(),
                    run.clients(), seeds.split());
            if (c.concurrency() > 0) {
                for (int j = 0; j < c.concurrency(); j++) {
                    run.clients().execute(client::closedLoop);
                }
            } else {
                run.clients().execute(client::openLoop);
            }
        }
    }

    /** Samples the endpoints and the Ready replicas every 100 ms from {@code t0ns} until {@code end}. */
    private static void sample(LiveRun run, long t0ns, long end) throws InterruptedException {
        long step = Duration.ofMillis(100).toNanos();
        long next = t0ns;
        while (System.nanoTime() < end) {
            long sleep = next - System.nanoTime();
            if (sleep > 0) {
                TimeUnit.NANOSECONDS.sleep(sleep);
            }
            double now = (System.nanoTime() - run.start()) / 1e9;
            synchronized (run.lock()) {
                run.rec().sample(now, run.service().endpoints(), run.pods().readyCount.get(), step / 1e9);
            }
            next += step;
        }
    }

    /** Stops the kubelets and reads the rollout's status on the kubelet thread; the result at {@code endS}. */
    private FleetResult finish(LiveRun run, double endS) throws InterruptedException {
        LivePods pods = run.pods();
        AtomicReference<Optional<FleetResult.RolloutStatus>> status = new AtomicReference<>(Optional.empty());
        run.time().runAndWait(() -> {
            for (Kubelet k : pods.kubelets) {
                if (k != null) {
                    k.stop();
                }
            }
            if (pods.controller != null) {
                synchronized (run.lock()) {
                    status.set(Optional.of(pods.controller.status(endS, run.rec().versions())));
                }
            }
        });
        synchronized (run.lock()) {
            return run.rec().result("live", label, endS, spec.expectations(), status.get());
        }
    }

    /** Stops the clients, the Service and the dependency, and shuts every replica's instance down (best effort). */
    private static void tearDown(LiveRun run) {
        run.stop().set(true);
        run.clients().shutdownNow();
        run.service().close();
        if (run.dependency() != null) {
            run.dependency().close();
        }
        for (Kubelet k : run.pods().kubelets) {
            if (k == null) {
                continue;
            }
            try {
                Optional<ContainerRuntime.Instance> inst = k.instanceToShutDown();
                inst.ifPresent(i -> i.shutdown(Duration.ofSeconds(2)));
            } catch (RuntimeException ignored) {
                // best effort at teardown
            }
        }
        run.pods().executors.forEach(RealProbeExecutor::close);
        run.time().close();
    }

    /** A live run stopped by an interrupt, with what was measured until then. */
    public static final class Interrupted extends InterruptedException {
        private static final long serialVersionUID = 1L;
        private final transient FleetResult partial;
        /** How long the run had been going, warm-up included. */
        private final Duration ran;

        Interrupted(FleetResult partial, Duration ran) {
            super("interrupted after " + ran.toMillis() / 1000.0 + " s");
            this.partial = partial;
            this.ran = ran;
        }

        /**
         * @return the series, lanes and totals until the interrupt (later seconds empty; its
         *         expectations are judged on them and mean little)
         */
        public FleetResult partial() {
            return partial;
        }

        /** @return how long the run had been going, warm-up included */
        public Duration ran() {
            return ran;
        }
    }

    /**
     * The live pods: {@code [0, replicas)} the Deployment's (the old ReplicaSet in a rollout),
     * {@code [replicas, 2·replicas)} the new ReplicaSet's, each a real process with its own kubelet
     * model. Touched on the kubelet thread only (creation, events, the controller), except
     * {@link #readyCount} (read by the sampler) and {@link #answered} (the Service's threads,
     * which read the immutable port map).
     */
    private final class LivePods implements DeploymentController.Pods {
        final Kubelet[] kubelets;
        final List<RealProbeExecutor> executors = new ArrayList<>();
        final AtomicInteger readyCount = new AtomicInteger();
        final DeploymentController controller;
        private final int desired;
        private final int[] appPorts;
        private final Map<Integer, Integer> byPort = new java.util.concurrent.ConcurrentHashMap<>();
        private final boolean[] ready;
        private final double[] readyAt;
        private final boolean[] deleted;
        private final Rollout rollout;
        private final Recorder rec;
        private final Object lock;
        private final SimTime time;
        private final ServiceProxy service;
        private final FaultProxy dependency;
        private final long start;
        private double t0;

        LivePods(Rollout rollout, Recorder rec, Object lock, SimTime time, ServiceProxy service, FaultProxy dependency, long start) {
            this.desired = spec.replicas();
            int lanes = rollout == null ? desired : 2 * desired;
            this.kubelets = new Kubelet[lanes];
            this.appPorts = new int[lanes];
            this.ready = new boolean[lanes];
            this.readyAt = new double[lanes];
            this.deleted = new boolean[lanes];
            this.rollout = rollout;
            this.rec = rec;
            this.lock = lock;
            this.time = time;
            this.service = service;
            this.dependency = dependency;
            this.start = start;
            this.controller = rollout == null ? null : new DeploymentController(rollout, desired, this);
        }

        @Override
        public double now() {
            return (System.nanoTime() - start) / 1e9;
        }

        /** The new pod template is applied (kubelet thread); the controller then syncs on pod events and its timers. */
        void startRollout(double scenarioStart) {
            t0 = scenarioStart;
            controller.start();
        }

        @Override
        public double scenarioTime() {
            return now() - t0;
        }

        @Override
        public void after(double seconds, Runnable action) {
            time.schedule(Math.round(seconds * 1e9), action); // the kubelet thread
        }

        /** A response (or its absence) the Service relayed from endpoint {@code port}: counted for the pod's version. */
        /** @return the lane whose application listens on {@code port}, or -1 */
        int replicaOf(int port) {
            for (int i = 0; i < appPorts.length; i++) {
                if (appPorts[i] == port) {
                    return i;
                }
            }
            return -1;
        }

        void answered(int port, boolean ok, double seconds) {
            Integer i = byPort.get(port);
            if (i == null) {
                return;
            }
            int v = i < desired ? 0 : 1;
            synchronized (lock) {
                if (ok) {
                    rec.versionOk(v, now(), 1, seconds);
                } else {
                    rec.versionFailed(v, now(), 1);
                }
            }
        }

        @Override
        public double readySince(int i) {
            return kubelets[i] != null && !deleted[i] && ready[i] ? readyAt[i] : Double.NaN;
        }

        @Override
        public boolean deleted(int i) {
            return deleted[i];
        }

        /** Creates pod {@code i}: its ports, environment, runtime, prober and kubelet, and starts the kubelet. */
        @Override
        public void create(int i) {
            boolean isNew = i >= desired;
            int appPort = freePort();
            int probePort = freePort();
            appPorts[i] = appPort;
            byPort.put(appPort, i);
            int probeTarget = spec.probes().server() == FleetSpec.ProbeServer.ISOLATED ? probePort : appPort;
            PodSpec pod = PodSpec.of("replica-" + i, Map.of("http", appPort, "probe", probePort),
                    spec.probes().startup().map(p -> retarget(p, probeTarget)), spec.probes().liveness().map(p -> retarget(p, probeTarget)),
                    spec.probes().readiness().map(p -> retarget(p, probeTarget)));
            Map<String, String> own = new java.util.HashMap<>(Map.of("PORT", Integer.toString(appPort),
                    "PROBE_PORT", Integer.toString(probePort), "REPLICA", Integer.toString(i)));
            if (dependency != null) {
                own.put("DEPENDENCY_HOST", "127.0.0.1");
                own.put("DEPENDENCY_PORT", Integer.toString(dependency.port()));
            }
            if (rollout != null) {
                own.putAll(rolloutEnvironment(rollout, isNew));
            }
            Map<String, String> env = new java.util.LinkedHashMap<>(processEnv);
            env.putAll(own);
            Map<String, String> declared = new java.util.LinkedHashMap<>(staticEnv);
            declared.putAll(own);
            pod = pod.withEnv(declared); // exec probes: $(VAR) as simulate expands it (Prober, EnvExpansion)
            ContainerRuntime runtime = limits.isEmpty() ? new ProcessRuntime(command, output, env, null)
                    : new ProcessRuntime(command, output, env, null, limits.get(i));
            RealProbeExecutor exec = new RealProbeExecutor(new Prober("127.0.0.1", pod.ports(), KubeletOptions.defaults().kubeletVersion(),
                    pod.env()).inContainer(((ProcessRuntime) runtime)::execArgv)); // exec probes inside the replica's cgroup
            executors.add(exec);
            if (rollout != null) {
                synchronized (lock) {
                    rec.pod(i, isNew ? "new" : "old", isNew ? now() : Double.NEGATIVE_INFINITY);
                }
            }
            Kubelet k = new Kubelet(pod, KubeletOptions.defaults(), time, runtime, exec, e -> onEvent(i, e));
            kubelets[i] = k;
            k.start();
        }

        /** The controller deletes an old pod: it leaves the endpoints (after the propagation delay) and gets SIGTERM. */
        @Override
        public void delete(int i) {
            deleted[i] = true;
            synchronized (lock) {
                rec.gone(i, now());
            }
            if (ready[i]) {
                ready[i] = false;
                readyCount.decrementAndGet();
            }
            int port = appPorts[i];
            time.schedule(spec.service().propagationDelay().toNanos(), () -> service.set(port, false));
            kubelets[i].deletePod(Optional.empty());
        }

        private void onEvent(int i, SimEvent e) {
            double now = now();
            switch (e.type()) {
                case READY:
                case NOT_READY: {
                    boolean r = e.type() == SimEvent.Type.READY;
                    synchronized (lock) {
                        rec.ready(i, now, r);
                    }
                    if (deleted[i]) {
                        break; // terminating: out of the endpoints for good
                    }
                    if (r && !ready[i]) {
                        readyAt[i] = now;
                    }
                    if (r != ready[i]) {
                        ready[i] = r;
                        readyCount.addAndGet(r ? 1 : -1);
                        if (controller != null) {
                            controller.podChanged(); // the ReplicaSet's status changes: the Deployment syncs
                        }
                    }
                    int port = appPorts[i];
                    time.schedule(spec.service().propagationDelay().toNanos(), () -> {
                        if (!(r && deleted[i])) {
                            service.set(port, r);
                        }
                    });
                    break;
                }
                case KILL:
                    if (!deleted[i]) {
                        synchronized (lock) {
                            rec.kill(i, now); // not the controller's deletion of an old pod
                        }
                    }
                    break;
                case BACKOFF:
                    synchronized (lock) {
                        rec.backOff(i, now);
                    }
                    break;
                case START:
                    synchronized (lock) {
                        rec.start(i, now, e.instance() > 1);
                    }
                    break;
                default:
                    break;
            }
        }
    }

    /**
     * What a pod of a rollout finds in its environment: {@code VERSION} ({@code old} or
     * {@code new}) and, for the new version, the rollout's declared behaviour of it, which the
     * model engine models and a live process may honour (the test replica and
     * {@code vitals replay rollout --live} do): {@code ROLLOUT_START_MS},
     * {@code ROLLOUT_WARMUP_FACTOR}, {@code ROLLOUT_WARMUP_PERIOD_MS},
     * {@code ROLLOUT_WARMUP_REQUESTS} and {@code ROLLOUT_READINESS} ({@code port-open} or
     * {@code warmed}).
     *
     * @param rollout the rollout
     * @param isNew whether the pod is of the new ReplicaSet
     * @return the variables
     */
    static Map<String, String> rolloutEnvironment(Rollout rollout, boolean isNew) {
        if (!isNew) {
            return Map.of("VERSION", "old");
        }
        return Map.of("VERSION", "new",
                "ROLLOUT_START_MS", Long.toString(rollout.startTime().toMillis()),
                "ROLLOUT_WARMUP_FACTOR", Double.toString(rollout.warmupFactor()),
                "ROLLOUT_WARMUP_PERIOD_MS", Long.toString(rollout.warmupPeriod().toMillis()),
                "ROLLOUT_WARMUP_REQUESTS", Integer.toString(rollout.warmupRequests()),
                "ROLLOUT_READINESS", rollout.readinessWaitsForWarmup() ? "warmed" : "port-open");
    }

    private static java.util.concurrent.ThreadFactory daemon(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    static int freePort() {
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(false);
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return the probe aimed at {@code port} on the pod (HTTP, TCP and gRPC handlers; exec as is) */
    static ProbeSpec retarget(ProbeSpec p, int port) {
        ProbeHandler to = p.handler().<ProbeHandler>match(
                g -> new ProbeHandler.HttpGet(Optional.empty(), ProbeHandler.PortRef.of(port), g.path(), g.scheme(), g.headers()),
                t -> new ProbeHandler.TcpSocket(Optional.empty(), ProbeHandler.PortRef.of(port)),
                g -> new ProbeHandler.Grpc(port, g.service()),
                e -> e);
        return new ProbeSpec(p.type(), to, p.initialDelaySeconds(), p.timeoutSeconds(), p.periodSeconds(), p.successThreshold(),
                p.failureThreshold(), p.terminationGracePeriodSeconds());
    }

    /** One client population sending HTTP requests through the Service. */
    private final class Client {
        private final FleetSpec.Clients c;
        private final int port;
        private final Recorder rec;
        private final Object lock;
        private final long start;
        private final long t0ns;
        private final AtomicBoolean stop;
        private final ExecutorService pool;
        private final SplittableRandom rnd;
        private final AtomicInteger inFlight = new AtomicInteger();

        Client(FleetSpec.Clients c, int port, Recorder rec, Object lock, long start, long t0ns, AtomicBoolean stop,
                ExecutorService pool, SplittableRandom rnd) {
            this.c = c;
            this.port = port;
            this.rec = rec;
            this.lock = lock;
            this.start = start;
            this.t0ns = t0ns;
            this.stop = stop;
            this.pool = pool;
            this.rnd = rnd;
        }

        private double now() {
            return (System.nanoTime() - start) / 1e9;
        }

        private boolean active() {
            long t = System.nanoTime() - t0ns;
            return !stop.get() && t < c.until().toNanos();
        }

        void closedLoop() {
            try {
                sleepUntil(t0ns + c.from().toNanos());
                while (active()) {
                    request();
                    if (!c.thinkTime().isZero()) {
                        Thread.sleep(c.thinkTime().toMillis());
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        void openLoop() {
            try {
                sleepUntil(t0ns + c.from().toNanos());
                long next = System.nanoTime();
                while (active()) {
                    double gap;
                    synchronized (rnd) {
                        gap = -Math.log(1 - rnd.nextDouble()) / c.rate();
                    }
                    next += (long) (gap * 1e9);
                    sleepUntil(next);
                    if (inFlight.get() >= MAX_IN_FLIGHT) {
                        synchronized (lock) { // the client side is out of threads: the request fails at once
                            rec.attempts(now(), 1);
                            rec.failed(now(), 1);
                        }
                        continue;
                    }
                    inFlight.incrementAndGet();
                    pool.execute(() -> {
                        try {
                            request();
                        } finally {
                            inFlight.decrementAndGet();
                        }
                    });
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (java.util.concurrent.RejectedExecutionException ignored) {
                // shutting down
            }
        }

        private void sleepUntil(long nanos) throws InterruptedException {
            long left = nanos - System.nanoTime();
            if (left > 0) {
                TimeUnit.NANOSECONDS.sleep(left);
            }
        }

        /** One request with its retries. */
        private void request() {
            try {
                for (int attempt = 1; attempt <= c.retries() + 1; attempt++) {
                    if (stop.get()) {
                        return;
                    }
                    synchronized (lock) {
                        rec.attempts(now(), 1);
                    }
                    long t = System.nanoTime();
                    ProbeOutcome o = attempt(t);
                    if (o != null && o.result() == ProbeResult.ERROR && (stop.get() || Thread.currentThread().isInterrupted())) {
                        return; // the run is over: the GET was interrupted, not answered
                    }
                    // an errored GET (it could not be sent) has no counted result (R22): a failed attempt here
                    if (o != null && o.result() != ProbeResult.ERROR && o.result().counted() == ProbeResult.SUCCESS) {
                        double latency = (System.nanoTime() - t) / 1e9;
                        synchronized (lock) {
                            rec.ok(now(), 1, latency);
                        }
                        return;
                    }
                    if (o != null && o.message().endsWith("connection refused")) {
                        synchronized (lock) { // the Service closes its listener while it has no endpoint
                            rec.noEndpoint(now(), 1);
                        }
                    }
                    if (attempt <= c.retries()) {
                        Thread.sleep(c.retryDelay().toMillis());
                    }
                }
                synchronized (lock) {
                    rec.failed(now(), 1);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        /**
         * @return the answer (a 2xx/3xx within the timeout counts as SUCCESS; the simulator's one GET:
         *         {@link Prober#get}), or null when no time was left
         */
        private ProbeOutcome attempt(long startNanos) {
            long left = c.timeout().toNanos() - (System.nanoTime() - startNanos);
            return left > 0 ? CLIENT.get(port, path, Duration.ofNanos(left)) : null;
        }
    }
}
