package dev.vitals.kubesim;

import dev.vitals.kubesim.fault.FaultProxy;
import dev.vitals.kubesim.fault.LoadGenerator;
import dev.vitals.kubesim.input.InvalidInputException;
import dev.vitals.kubesim.model.ContainerRuntime;
import dev.vitals.kubesim.model.Durations;
import dev.vitals.kubesim.model.Kubelet;
import dev.vitals.kubesim.model.KubeletOptions;
import dev.vitals.kubesim.model.PodSpec;
import dev.vitals.kubesim.model.ProbeExecutor;
import dev.vitals.kubesim.model.SimEvent;
import dev.vitals.kubesim.model.SimTime;
import dev.vitals.kubesim.model.VirtualTime;
import dev.vitals.kubesim.probe.Prober;
import dev.vitals.kubesim.probe.RealProbeExecutor;
import dev.vitals.kubesim.result.SimulationResult;
import dev.vitals.kubesim.runtime.ProcessRuntime;
import dev.vitals.kubesim.scenario.Action;
import dev.vitals.kubesim.scenario.ActionRunner;
import dev.vitals.kubesim.scenario.Scenario;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Replays kubelet's probe rules against a container for a fixed time and returns what
 * happened. The library entry point of {@code vitals simulate} (and of {@code vitals replay}).
 *
 * <pre>{@code
 * PodSpec pod = ManifestReader.read(path).select(Optional.of("app")).toPodSpec();
 * SimulationResult r = Simulation.builder(pod)
 *         .command(List.of("java", "-jar", "app.jar"))
 *         .scenario(Scenario.read(scenarioPath))
 *         .duration(Duration.ofSeconds(60))
 *         .listener(event -> System.out.println(event))
 *         .build()
 *         .run();
 * r.restarts(); r.notReady(); r.stats(ProbeType.LIVENESS).p99Ms(); r.passed();
 * }</pre>
 *
 * <p>By default it runs in real time: the command is the container ({@link ProcessRuntime}),
 * probes go over loopback ({@link Prober}, one thread per probe type) and scenario proxies are
 * real sockets. Tests and predictions inject a {@link VirtualTime}, a scripted
 * {@link ContainerRuntime} and a scripted {@link ProbeExecutor}. A simulation runs once.
 */
public final class Simulation {
    private final PodSpec pod;
    private final KubeletOptions options;
    private final Duration duration;
    private final Scenario scenario;
    private final List<FaultProxy.Spec> proxySpecs;
    private final Consumer<SimEvent> listener;
    private final SimTime time;
    private final ContainerRuntime runtime;
    private final ProbeExecutor executor;
    private final String target;
    private final Optional<dev.vitals.kubesim.runtime.ResourceLimits> limits;
    private boolean ran;

    private Simulation(Builder b) {
        this.pod = b.pod;
        this.options = b.options;
        this.scenario = b.scenario;
        this.duration = b.duration.orElse(b.scenario.duration().orElse(Duration.ofSeconds(60)));
        this.listener = b.listener;
        List<FaultProxy.Spec> specs = new ArrayList<>(b.scenario.proxies());
        specs.addAll(b.proxies);
        this.proxySpecs = List.copyOf(specs);
        this.time = b.time == null ? SimTime.real() : b.time;
        if (b.runtime != null) {
            this.runtime = b.runtime;
            this.target = "(injected runtime)";
        } else {
            // the environment the caller resolved (simulate: literal values and fieldRefs), else the pod's
            // static env (PodSpec.env, where a valueFrom variable is empty, as exec probes see it)
            Map<String, String> env = b.environment == null ? pod.env() : b.environment;
            ProcessRuntime pr = new ProcessRuntime(b.command, b.output, env, null,
                    b.limits != null ? b.limits : dev.vitals.kubesim.runtime.ResourceLimits.of(b.resources));
            this.runtime = pr;
            this.target = String.join(" ", b.command);
        }
        this.limits = runtime instanceof ProcessRuntime pr && !pr.limits().resources().isEmpty()
                ? Optional.of(pr.limits())
                : b.limits != null && !b.limits.resources().isEmpty() ? Optional.of(b.limits) : Optional.empty();
        Prober prober = new Prober(options.podIp(), pod.ports(), options.kubeletVersion(), pod.env());
        // exec probes and hooks run inside the container instance's cgroup, as the runtime's exec runs them
        this.executor = b.executor != null ? b.executor
                : new RealProbeExecutor(runtime instanceof ProcessRuntime pr ? prober.inContainer(pr::execArgv) : prober);
    }

    /**
     * @param pod the container and its probes
     * @return a builder
     */
    public static Builder builder(PodSpec pod) {
        return new Builder(pod);
    }

    /** @return the container's resources and how they are applied, when the run has resources */
    public Optional<dev.vitals.kubesim.runtime.ResourceLimits> limits() {
        return limits;
    }

    /** @return the simulated duration */
    public Duration duration() {
        return duration;
    }

    /**
     * Runs the simulation to its end. Real time blocks for the duration (plus the target's
     * shutdown, at most a few seconds); virtual time returns as soon as the events are run.
     *
     * @return the result
     * @throws InterruptedException when interrupted (the process and threads are cleaned up)
     * @throws IllegalStateException when run twice, or a proxy cannot listen
     */
    public SimulationResult run() throws InterruptedException {
        synchronized (this) {
            if (ran) {
                throw new IllegalStateException("a Simulation runs once");
            }
            ran = true;
        }
        List<SimEvent> events = Collections.synchronizedList(new ArrayList<>());
        Consumer<SimEvent> sink = e -> {
            events.add(e);
            try {
                listener.accept(e);
            } catch (RuntimeException ex) {
                System.getLogger("dev.vitals.kubesim").log(System.Logger.Level.WARNING, "listener failed", ex);
            }
        };
        Run run = new Run(new Kubelet(pod, options, time, runtime, executor, sink));
        InterruptedException interrupted = null;
        try {
            for (FaultProxy.Spec s : proxySpecs) {
                run.proxies.put(s.name(), new FaultProxy(s).start());
            }
            run.startedAt = time.monotonicTime();
            try {
                time.runAndWait(() -> {
                    run.kubelet.start();
                    for (Scenario.Step a : scenario.actions()) {
                        time.schedule(a.at().toNanos(), () -> run.perform(a.action()));
                    }
                });
                time.awaitUntil(run.startedAt + duration.toNanos());
            } catch (InterruptedException e) {
                interrupted = e; // a signal (vitals simulate's Ctrl-C): stop as at the end, keep what was measured
                Thread.interrupted();
            }
            time.runAndWait(() -> {
                run.kubelet.stop();
                run.restarts = run.kubelet.restartCount();
                run.last = run.kubelet.instanceToShutDown();
            });
        } finally {
            run.tearDown();
        }
        addLateNotes(run, events);
        if (interrupted != null) {
            Duration ran = Duration.ofNanos(Math.max(0, Math.min(duration.toNanos(), time.monotonicTime() - run.startedAt)));
            Thread.currentThread().interrupt();
            throw new Interrupted(new SimulationResult(events, ran, run.restarts, List.of(), target,
                    limits.map(dev.vitals.kubesim.runtime.ResourceLimits::report)), ran);
        }
        return new SimulationResult(events, duration, run.restarts, scenario.expectations(), target,
                limits.map(dev.vitals.kubesim.runtime.ResourceLimits::report));
    }

    /** Adds what was noted after the end (loads that ended with the run, processes reaped with their instance) as events at the end. */
    private void addLateNotes(Run run, List<SimEvent> events) {
    if (runtime instanceof ProcessRuntime pr && pr.reapedProcesses() > 0) {
        int n = pr.reapedProcesses();
        run.late.add("container: " + n + " process" + (n == 1 ? "" : "es") + " besides the main one, ended with their"
                + " instance (found by " + pr.containment() + "): a container's end takes every process in it");
    }
    synchronized (run.late) {
        for (String text : run.late) {
            events.add(new SimEvent(duration, SimEvent.Type.ACTION, 0, Optional.empty(),
                    Optional.empty(), Optional.empty(), text));
        }
    }
    }

    /**
     * One run's state: the kubelet model, the scenario's proxies and loads, whether the container
     * is left paused, and what is noted after the end. The kubelet thread schedules its actions
     * ({@link #perform}); the caller's thread tears it down.
     */
    private final class Run {
        final Kubelet kubelet;
        final String podIp = options.podIp();
        final Map<String, FaultProxy> proxies = new LinkedHashMap<>();
        final List<LoadGenerator.Handle> loads = Collections.synchronizedList(new ArrayList<>());
        final java.util.concurrent.atomic.AtomicBoolean paused = new java.util.concurrent.atomic.AtomicBoolean();
        final java.util.concurrent.atomic.AtomicBoolean ended = new java.util.concurrent.atomic.AtomicBoolean();
        /** Notes that come after the run ended (a load cancelled with it), added at its end. */
        final List<String> late = Collections.synchronizedList(new ArrayList<>());
        /** Set on the kubelet thread at the end, read after it. */
        volatile int restarts;
        volatile Optional<ContainerRuntime.Instance> last = Optional.empty();
        volatile long startedAt = time.monotonicTime();

        Run(Kubelet kubelet) {
            this.kubelet = kubelet;
        }

        /**
         * Runs on the kubelet thread: reads the state it needs, then has {@link ActionRunner} do
         * the work off that thread; a pod deletion is a kubelet decision and stays on it.
         */
        void perform(Action a) {
            ActionTarget target = new ActionTarget(this, kubelet.currentInstance());
            if (a instanceof Action.Delete || a instanceof Action.KubeletRestart) {
                kubelet.note(SimEvent.Type.ACTION, a.describe());
                ActionRunner.perform(a, target, stats -> { });
                return;
            }
            time.offload(() -> {
                String outcome;
                try {
                    // a load still running when the run ends is cancelled with it; its totals go in the report
                    outcome = ActionRunner.perform(a, target, stats -> {
                        if (ended.get()) {
                            late.add("load ended with the run: " + stats);
                        } else {
                            note("load finished: " + stats, "load ended with the run: " + stats);
                        }
                    });
                } catch (RuntimeException e) {
                    outcome = " failed: " + e.getMessage();
                }
                String text = a.describe() + outcome;
                note(text, text);
            });
        }

        /** From any thread: a note on the kubelet thread, or {@code lateText} after the end if time is closed. */
        private void note(String text, String lateText) {
            try {
                time.schedule(0, () -> kubelet.note(SimEvent.Type.ACTION, text));
            } catch (java.util.concurrent.RejectedExecutionException e) {
                late.add(lateText);
            }
        }

        /** The end: loads cancelled, proxies closed, the last instance resumed and shut down, time closed. */
        void tearDown() {
            ended.set(true);
            List<LoadGenerator.Handle> running;
            synchronized (loads) {
                running = new ArrayList<>(loads);
            }
            running.forEach(LoadGenerator.Handle::cancel);
            proxies.values().forEach(FaultProxy::close);
            if (last.isPresent()) {
                ContainerRuntime.Instance i = last.get();
                if (paused.get()) {
                    safely(i::resume);
                }
                safely(() -> i.shutdown(Duration.ofSeconds(Math.min(5, Math.max(2, pod.terminationGracePeriodSeconds())))));
            }
            executor.close();
            time.close();
        }
    }

    /**
     * What one action acts on ({@link ActionRunner.Target}): the run, and the container instance
     * read on the kubelet thread when the action came due.
     */
    private record ActionTarget(Run run, Optional<ContainerRuntime.Instance> instance) implements ActionRunner.Target {
        @Override
        public FaultProxy proxy(String name) {
            FaultProxy p = run.proxies.get(name);
            if (p == null) {
                throw new IllegalStateException("no proxy named " + name);
            }
            return p;
        }

        @Override
        public String podIp() {
            return run.podIp;
        }

        @Override
        public void loadStarted(LoadGenerator.Handle handle) {
            run.loads.add(handle);
        }

        @Override
        public void paused(boolean p) {
            run.paused.set(p);
        }

        @Override
        public void deletePod(Optional<Duration> grace) {
            run.kubelet.deletePod(grace);
        }

        @Override
        public void restartKubelet() {
            run.kubelet.restartKubelet();
        }
    }

    /**
     * Thrown by {@link #run()} when the waiting thread is interrupted (a signal): the run was
     * stopped as at its end (kubelet stopped, the container shut down, proxies closed) and
     * {@link #partial()} holds what was measured until then (no expectations: they speak of the
     * whole run).
     */
    public static final class Interrupted extends InterruptedException {
        private static final long serialVersionUID = 1L;
        private final transient SimulationResult partial;
        /** How long the run had been going when it was interrupted. */
        private final Duration ran;

        Interrupted(SimulationResult partial, Duration ran) {
            super("interrupted after " + Durations.seconds(ran) + " s");
            this.partial = partial;
            this.ran = ran;
        }

        /** @return the events and figures measured until the interruption */
        public SimulationResult partial() {
            return partial;
        }

        /** @return how long the run had been going */
        public Duration ran() {
            return ran;
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
        private final PodSpec pod;
        private KubeletOptions options = KubeletOptions.defaults();
        private Optional<Duration> duration = Optional.empty();
        private Scenario scenario = Scenario.empty();
        private final List<FaultProxy.Spec> proxies = new ArrayList<>();
        private Consumer<SimEvent> listener = e -> { };
        private List<String> command = List.of();
        private ProcessBuilder.Redirect output = ProcessBuilder.Redirect.DISCARD;
        private Map<String, String> environment;
        private SimTime time;
        private ContainerRuntime runtime;
        private ProbeExecutor executor;
        private dev.vitals.kubesim.model.Resources resources = dev.vitals.kubesim.model.Resources.NONE;
        private dev.vitals.kubesim.runtime.ResourceLimits limits;

        private Builder(PodSpec pod) {
            this.pod = Objects.requireNonNull(pod, "pod");
        }

        /**
         * @param options kubelet model options (default {@link KubeletOptions#defaults()})
         * @return this builder
         */
        public Builder options(KubeletOptions options) {
            this.options = Objects.requireNonNull(options, "options");
            return this;
        }

        /**
         * @param d how long to simulate, &gt; 0 (default: the scenario's, else 60 s)
         * @return this builder
         */
        public Builder duration(Duration d) {
            if (d.isNegative() || d.isZero()) {
                throw new InvalidInputException("duration must be > 0, was " + d);
            }
            this.duration = Optional.of(d);
            return this;
        }

        /**
         * @param s the scenario (default: none)
         * @return this builder
         */
        public Builder scenario(Scenario s) {
            this.scenario = Objects.requireNonNull(s, "scenario");
            return this;
        }

        /**
         * @param spec an extra fault proxy (like {@code --proxy})
         * @return this builder
         */
        public Builder proxy(FaultProxy.Spec spec) {
            proxies.add(Objects.requireNonNull(spec, "spec"));
            return this;
        }

        /**
         * @param l receives each event as it happens, on the kubelet thread; must not block
         * @return this builder
         */
        public Builder listener(Consumer<SimEvent> l) {
            this.listener = Objects.requireNonNull(l, "listener");
            return this;
        }

        /**
         * @param command the target command: each container instance runs it
         * @return this builder
         */
        public Builder command(List<String> command) {
            this.command = List.copyOf(command);
            return this;
        }

        /**
         * @param env the container's environment as the caller resolved it (e.g. {@code ContainerProcess.env()}:
         *        literal values and {@code fieldRef}s), added to this process's own (as the image's environment
         *        is under the container's {@code env}); it replaces {@link PodSpec#env()} for the process (not for
         *        exec probes). Default: {@link PodSpec#env()}
         * @return this builder
         */
        public Builder environment(Map<String, String> env) {
            this.environment = Map.copyOf(env);
            return this;
        }

        /**
         * @param r the container's resources: each instance of the command runs in its own cgroup
         *        with them (see {@link dev.vitals.kubesim.runtime.ResourceLimits}); default none
         * @return this builder
         */
        public Builder resources(dev.vitals.kubesim.model.Resources r) {
            this.resources = Objects.requireNonNull(r, "resources");
            return this;
        }

        /**
         * @param l the resources with the way they are applied already decided (the CLI, which prints
         *        it first); with an injected {@link #runtime} that applies them itself (a wrapped
         *        {@link ProcessRuntime}, as the replay's), they are only reported
         * @return this builder
         */
        public Builder limits(dev.vitals.kubesim.runtime.ResourceLimits l) {
            this.limits = Objects.requireNonNull(l, "limits");
            return this;
        }

        /**
         * @param output where the target's output goes (default discard)
         * @return this builder
         */
        public Builder output(ProcessBuilder.Redirect output) {
            this.output = Objects.requireNonNull(output, "output");
            return this;
        }

        /**
         * @param t the time source (default real time); a {@link VirtualTime} for rule tests
         * @return this builder
         */
        public Builder time(SimTime t) {
            this.time = Objects.requireNonNull(t, "time");
            return this;
        }

        /**
         * @param r the container runtime (default: {@link ProcessRuntime} of the command)
         * @return this builder
         */
        public Builder runtime(ContainerRuntime r) {
            this.runtime = Objects.requireNonNull(r, "runtime");
            return this;
        }

        /**
         * @param e the probe executor (default: {@link RealProbeExecutor})
         * @return this builder
         */
        public Builder probeExecutor(ProbeExecutor e) {
            this.executor = Objects.requireNonNull(e, "executor");
            return this;
        }

        /**
         * @return the simulation
         * @throws InvalidInputException when there is neither a command nor a runtime, or a
         *         scenario names an unknown proxy, or two proxies share a name
         */
        public Simulation build() {
            if (runtime == null && command.isEmpty()) {
                throw new InvalidInputException("no target command: give one after '--', e.g. -- java -jar app.jar");
            }
            List<String> names = new ArrayList<>();
            for (FaultProxy.Spec s : scenario.proxies()) {
                names.add(s.name());
            }
            for (FaultProxy.Spec s : proxies) {
                names.add(s.name());
            }
            if (names.stream().distinct().count() != names.size()) {
                throw new InvalidInputException("two proxies share a name: " + names);
            }
            for (Scenario.Step step : scenario.actions()) {
                Optional<String> proxy = step.action() instanceof Action.Fault f ? Optional.of(f.proxy())
                        : step.action() instanceof Action.Heal h ? Optional.of(h.proxy()) : Optional.empty();
                if (proxy.isPresent() && !names.contains(proxy.get())) {
                    throw new InvalidInputException("scenario action '" + step.describe() + "' names proxy '" + proxy.get()
                            + "', which is not declared (proxies: " + (names.isEmpty() ? "none" : String.join(", ", names))
                            + "); declare it under proxies: or with --proxy");
                }
            }
            return new Simulation(this);
        }
    }
}
