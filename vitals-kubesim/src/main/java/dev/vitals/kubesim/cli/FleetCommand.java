package dev.vitals.kubesim.cli;

import dev.vitals.kubesim.fleet.FleetEnsemble;
import dev.vitals.kubesim.fleet.FleetExpectation;
import dev.vitals.kubesim.fleet.FleetReport;
import dev.vitals.kubesim.fleet.FleetResult;
import dev.vitals.kubesim.fleet.FleetSpec;
import dev.vitals.kubesim.fleet.FleetSpecReader;
import dev.vitals.kubesim.fleet.FleetSweep;
import dev.vitals.kubesim.fleet.LiveFleet;
import dev.vitals.kubesim.fleet.ModelFleet;
import dev.vitals.kubesim.fleet.SweepReport;
import dev.vitals.kubesim.input.InvalidInputException;
import dev.vitals.kubesim.manifest.ManifestReader;
import dev.vitals.kubesim.model.Durations;
import dev.vitals.kubesim.model.PodSpec;
import dev.vitals.kubesim.model.ProbeHandler;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code vitals fleet}: a restart cascade or a zero-endpoint outage across replicas, before a cluster shows it. */
@Command(name = "fleet", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Simulate a fleet of replicas behind a Service: restarts, Ready endpoints, client success and latency.",
            "",
            "Model engine (FILE, no command): FILE describes replicas, probes, clients, a shared dependency and faults (docs/fleet.md); replicas run on a virtual clock (an hour of 1,000 in seconds, of 10,000 in one to two minutes); each holds about 4 KiB of heap, twice that with the collector's room, so the JVM's -Xmx bounds the fleet (512 MiB: 65,536 replicas).",
            "",
            "Live engine (a command after --): N real processes of CMD, each with PORT, PROBE_PORT and REPLICA in its environment, probed by the kubelet model, behind a real TCP Service on --service-port. Without FILE, --manifest gives the probes and there are no clients: vitals fleet --replicas 4 --manifest deploy.yaml -- CMD...",
            "",
            "Where does it break (model engine): FILE --sweep PATH=FROM..TO[:STEPS] runs an ensemble at each point of one (or, given twice, two) of FILE's values and reports where each expectation flips, e.g. vitals fleet fleet.yaml --sweep clients.concurrency=50..1000:20",
            "",
            "Exit code: 0 when every expectation holds (a sweep: when it ran), 1 when one does not, 2 on bad input."},
        subcommands = {FleetCalibrateCommand.class})
final class FleetCommand implements Callable<Integer> {
    @Parameters(index = "0", arity = "0..1", paramLabel = "FILE", description = "the fleet model (YAML)")
    Path model;

    @Parameters(index = "1..*", arity = "0..*", paramLabel = "CMD", description = "after --: the live engine's command")
    List<String> command = new ArrayList<>();

    @Option(names = "--replicas", paramLabel = "N", description = "override the model's replica count (model: 1-1000000 and what the heap holds, about 8 KiB each;"
            + " live: 1-64)")
    Integer replicas;

    @Option(names = "--duration", paramLabel = "DURATION", description = "override the model's scenario duration, e.g. 10m")
    String duration;

    @Option(names = "--manifest", paramLabel = "FILE", description = "take the probes' kubelet fields from this manifest"
            + " (live engine: and its resources.limits, a cgroup per replica instance)")
    Path manifest;

    /** The manifest container's resources: the live engine runs each replica under them. */
    private dev.vitals.kubesim.model.Resources manifestResources = dev.vitals.kubesim.model.Resources.NONE;
    /** The manifest container's env: declared (exec probes' $(VAR), R68) and resolved (the process), as simulate has them. */
    private Map<String, String> declaredEnv = Map.of();
    private Map<String, String> processEnv = Map.of();

    @Option(names = "--container", paramLabel = "NAME", description = "the manifest's container (needed when it has several)")
    String container;

    @Option(names = "--expect", paramLabel = "TEXT", description = "add an expectation, e.g. 'endpoints > 0 always' (repeatable)")
    List<String> expect = new ArrayList<>();

    @Option(names = "--seed", paramLabel = "N", description = "override the model's random seed")
    Long seed;

    @Option(names = "--runs", paramLabel = "N",
            description = "model engine: run N seeds (the seed, seed+1, …) and report the median and range; an expectation holds when it holds in every run unless it says 'in P%% of runs' (1-1000, default 1)")
    Integer runs;

    @Option(names = "--service-port", paramLabel = "PORT", description = "live engine: the Service's port (default: a free port)")
    int servicePort;

    @Option(names = "--path", paramLabel = "PATH", description = "live engine: the path the clients request (default /)")
    String path = "/";

    @Option(names = "--logs", paramLabel = "DIR", description = "live engine: where the replicas' output goes (default: a new directory <tmp>/vitals-fleet-…)")
    Path logs;

    @Option(names = "--json", paramLabel = "FILE", description = "write the JSON report ({\"runs\":[{\"restarts\",\"zeroEndpointSeconds\",…,\"series\",\"lanes\"}]})")
    Path json;

    @Option(names = "--html", paramLabel = "PATH", description = "write one self-contained HTML page (a lane per replica, endpoints, clients): PATH ending in .html is the page, else a directory (made if missing) for index.html")
    Path html;

    @Option(names = "--kubernetes-version", paramLabel = "1.N",
            description = "the Kubernetes release to model (1.29-1.37, default 1.37), as for simulate and lint")
    String kubernetesVersion;

    @Option(names = "--sweep", paramLabel = "PATH=FROM..TO[:STEPS]",
            description = "model engine: run FILE at STEPS points of one of its values (a YAML path such as clients.concurrency, replicas,"
                    + " probes.liveness.timeoutSeconds, clients[0].timeout), each point an ensemble of --runs seeds (default 5), and report"
                    + " where each expectation flips; give it twice for a 2-D sweep. STEPS: 2-100 points (default 11, or every whole"
                    + " number of a range of at most 21). Exit 0 when the sweep ran, 2 on bad input")
    List<String> sweep = new ArrayList<>();

    @Option(names = {"-q", "--quiet"}, description = "no progress line")
    boolean quiet;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        takeBackTheCommandsFirstWord();
        // validated before anything runs; the model fleet's kubelets follow its rules (docs/spec "Versions")
        dev.vitals.kubesim.model.KubernetesVersion version = kubernetesVersion == null
                ? dev.vitals.kubesim.model.KubernetesVersion.NEWEST
                : dev.vitals.kubesim.model.KubernetesVersion.parse(kubernetesVersion);
        if (!sweep.isEmpty()) {
            return sweep(out);
        }
        String name = model != null ? model.getFileName().toString()
                : !command.isEmpty() && manifest != null ? manifest.getFileName().toString() : null;
        FleetSpec s = override(fleet());
        checkOutputsAndRuns();
        if (command.isEmpty()) { // the model's replicas fit this JVM's heap, or exit 2 before the run
            checkHeap(s.replicas(), runs == null ? 1 : Math.min(runs, ensembleThreads()));
        }
        if (command.isEmpty() && runs != null && runs > 1) {
            return ensemble(s, name, out);
        }
        FleetResult r;
        try {
            r = command.isEmpty() ? new ModelFleet(s, name, dev.vitals.kubesim.model.KubeletOptions.builder()
                    .keepStatusOnKubeletRestart(version.keepsStatusOnKubeletRestart())
                    .startedInheritedOnContainerRestart(version.startupGatingRegression()).build()).run()
                    : live(s, name, out);
        } catch (InterruptedFleet e) {
            return e.exitCode;
        }
        return report(r, out);
    }

    /** With -- and no FILE before it, picocli's FILE slot took the command's first word: give it back. */
    private void takeBackTheCommandsFirstWord() {
        List<String> original = spec.commandLine().getParseResult().originalArgs();
        int dashes = original.indexOf("--");
        if (dashes >= 0 && model != null && original.size() - dashes - 1 == command.size() + 1) {
            List<String> c = new ArrayList<>();
            c.add(model.toString());
            c.addAll(command);
            command = c;
            model = null;
        }
    }

    /** @return the model FILE's fleet, or the live run's from --manifest alone */
    private FleetSpec fleet() {
        if (model != null) {
            return FleetSpecReader.read(model);
        }
        if (!command.isEmpty() && manifest != null) {
            return manifestOnly();
        }
        throw new InvalidInputException("fleet: give a model FILE (docs/fleet.md), e.g. vitals fleet fleet.yaml, "
                + "or --manifest FILE -- CMD for a live run");
    }

    /** Before any run, model or live: the reports can be written and --runs fits the engine. */
    private void checkOutputsAndRuns() {
        ingressNotices(model, manifest);
        Map<String, Path> outputs = new LinkedHashMap<>();
        outputs.put("--json", json);
        SimulateChecks.checkOutputs(java.util.Arrays.asList(model, manifest), outputs, HtmlOutput.of(html));
        if (runs != null) {
            if (runs < 1 || runs > 1000) {
                throw new InvalidInputException("--runs must be 1-1000, was " + runs);
            }
            if (!command.isEmpty() && runs > 1) {
                throw new InvalidInputException("--runs is for the model engine; the live engine runs once");
            }
        }
    }

    /**
     * The live run, its replicas' output in --logs or a temporary directory (kept once the run
     * ended; else, on bad input or an interrupt, removed).
     *
     * @throws InterruptedFleet on a signal, after the reports were written
     */
    private FleetResult live(FleetSpec s, String name, PrintWriter out) throws Exception {
        SimulateChecks.checkExecutable(command.get(0)); // a missing or non-executable binary: exit 2 before the run
        Path logDir;
        try {
            logDir = logs != null ? logs : TempDirs.create("vitals-fleet-");
            Files.createDirectories(logDir);
        } catch (IOException e) {
            throw new InvalidInputException("--logs " + (logs == null ? "(a temporary directory)" : logs)
                    + ": cannot create the directory: " + InvalidInputException.reason(e));
        }
        try {
            return runLive(s, name, logDir, out);
        } finally {
            TempDirs.removeUnlessKept(logDir);
        }
    }

    /** @return the threads an ensemble runs on: the model engine is one thread per run, at most two at once */
    private static int ensembleThreads() {
        return Math.max(1, Math.min(2, Runtime.getRuntime().availableProcessors()));
    }

    /**
     * The model engine's memory bound (issue 37): {@code replicas} at {@link FleetSpec#BYTES_PER_REPLICA}
     * each, with as much again for the collector, per run at once, within this JVM's heap.
     *
     * @throws InvalidInputException when they do not fit, naming the bound and the heap
     */
    static void checkHeap(int replicas, int runsAtOnce) {
        checkHeap(replicas, runsAtOnce, Runtime.getRuntime().maxMemory());
    }

    /** {@link #checkHeap(int, int)} for a heap of {@code heap} bytes. */
    static void checkHeap(int replicas, int runsAtOnce, long heap) {
        int max = FleetSpec.replicasWithin(heap, runsAtOnce);
        if (replicas > max) {
            long need = (long) replicas * 2 * FleetSpec.BYTES_PER_REPLICA * runsAtOnce;
            throw new InvalidInputException("fleet: " + replicas + " replicas need about " + (need >> 20) + " MiB of heap ("
                    + FleetSpec.BYTES_PER_REPLICA / 1024 + " KiB per replica, as much again for the collector"
                    + (runsAtOnce > 1 ? ", " + runsAtOnce + " runs at once" : "") + "); this JVM's heap is " + (heap >> 20)
                    + " MiB, room for " + max + ": model fewer replicas, or give java more heap (VITALS_JAVA_OPTS=-Xmx"
                    + Math.max(1, (need >> 30) + 1) + "g for the vitals command, java -Xmx… -jar vitals.jar)");
        }
    }

    /** The live run's signal ending: the exit code its reports were written with. */
    private static final class InterruptedFleet extends Exception {
        private static final long serialVersionUID = 1L;
        final int exitCode;

        InterruptedFleet(int exitCode) {
            super(null, null, false, false);
            this.exitCode = exitCode;
        }
    }

    private FleetResult runLive(FleetSpec s, String name, Path logDir, PrintWriter out) throws Exception {
        FleetResult r;
        {
            PrintWriter err = spec.commandLine().getErr();
            LiveFleet live;
            try {
                live = new LiveFleet(s, command, servicePort, path, ProcessBuilder.Redirect.appendTo(logDir.resolve("replicas.log").toFile()),
                        line -> {
                            if (!quiet) {
                                err.println(line);
                                err.flush();
                            }
                        }, name, manifestResources).environment(declaredEnv, processEnv);
            } catch (IllegalArgumentException e) {
                throw new InvalidInputException(e.getMessage());
            }
            out.println("vitals fleet: " + s.replicas() + " replicas of " + String.join(" ", command) + " (output: "
                    + logDir.resolve("replicas.log") + "), " + s.duration().toSeconds() + " s after warm-up");
            if (!live.limits().isEmpty()) {
                out.println("  resources: " + manifestResources.describe() + ": " + live.limits().get(0).status());
            }
            out.flush();
            try {
                r = live.run();
            } catch (IllegalArgumentException e) {
                throw new InvalidInputException(e.getMessage());
            } catch (LiveFleet.Interrupted e) {
                Thread.interrupted();
                throw new InterruptedFleet(interrupted(e, out, err));
            }
            TempDirs.keep(logDir); // the run ended and its output line named the directory
            for (int i = 0; i < live.limits().size(); i++) {
                for (dev.vitals.kubesim.runtime.ResourceLimits.InstanceUsage u : live.limits().get(i).report().instances()) {
                    out.printf(java.util.Locale.ROOT, "  replica %d instance #%d: %s; exit %d %s%n", i, u.instance(),
                            u.usage().describe(), u.exitCode(), u.reason());
                }
            }
        }
        return r;
    }

    private int report(FleetResult r, PrintWriter out) throws IOException {
        out.print(FleetReport.text(r));
        out.flush();
        if (json != null) {
            SimulateChecks.write(json, FleetReport.json(List.of(r), List.of(r.label()), List.of("-")));
            out.println("wrote " + json);
        }
        if (html != null) {
            SimulateChecks.write(HtmlOutput.of(html).index(), FleetReport.html("vitals fleet: " + r.label(), List.of(r)));
            out.println("wrote " + HtmlOutput.of(html).index());
        }
        out.println(dev.vitals.kubesim.report.VerdictLine.overall(dev.vitals.kubesim.report.VerdictLine.Word.of(r.passed())));
        out.flush();
        return r.passed() ? VitalsCommand.OK : VitalsCommand.FAILED;
    }

    /**
     * The live run was stopped by a signal (issue 30): the summary and the reports asked for, from
     * what was measured until then, marked interrupted; no verdict.
     */
    private int interrupted(LiveFleet.Interrupted e, PrintWriter out, PrintWriter err) throws IOException {
        double ran = Durations.seconds(e.ran());
        String after = String.format(java.util.Locale.ROOT, "%.1f", ran);
        FleetResult r = e.partial();
        out.print(FleetReport.text(r));
        out.println("verdict: INTERRUPTED (" + Interrupts.what() + " after " + after + " s)");
        out.flush();
        if (json != null) {
            SimulateChecks.write(json, Interrupts.markJson(FleetReport.json(List.of(r), List.of(r.label()), List.of("-")), ran));
            out.println("wrote " + json);
        }
        if (html != null) {
            SimulateChecks.write(HtmlOutput.of(html).index(), Interrupts.markHtml(FleetReport.html("vitals fleet: " + r.label() + " (interrupted)", List.of(r)), ran));
            out.println("wrote " + HtmlOutput.of(html).index());
        }
        out.flush();
        Interrupts.report(err, "fleet stopped after " + after + " s" + (json != null || html != null
                ? "; reports written, marked interrupted" : ""));
        return Interrupts.interruptedExitCode();
    }

    private int ensemble(FleetSpec s, String name, PrintWriter out) throws java.io.IOException {
        FleetEnsemble e = FleetEnsemble.run(s, name, runs, ensembleThreads());
        out.printf(java.util.Locale.ROOT, "%s (model engine): %d replicas, %d runs (seeds %d-%d)%n", name, s.replicas(), runs, s.seed(),
                s.seed() + runs - 1);
        out.print(FleetReport.ensembleTable(List.of(e)));
        out.print(FleetReport.verdicts(e));
        out.flush();
        if (json != null) {
            SimulateChecks.write(json, FleetReport.ensembleJson(List.of(e), List.of(name), List.of("-")));
            out.println("wrote " + json);
        }
        if (html != null) {
            SimulateChecks.write(HtmlOutput.of(html).index(), FleetReport.ensembleHtml("vitals fleet: " + name + ", " + runs + " runs", List.of(e)));
            out.println("wrote " + HtmlOutput.of(html).index());
        }
        out.println(dev.vitals.kubesim.report.VerdictLine.overall(dev.vitals.kubesim.report.VerdictLine.Word.of(e.passed())));
        out.flush();
        return e.passed() ? VitalsCommand.OK : VitalsCommand.FAILED;
    }

    /**
     * {@code --sweep}: every point's spec is built (and validated) first, then the points' ensembles
     * share one pool of threads ({@link FleetSweep}); the reports are {@link SweepReport}'s.
     */
    /** One notice line per ingress-nginx annotation the model does not read, on standard error (not an error). */
    private void ingressNotices(Path... files) {
        PrintWriter err = spec.commandLine().getErr();
        for (Path f : files) {
            if (f != null) {
                FleetSpecReader.ingressNotices(f).forEach(n -> err.println("notice: " + n));
            }
        }
        err.flush();
    }

    private int sweep(PrintWriter out) throws IOException {
        if (model == null || !command.isEmpty()) {
            throw new InvalidInputException("--sweep is for the model engine: vitals fleet FILE --sweep PATH=FROM..TO[:STEPS]"
                    + (model == null ? " (no FILE given)" : " (without a command after --)"));
        }
        if (sweep.size() > 2) {
            throw new InvalidInputException("--sweep: give it once, or twice for a 2-D sweep, was " + sweep.size() + " times");
        }
        for (String o : sweep) {
            String p = o.strip();
            if (manifest != null && p.startsWith("probes.") && !p.startsWith("probes.server")) {
                throw new InvalidInputException("--sweep " + p.replaceAll("=.*", "") + " with --manifest: the manifest's probes replace"
                        + " the file's, so the swept value would not be used; sweep the file's probes without --manifest");
            }
            String[][] clashes = {{"replicas", replicas == null ? null : "--replicas"}, {"duration", duration}, {"seed",
                    seed == null ? null : "--seed"}};
            for (String[] c : clashes) {
                if (c[1] != null && (p.startsWith(c[0] + "=") || p.startsWith(c[0] + " "))) {
                    throw new InvalidInputException("--sweep " + c[0] + " and --" + c[0] + " both set it: drop one");
                }
            }
        }
        int perPoint = runs == null ? 5 : runs;
        if (perPoint < 1 || perPoint > 1000) {
            throw new InvalidInputException("--runs must be 1-1000, was " + perPoint);
        }
        Map<String, Path> outputs = new LinkedHashMap<>();
        outputs.put("--json", json);
        SimulateChecks.checkOutputs(java.util.Arrays.asList(model, manifest), outputs, HtmlOutput.of(html));
        FleetSweep plan = FleetSweep.plan(model, sweep, this::override);
        ingressNotices(model, manifest);
        FleetSweep.Result r;
        try {
            r = plan.run(perPoint, Math.max(1, Runtime.getRuntime().availableProcessors()));
        } catch (IllegalArgumentException e) {
            throw new InvalidInputException(e.getMessage());
        }
        out.print(SweepReport.text(r));
        if (json != null) {
            SimulateChecks.write(json, SweepReport.json(r));
            out.println("wrote " + json);
        }
        if (html != null) {
            SimulateChecks.write(HtmlOutput.of(html).index(), SweepReport.html("vitals fleet: " + model.getFileName() + ", sweep", r));
            out.println("wrote " + HtmlOutput.of(html).index());
        }
        out.flush();
        return VitalsCommand.OK;
    }

    /**
     * A live run from a manifest alone: its probes, no clients (drive load at the printed Service
     * port yourself), 60 s unless --duration, 3 replicas unless --replicas. Probes aimed at the
     * container's first declared port go to PORT, others to PROBE_PORT.
     */
    private FleetSpec manifestOnly() {
        ManifestReader.ContainerEntry entry = ManifestReader.read(manifest).select(Optional.ofNullable(container));
        container(entry);
        PodSpec pod = entry.toPodSpec();
        Optional<Integer> first = pod.ports().values().stream().findFirst();
        boolean isolated = pod.liveness().or(pod::readiness).map(p -> {
            return p.handler().match(g -> {
                ProbeHandler.PortRef port = g.port();
                int n = port.isNamed() ? pod.ports().getOrDefault(port.name().get(), -1) : port.number();
                return first.isPresent() && n != first.get();
            }, t -> false, g -> false, e -> false);
        }).orElse(false);
        FleetSpec.Probes probes = new FleetSpec.Probes(pod.startup(), pod.liveness(), pod.readiness(),
                isolated ? FleetSpec.ProbeServer.ISOLATED : FleetSpec.ProbeServer.APP_POOL, FleetSpec.DependencyRole.NONE,
                FleetSpec.DependencyRole.NONE);
        manifest = null; // the probes are taken: override() must not read it again
        return new FleetSpec(3, java.time.Duration.ofSeconds(60), java.time.Duration.ofMillis(100), 1,
                new FleetSpec.Replica(1, Integer.MAX_VALUE, java.time.Duration.ZERO, java.time.Duration.ZERO,
                        java.time.Duration.ofMillis(1), 1, java.time.Duration.ZERO),
                probes, Optional.empty(), new FleetSpec.Service(java.time.Duration.ofSeconds(1)), List.of(), List.of(), List.of());
    }

    /** The manifest container's resources and environment, for the live engine's replicas. */
    private void container(ManifestReader.ContainerEntry entry) {
        manifestResources = entry.resources();
        declaredEnv = dev.vitals.kubesim.manifest.ContainerProcess.staticEnv(entry.node());
        processEnv = dev.vitals.kubesim.manifest.ContainerProcess.of(entry.node(), SimulateCommand.identity(entry, "127.0.0.1")).env();
    }

    private FleetSpec override(FleetSpec s) {
        try {
            if (replicas != null) {
                int max = command.isEmpty() ? FleetSpec.MAX_REPLICAS : LiveFleet.MAX_REPLICAS;
                if (replicas < 1 || replicas > max) {
                    throw new InvalidInputException("--replicas must be 1-" + max + (command.isEmpty() ? "" : " for the live engine")
                            + ", was " + replicas);
                }
                s = s.withReplicas(replicas);
            }
            if (duration != null) {
                s = s.withDuration(Durations.parse(duration));
            }
            if (!expect.isEmpty()) {
                List<FleetExpectation> all = new ArrayList<>(s.expectations());
                for (String e : expect) {
                    all.add(FleetExpectation.parse(e));
                }
                s = s.withExpectations(all);
            }
            if (seed != null) {
                s = s.withSeed(seed);
            }
            if (manifest != null) {
                ManifestReader.ContainerEntry entry = ManifestReader.read(manifest).select(Optional.ofNullable(container));
                container(entry);
                PodSpec pod = entry.toPodSpec();
                FleetSpec.Probes p = s.probes();
                s = new FleetSpec(s.replicas(), s.duration(), s.step(), s.seed(), s.replica(),
                        new FleetSpec.Probes(pod.startup(), pod.liveness(), pod.readiness(), p.server(), p.livenessDependency(),
                                p.readinessDependency()),
                        s.dependency(), s.service(), s.clients(), s.actions(), s.expectations(), s.rollout(), s.background());
                s = dev.vitals.kubesim.fleet.FleetSpecReader.withManifestRouting(s, manifest); // its Service and Ingress, if any
            } else if (container != null && model != null) {
                throw new InvalidInputException("--container needs --manifest");
            }
            for (FleetSpec.Kill a : s.actions()) {
                if (a.at().compareTo(s.duration()) >= 0) { // it would never run (issue 30), as in simulate's scenarios
                    throw new InvalidInputException("actions: the kill of replica " + a.replica() + " at " + a.at().toSeconds()
                            + "s is at or after the end of the " + s.duration().toSeconds() + "s run and would never run;"
                            + " lengthen the run (duration, --duration) or move the action");
                }
            }
            if (!command.isEmpty() && s.replicas() > LiveFleet.MAX_REPLICAS) {
                throw new InvalidInputException("the live engine runs 1-" + LiveFleet.MAX_REPLICAS + " replicas, the model asks for "
                        + s.replicas() + " (use --replicas)");
            }
            return s;
        } catch (InvalidInputException e) {
            throw e;
        } catch (IllegalArgumentException e) {
            throw new InvalidInputException(e.getMessage());
        }
    }
}
