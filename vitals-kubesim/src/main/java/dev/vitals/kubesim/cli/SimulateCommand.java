package dev.vitals.kubesim.cli;


import dev.vitals.kubesim.Simulation;
import dev.vitals.kubesim.fault.FaultProxy;
import dev.vitals.kubesim.input.InvalidInputException;
import dev.vitals.kubesim.manifest.ContainerProcess;
import dev.vitals.kubesim.manifest.ManifestReader;
import dev.vitals.kubesim.manifest.ProbeFlags;
import dev.vitals.kubesim.model.Durations;
import dev.vitals.kubesim.model.KubeletOptions;
import dev.vitals.kubesim.model.KubernetesVersion;
import dev.vitals.kubesim.model.PodSpec;
import dev.vitals.kubesim.model.PortResolver;
import dev.vitals.kubesim.model.ProbeSpec;
import dev.vitals.kubesim.model.ProbeType;
import dev.vitals.kubesim.model.Resources;
import dev.vitals.kubesim.model.RestartPolicy;
import dev.vitals.kubesim.model.SimEvent;
import dev.vitals.kubesim.report.Headroom;
import dev.vitals.kubesim.report.Reports;
import dev.vitals.kubesim.report.Verdict;
import dev.vitals.kubesim.report.VerdictLine;
import dev.vitals.kubesim.result.Expectation;
import dev.vitals.kubesim.result.SimulationResult;
import dev.vitals.kubesim.runtime.ResourceLimits;
import dev.vitals.kubesim.scenario.Scenario;
import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code vitals simulate}: run the target under kubelet's probe rules and report. */
@Command(name = "simulate", mixinStandardHelpOptions = true, sortOptions = false, usageHelpAutoWidth = true,
        description = {"Run CMD as a container and probe it exactly as the kubelet would: startup gating, thresholds, kills"
                + " (SIGTERM, SIGKILL after the grace period), CrashLoopBackOff, the Ready condition.",
            "",
            "Probes come from a manifest (--manifest, --container) or from flags; flags override the manifest. With a"
                    + " manifest the container's env reaches the process ($(VAR) expanded as the kubelet does; secrets,"
                    + " config maps and envFrom are named as not available), and its command/args replace or extend CMD as"
                    + " Kubernetes does with an image (CMD stands for the image); the header shows the command line that runs.",
            "",
            "Every run is judged: by the scenario's expect lines and --expect, else by default expectations (no kill by a"
                    + " probe, Ready at least once, Ready to the end). A headroom block shows how close each probe came to"
                    + " failing. Exit code: 0 when every expectation holds, 1 when one fails, 2 on bad input (found before"
                    + " the run)."},
        footer = {"",
            "Probe flags: HANDLER[,field=value]... where HANDLER is http://[HOST]:PORT/PATH, https://..., tcp://[HOST]:PORT,"
                    + " grpc://:PORT[/SERVICE] or exec:COMMAND ARGS; fields are kubelet's names (initialDelaySeconds"
                    + " periodSeconds timeoutSeconds successThreshold failureThreshold terminationGracePeriodSeconds) plus"
                    + " header=Name:Value.",
            "",
            "Example: vitals simulate --liveness http://:8080/livez,periodSeconds=1 --duration 20s -- java -jar app.jar"})
final class SimulateCommand implements Callable<Integer> {
    @Option(names = "--manifest", paramLabel = "FILE", description = "Kubernetes manifest (Pod, Deployment, StatefulSet, DaemonSet, ReplicaSet, Job, CronJob; multi-document)")
    Path manifest;

    @Option(names = "--container", paramLabel = "NAME", description = "container to simulate (needed when the manifest has several)")
    String container;

    @Option(names = "--startup", paramLabel = "SPEC", description = "startup probe from flags")
    String startup;

    @Option(names = "--liveness", paramLabel = "SPEC", description = "liveness probe from flags")
    String liveness;

    @Option(names = "--readiness", paramLabel = "SPEC", description = "readiness probe from flags")
    String readiness;

    @Option(names = "--port-name", paramLabel = "NAME=PORT", description = "container port name for named probe ports (repeatable)")
    Map<String, Integer> portNames = new LinkedHashMap<>();

    @Option(names = "--restart-policy", paramLabel = "POLICY", description = "Always (default), OnFailure or Never")
    String restartPolicy;

    @Option(names = "--termination-grace-period", paramLabel = "SECONDS", description = "pod terminationGracePeriodSeconds (default: manifest's, else 30)")
    Long grace;

    @Option(names = "--scenario", paramLabel = "FILE", description = "scenario YAML: proxies, timed actions, expectations")
    Path scenarioFile;

    @Option(names = "--proxy", paramLabel = "NAME=LISTEN_PORT:HOST:PORT", description = "fault proxy in front of a dependency (repeatable)")
    List<String> proxies = new ArrayList<>();

    @Option(names = "--duration", paramLabel = "TIME", description = "how long to simulate (default: the scenario's, else 60s)")
    String duration;

    @Option(names = "--json", paramLabel = "FILE", description = "write the JSON report")
    Path json;

    @Option(names = "--html", paramLabel = "PATH", description = "write the HTML report with an SVG timeline: PATH ending in .html is the page, else a directory (made if missing) for index.html")
    Path html;

    @Option(names = "--pod-ip", paramLabel = "ADDR", defaultValue = "127.0.0.1", description = "address standing in for the pod IP (default ${DEFAULT-VALUE})")
    String podIp;

    @Option(names = "--cpu-limit", paramLabel = "QUANTITY",
            description = "CPU limit (e.g. 500m, 1): a CFS quota on the container's cgroup (overrides the manifest's limits.cpu)")
    String cpuLimit;

    @Option(names = "--cpu-request", paramLabel = "QUANTITY",
            description = "CPU request (e.g. 250m): the cgroup's cpu.shares / cpu.weight (default: the limit)")
    String cpuRequest;

    @Option(names = "--memory-limit", paramLabel = "QUANTITY",
            description = "memory limit (e.g. 512Mi): the cgroup's memory limit; going past it is an OOMKill (exit 137)")
    String memoryLimit;

    @Option(names = "--kubernetes-version", paramLabel = "1.N",
            description = "the Kubernetes release to model, 1.29-1.37 (default: the newest the spec covers, 1.37, with its documented"
                    + " rules): before 1.35 a container's restartPolicy/restartPolicyRules are dropped and a kubelet restart resets"
                    + " Started/Ready; naming 1.35-1.37 also models their known regression kubernetes#141155 (a restarted container"
                    + " inherits Started: liveness is not gated by the startup probe)")
    String kubernetesVersion;

    @Option(names = "--kubelet-version", paramLabel = "X.Y", defaultValue = "1.36", description = "version in User-Agent kube-probe/X.Y (default ${DEFAULT-VALUE})")
    String kubeletVersion;

    @Option(names = "--initial-backoff", paramLabel = "TIME", defaultValue = "10s", description = "first CrashLoopBackOff wait (default ${DEFAULT-VALUE})")
    String initialBackoff;

    @Option(names = "--max-backoff", paramLabel = "TIME", defaultValue = "300s", description = "CrashLoopBackOff cap (default ${DEFAULT-VALUE})")
    String maxBackoff;

    @Option(names = "--reset-counters-per-instance", description = "[CB] behaviour: fresh counters for each container instance (R28)")
    boolean resetCounters;

    @Option(names = "--app-output", paramLabel = "discard|inherit|FILE", defaultValue = "discard", description = "where the target's output goes (default ${DEFAULT-VALUE})")
    String appOutput;

    @Option(names = "--expect", paramLabel = "EXPECTATION",
            description = "an expectation checked at the end, as in a scenario's expect list, e.g. 'restarts == 0' (repeatable)")
    List<String> expect = new ArrayList<>();

    @Option(names = "--no-manifest-command",
            description = "run the command after -- even when the manifest's container sets command/args")
    boolean noManifestCommand;

    @Option(names = {"-q", "--quiet"}, description = "no timeline, only the summary")
    boolean quiet;

    @Parameters(paramLabel = "CMD", description = "the target command and its arguments, after --")
    List<String> command = new ArrayList<>();

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    /** The manifest's container, when --manifest is given (set by {@link #pod()}). */
    private ManifestReader.ContainerEntry entry;

    /** Longest simulated time accepted (a longer run is a typo, and would run for days). */
    static final java.time.Duration MAX_DURATION = java.time.Duration.ofHours(24);

    /**
     * Builds the pod model from the manifest and/or flags.
     *
     * @return the pod
     * @throws InvalidInputException on any problem
     */
    PodSpec pod() {
        PodSpec base;
        if (manifest != null) {
            entry = ManifestReader.read(manifest).select(Optional.ofNullable(container));
            base = entry.toPodSpec();
        } else {
            if (container != null) {
                throw new InvalidInputException("--container needs --manifest");
            }
            if (startup == null && liveness == null && readiness == null) {
                throw new InvalidInputException("no probes: give --manifest FILE or at least one of --startup, --liveness, --readiness");
            }
            base = PodSpec.of("app", Map.of(), Optional.empty(), Optional.empty(), Optional.empty());
        }
        Map<String, Integer> ports = new LinkedHashMap<>(base.ports());
        portNames.forEach(SimulateCommand::checkPortName);
        ports.putAll(portNames);
        Optional<ProbeSpec> s = flag(ProbeType.STARTUP, startup).or(base::startup);
        Optional<ProbeSpec> l = flag(ProbeType.LIVENESS, liveness).or(base::liveness);
        Optional<ProbeSpec> r = flag(ProbeType.READINESS, readiness).or(base::readiness);
        for (Optional<ProbeSpec> p : List.of(s, l, r)) {
            p.ifPresent(x -> checkNamedPort(x, ports));
        }
        RestartPolicy rp = restartPolicy == null ? base.restartPolicy() : RestartPolicy.parse(restartPolicy);
        long g = grace == null ? base.terminationGracePeriodSeconds() : grace;
        if (grace != null && (grace < 0 || grace > MAX_DURATION.toSeconds())) {
            // the API server takes any int64 ≥ 0 and the kubelet raises less than 2 s to 2 (R44); a grace
            // longer than the longest run never ends in it, so a larger value is a typo, as for --duration
            throw new InvalidInputException("--termination-grace-period must be 0-" + MAX_DURATION.toSeconds()
                    + " seconds (at most " + MAX_DURATION.toHours() + "h, the longest run), was " + grace);
        }
        if (grace != null) { // the override meets the API server's rules as the manifest's value did
            base.lifecycle().checkGrace("--termination-grace-period " + grace + ": lifecycle", g);
        }
        return new PodSpec(base.containerName(), ports, s, l, r, rp, g, base.env(), base.containerRestart(), base.lifecycle());
    }

    /** A --port-name entry as the API server takes a container port (IANA_SVC_NAME, 1-65535): "=1" is not one. */
    private static void checkPortName(String name, Integer port) {
        if (!name.matches("[a-z0-9]([a-z0-9-]*[a-z0-9])?") || name.length() > 15 || !name.matches(".*[a-z].*")) {
            throw new InvalidInputException("--port-name '" + name + "=" + port + "': the name must be 1-15 lowercase letters,"
                    + " digits and '-', with a letter, as a container port's name");
        }
        if (port == null || port < 1 || port > 65535) {
            throw new InvalidInputException("--port-name '" + name + "=" + port + "': the port must be 1-65535");
        }
    }

    private static void checkNamedPort(ProbeSpec p, Map<String, Integer> ports) {
        PortResolver.unknownPortName(p.handler(), ports).ifPresent(name -> {
            throw new InvalidInputException(p.type().fieldName() + ": port name '" + name
                    + "' matches no container port (known: " + (ports.isEmpty() ? "none" : String.join(", ", ports.keySet()))
                    + "); kubelet would error on every tick and never act on this probe (R22, G4). Add it to the"
                    + " container's ports or pass --port-name " + name + "=PORT");
        });
    }

    private Optional<ProbeSpec> flag(ProbeType t, String text) {
        return text == null ? Optional.empty() : Optional.of(ProbeFlags.parse(t, text).build());
    }

    /**
     * What the flags and files ask for, checked before anything starts.
     *
     * @param pod the pod as it runs (env from the manifest, restart rules as the version keeps them)
     * @param scenario the scenario, or the empty one
     * @param extra the --expect expectations
     * @param runFor how long to simulate
     * @param process the manifest container's command and env (none without a manifest)
     * @param effective the command line that runs
     * @param version the Kubernetes release modelled
     * @param droppedRestart whether the version drops the container's restart rules
     * @param options the kubelet's options
     * @param resources the container's resources, overrides applied
     * @param limits the cgroup limits that apply them
     */
    private record Plan(PodSpec pod, Scenario scenario, List<Expectation> extra, Duration runFor, ContainerProcess process,
            List<String> effective, KubernetesVersion version, boolean droppedRestart, KubeletOptions options,
            Resources resources, ResourceLimits limits) {
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Plan plan = plan();
        SimulateProgress progress = new SimulateProgress(out, err, quiet, System.console() != null && !quiet);
        Simulation sim = build(plan, progress);
        header(plan, sim, out, err);
        SimulationResult result;
        try {
            result = run(sim, progress);
        } catch (Simulation.Interrupted e) { // a signal: report what was measured, marked interrupted
            return interrupted(e, plan.pod(), plan.effective(), out, err);
        }
        return report(plan, result, out);
    }

    /**
     * Reads and checks every input, in the order a user meets them (the first problem is the one told).
     *
     * @throws InvalidInputException on any problem
     */
    private Plan plan() {
        PodSpec base = pod();
        Scenario scenario = scenarioFile == null ? Scenario.empty() : Scenario.read(scenarioFile);
        List<Expectation> extra = new ArrayList<>();
        for (String e : expect) {
            extra.add(Expectation.parse(e));
        }
        SimulateChecks.checkPodIp(podIp);
        Duration initial = SimulateChecks.positive("--initial-backoff", initialBackoff, MAX_DURATION);
        Duration max = SimulateChecks.positive("--max-backoff", maxBackoff, MAX_DURATION);
        if (max.compareTo(initial) < 0) {
            throw new InvalidInputException("--max-backoff must be at least --initial-backoff (" + initialBackoff + "), was "
                    + maxBackoff);
        }
        Duration runFor = runFor(scenario);
        ContainerProcess process = entry == null
                ? new ContainerProcess(Map.of(), List.of(), Optional.empty(), Optional.empty())
                : ContainerProcess.of(entry.node(), identity());
        KubernetesVersion version = kubernetesVersion == null ? KubernetesVersion.NEWEST : KubernetesVersion.parse(kubernetesVersion);
        boolean droppedRestart = !version.containerRestartRules() && base.containerRestart().policy().isPresent();
        // exec probes expand $(VAR) from the container's literal env, as the kubelet does (R68)
        PodSpec withEnv = entry != null && base.env().isEmpty() ? base.withEnv(ContainerProcess.staticEnv(entry.node())) : base;
        // before 1.35 the API server drops a container's restartPolicy/restartPolicyRules (gate off)
        PodSpec pod = droppedRestart ? withEnv.withContainerRestart(dev.vitals.kubesim.model.ContainerRestart.NONE) : withEnv;
        List<String> effective = effectiveCommand(process);
        checkOutputs();
        KubeletOptions opts = options(version, initial, max);
        Resources resources = (entry == null ? Resources.NONE : entry.resources()).override(cpuLimit, cpuRequest, memoryLimit);
        return new Plan(pod, scenario, extra, runFor, process, effective, version, droppedRestart, opts, resources,
                ResourceLimits.of(resources));
    }

    /** --duration, else the scenario's, else 60 s; every action of the scenario must fall inside it (issue 30). */
    private Duration runFor(Scenario scenario) {
        Duration runFor = duration != null ? SimulateChecks.positive("--duration", duration, MAX_DURATION)
                : scenario.duration().orElse(Duration.ofSeconds(60));
        if (runFor.isZero() || runFor.isNegative() || runFor.compareTo(MAX_DURATION) > 0) {
            throw new InvalidInputException(scenarioFile + ": duration must be more than 0 and at most 24h, was "
                    + Expectation.fmt(Durations.seconds(runFor)) + "s");
        }
        for (Scenario.Step a : scenario.actions()) {
            if (a.at().compareTo(runFor) >= 0) { // it would never run (issue 30)
                throw new InvalidInputException((scenarioFile == null ? "scenario" : scenarioFile.toString()) + ": an action at "
                        + Expectation.fmt(Durations.seconds(a.at())) + "s is at or after the end of the "
                        + Expectation.fmt(Durations.seconds(runFor)) + "s run and would never run;"
                        + " lengthen the run (duration, --duration) or move the action");
            }
        }
        return runFor;
    }

    /** The command after --, or the manifest's command/args applied to it; its program must be runnable. */
    private List<String> effectiveCommand(ContainerProcess process) {
        List<String> effective = noManifestCommand ? command : process.effectiveCommand(command);
        if (effective.isEmpty()) {
            throw new InvalidInputException("no target command: put it after '--', e.g. vitals simulate ... -- java -jar app.jar");
        }
        try {
            SimulateChecks.checkExecutable(effective.get(0));
        } catch (InvalidInputException e) {
            if (!noManifestCommand && process.command().isPresent()) {
                throw new InvalidInputException(e.getMessage() + " (it is the manifest's command, which replaces the"
                        + " command after --; pass --no-manifest-command to run yours)");
            }
            throw e;
        }
        return effective;
    }

    /** The files written (reports, the app's output) are writable and none of them is an input. */
    private void checkOutputs() {
        Map<String, Path> outputs = new LinkedHashMap<>();
        outputs.put("--json", json);
        outputs.put("--app-output", List.of("discard", "inherit").contains(appOutput) ? null : Path.of(appOutput));
        SimulateChecks.checkOutputs(java.util.Arrays.asList(manifest, scenarioFile), outputs, HtmlOutput.of(html));
    }

    private KubeletOptions options(KubernetesVersion version, Duration initial, Duration max) {
        try {
            return KubeletOptions.builder().podIp(podIp).kubeletVersion(kubeletVersion)
                    .keepStatusOnKubeletRestart(version.keepsStatusOnKubeletRestart())
                    // a named release as shipped: its known regression; the default, the documented rules
                    .startedInheritedOnContainerRestart(version.startupGatingRegression())
                    .initialBackoff(initial).maxBackoff(max).resetCountersPerInstance(resetCounters).build();
        } catch (IllegalArgumentException e) {
            throw new InvalidInputException(e.getMessage());
        }
    }

    private Simulation build(Plan plan, SimulateProgress progress) {
        Simulation.Builder b = Simulation.builder(plan.pod()).command(plan.effective()).scenario(plan.scenario())
                .options(plan.options()).output(output()).environment(plan.process().env()).limits(plan.limits());
        b.duration(plan.runFor());
        for (String p : proxies) {
            b.proxy(FaultProxy.Spec.parse(p));
        }
        return b.listener(progress).build();
    }

    /** The header: what runs, where its command and env come from, the probes, the restart rules, the resources. */
    private void header(Plan plan, Simulation sim, PrintWriter out, PrintWriter err) {
        PodSpec pod = plan.pod();
        ContainerProcess process = plan.process();
        out.println("vitals simulate: container '" + pod.containerName() + "' for " + Durations.seconds(sim.duration())
                + "s: " + String.join(" ", plan.effective()));
        if (entry != null) {
            out.println("  command: " + (noManifestCommand ? "the command after -- (--no-manifest-command)" : process.origin()));
            if (!process.env().isEmpty()) {
                out.println("  env: " + String.join(", ", process.env().keySet()));
            }
            if (!process.unavailable().isEmpty()) {
                out.println("  env not available in a simulation (not passed): " + String.join(", ", process.unavailable()));
            }
        }
        for (ProbeType t : ProbeType.values()) {
            pod.probe(t).ifPresent(p -> out.println("  " + t.label() + ": " + SimulateChecks.describe(p, pod.ports())));
        }
        out.println(String.format(Locale.ROOT, "  restartPolicy %s, terminationGracePeriodSeconds %d%s",
                pod.restartPolicy(), pod.terminationGracePeriodSeconds(), pod.containerRestart().policy().isEmpty() ? ""
                        : "; " + pod.containerRestart().describe() + " (overrides the pod's, KEP-5307)"));
        if (plan.droppedRestart()) {
            out.println("  the container's restartPolicy/restartPolicyRules: dropped in Kubernetes " + plan.version()
                    + " (gate ContainerRestartRules off before 1.35); the pod's restartPolicy decides");
        }
        if (!plan.resources().isEmpty()) {
            out.println("  resources: " + plan.resources().describe() + ": " + plan.limits().status());
            if (!plan.limits().applied()) {
                err.println("vitals simulate: " + plan.limits().status() + " (the run goes on without them)");
                err.flush();
            }
        }
        out.flush();
    }

    /**
     * Runs the simulation with the progress shown.
     *
     * @throws Simulation.Interrupted on a signal, the interrupt flag cleared
     * @throws InterruptedException when interrupted otherwise
     * @throws InvalidInputException when the run cannot start
     */
    private static SimulationResult run(Simulation sim, SimulateProgress progress) throws InterruptedException {
        progress.start(Durations.seconds(sim.duration()));
        try {
            return sim.run();
        } catch (Simulation.Interrupted e) {
            Thread.interrupted();
            throw e;
        } catch (IllegalStateException e) {
            throw new InvalidInputException("cannot start the run: " + SimulateChecks.reason(e));
        } finally {
            progress.stop();
        }
    }

    /** The summary, the verdict of every expectation (the defaults when none is given), headroom and the reports. */
    private int report(Plan plan, SimulationResult result, PrintWriter out) throws IOException {
        PodSpec pod = plan.pod();
        out.println();
        out.print(Reports.summary(result, pod));
        for (SimEvent e : result.events()) {
            if (e.type() == SimEvent.Type.ACTION && e.detail().startsWith("load ended with the run")) {
                out.println("  " + e.detail());
            }
        }
        List<Expectation.Check> checks = new ArrayList<>();
        for (Expectation e : plan.extra()) {
            checks.add(e.check(result));
        }
        for (Expectation.Check c : checks) {
            out.println("  " + VerdictLine.of(c, "--expect"));
        }
        List<Expectation.Check> defaults = List.of();
        Scenario scenario = plan.scenario();
        if (scenario.expectations().isEmpty() && plan.extra().isEmpty()) {
            double firstAction = scenario.actions().isEmpty() ? -1 : Durations.seconds(scenario.actions().get(0).at());
            defaults = Verdict.defaults(result, firstAction);
            out.print(Verdict.text(defaults));
        }
        Headroom headroom = Headroom.of(result, pod);
        out.print(headroom.text());
        boolean passed = result.passed() && checks.stream().allMatch(Expectation.Check::passed)
                && defaults.stream().allMatch(Expectation.Check::passed);
        out.println(VerdictLine.overall(VerdictLine.Word.of(passed)));
        out.flush();
        write(json, SimulateChecks.json(Reports.json(result, pod), checks, defaults, headroom, passed, plan.effective()), out);
        write(htmlPage(), Reports.html(result, pod, new Reports.Judged(checks, defaults, VerdictLine.Word.of(passed))), out);
        return passed ? VitalsCommand.OK : VitalsCommand.FAILED;
    }

    /**
     * The run was stopped by a signal: the summary and the reports asked for, from what was
     * measured, marked interrupted (no verdict: expectations speak of the whole run).
     */
    private int interrupted(Simulation.Interrupted e, PodSpec pod, List<String> effective, PrintWriter out, PrintWriter err)
            throws IOException {
        double ran = Durations.seconds(e.ran());
        SimulationResult result = e.partial();
        out.println();
        out.print(Reports.summary(result, pod));
        out.println("verdict: INTERRUPTED (" + Interrupts.what() + " after " + String.format(Locale.ROOT, "%.1f", ran) + " s)");
        out.flush();
        dev.vitals.kubesim.report.Headroom headroom = dev.vitals.kubesim.report.Headroom.of(result, pod);
        if (json != null) {
            write(json, Interrupts.markJson(SimulateChecks.json(Reports.json(result, pod), List.of(), List.of(), headroom, false,
                    effective), ran), out);
        }
        if (html != null) {
            write(htmlPage(), Interrupts.markHtml(Reports.html(result, pod), ran), out);
        }
        Interrupts.report(err, "simulate stopped after " + String.format(Locale.ROOT, "%.1f", ran) + " s"
                + (json != null || html != null ? "; reports written, marked interrupted" : ""));
        return Interrupts.interruptedExitCode();
    }

    private ProcessBuilder.Redirect output() {
        switch (appOutput) {
            case "discard":
                return ProcessBuilder.Redirect.DISCARD;
            case "inherit":
                return ProcessBuilder.Redirect.INHERIT;
            default: // checked with the other outputs
                return ProcessBuilder.Redirect.appendTo(new File(appOutput));
        }
    }

    private dev.vitals.kubesim.manifest.ContainerProcess.PodIdentity identity() {
        return identity(entry, podIp);
    }

    /**
     * @param entry the manifest's container
     * @param podIp the pod's address
     * @return the pod's identity for {@code fieldRef}s: {@code <workload>-kubesim-0} in {@code default}
     */
    static dev.vitals.kubesim.manifest.ContainerProcess.PodIdentity identity(dev.vitals.kubesim.manifest.ManifestReader.ContainerEntry entry,
            String podIp) {
        String workload = entry.workload();
        String name = workload.substring(workload.indexOf('/') + 1).toLowerCase(Locale.ROOT) + "-kubesim-0";
        return new dev.vitals.kubesim.manifest.ContainerProcess.PodIdentity(name, "default", podIp, Map.of(), Map.of(),
                entry.podSpec().path("serviceAccountName").asText("default"));
    }

    /** @return the page {@code --html} names (docs/simulator.md: a .html path, else DIR/index.html), or null */
    private Path htmlPage() {
        return html == null ? null : HtmlOutput.of(html).index();
    }

    private static void write(Path file, String text, PrintWriter out) {
        if (file != null) {
            SimulateChecks.write(file, text);
            out.println("wrote " + file);
            out.flush();
        }
    }
}
