package dev.vitals.kubesim.cli;


import dev.vitals.kubesim.model.Durations;
import dev.vitals.kubesim.fault.FaultProxy;
import dev.vitals.kubesim.InvalidInputException;
import dev.vitals.kubesim.model.KubeletOptions;
import dev.vitals.kubesim.manifest.ManifestReader;
import dev.vitals.kubesim.model.PodSpec;
import dev.vitals.kubesim.model.PortResolver;
import dev.vitals.kubesim.manifest.ProbeFlags;
import dev.vitals.kubesim.model.ProbeSpec;
import dev.vitals.kubesim.model.ProbeType;
import dev.vitals.kubesim.report.Reports;
import dev.vitals.kubesim.model.RestartPolicy;
import dev.vitals.kubesim.scenario.Scenario;
import dev.vitals.kubesim.model.SimEvent;
import dev.vitals.kubesim.Simulation;
import dev.vitals.kubesim.SimulationResult;
import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code vitals simulate}: run the target under kubelet's probe rules and report. */
@Command(name = "simulate", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Run CMD as a container and probe it exactly as the kubelet would.",
            "Covers startup gating, thresholds, kills (SIGTERM, SIGKILL after the grace period), CrashLoopBackOff, Ready condition.",
            "Probes come from a manifest (--manifest, --container) or from flags; flags override the manifest.",
            "Exit code: 0 when every scenario expectation holds, 1 when one fails, 2 on bad input."},
        footer = {"", "Probe flags: HANDLER[,field=value]...  HANDLER is http://[HOST]:PORT/PATH, https://…,",
            "tcp://[HOST]:PORT, grpc://:PORT[/SERVICE] or exec:COMMAND ARGS; fields are kubelet's names",
            "(initialDelaySeconds periodSeconds timeoutSeconds successThreshold failureThreshold",
            "terminationGracePeriodSeconds) plus header=Name:Value.",
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

    @Option(names = "--html", paramLabel = "FILE", description = "write the HTML report with an SVG timeline")
    Path html;

    @Option(names = "--pod-ip", paramLabel = "ADDR", defaultValue = "127.0.0.1", description = "address standing in for the pod IP (default ${DEFAULT-VALUE})")
    String podIp;

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

    @Option(names = {"-q", "--quiet"}, description = "no timeline, only the summary")
    boolean quiet;

    @Parameters(paramLabel = "CMD", description = "the target command and its arguments, after --")
    List<String> command = new ArrayList<>();

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    /**
     * Builds the pod model from the manifest and/or flags.
     *
     * @return the pod
     * @throws InvalidInputException on any problem
     */
    PodSpec pod() {
        PodSpec base;
        if (manifest != null) {
            base = ManifestReader.read(manifest).select(Optional.ofNullable(container)).toPodSpec();
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
        ports.putAll(portNames);
        Optional<ProbeSpec> s = flag(ProbeType.STARTUP, startup).or(base::startup);
        Optional<ProbeSpec> l = flag(ProbeType.LIVENESS, liveness).or(base::liveness);
        Optional<ProbeSpec> r = flag(ProbeType.READINESS, readiness).or(base::readiness);
        for (Optional<ProbeSpec> p : List.of(s, l, r)) {
            p.ifPresent(x -> checkNamedPort(x, ports));
        }
        RestartPolicy rp = restartPolicy == null ? base.restartPolicy() : RestartPolicy.parse(restartPolicy);
        long g = grace == null ? base.terminationGracePeriodSeconds() : grace;
        if (g < 0) {
            throw new InvalidInputException("--termination-grace-period must be ≥ 0, was " + g);
        }
        return new PodSpec(base.containerName(), ports, s, l, r, rp, g);
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

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        PodSpec pod = pod();
        Scenario scenario = scenarioFile == null ? Scenario.empty() : Scenario.read(scenarioFile);
        if (command.isEmpty()) {
            throw new InvalidInputException("no target command: put it after '--', e.g. vitals simulate ... -- java -jar app.jar");
        }
        KubeletOptions opts;
        try {
            opts = KubeletOptions.builder().podIp(podIp).kubeletVersion(kubeletVersion)
                    .initialBackoff(Durations.parse(initialBackoff)).maxBackoff(Durations.parse(maxBackoff))
                    .resetCountersPerInstance(resetCounters).build();
        } catch (IllegalArgumentException e) {
            throw new InvalidInputException(e.getMessage());
        }
        Simulation.Builder b = Simulation.builder(pod).command(command).scenario(scenario).options(opts)
                .output(output());
        if (duration != null) {
            b.duration(Durations.parse(duration));
        }
        for (String p : proxies) {
            b.proxy(FaultProxy.Spec.parse(p));
        }
        boolean tty = System.console() != null && !quiet;
        long[] startNanos = {System.nanoTime()};
        Object lock = new Object();
        boolean[] readyNow = {false};
        int[] restartsNow = {0};
        b.listener(e -> {
            synchronized (lock) {
                if (e.type() == SimEvent.Type.READY || e.type() == SimEvent.Type.NOT_READY) {
                    readyNow[0] = e.type() == SimEvent.Type.READY;
                }
                if (e.type() == SimEvent.Type.START && e.instance() > 1) {
                    restartsNow[0]++;
                }
                if (!quiet) {
                    if (tty) {
                        err.print("\r\033[K");
                        err.flush();
                    }
                    out.println(Reports.line(e));
                    out.flush();
                }
            }
        });
        Simulation sim = b.build();
        out.println("vitals simulate: container '" + pod.containerName() + "' for " + Durations.seconds(sim.duration())
                + "s: " + String.join(" ", command));
        for (ProbeType t : ProbeType.values()) {
            pod.probe(t).ifPresent(p -> out.println("  " + t.label() + ": " + p.describe()));
        }
        out.println(String.format(Locale.ROOT, "  restartPolicy %s, terminationGracePeriodSeconds %d",
                pod.restartPolicy(), pod.terminationGracePeriodSeconds()));
        out.flush();
        ScheduledExecutorService progress = null;
        if (tty) {
            progress = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "vitals-kubesim-progress");
                t.setDaemon(true);
                return t;
            });
            double total = Durations.seconds(sim.duration());
            progress.scheduleAtFixedRate(() -> {
                synchronized (lock) {
                    double t = (System.nanoTime() - startNanos[0]) / 1e9;
                    int w = 30;
                    int done = (int) Math.min(w, t / total * w);
                    err.print(String.format(Locale.ROOT, "\r\033[K[%s%s] %5.1fs/%.0fs  %s  restarts %d", "=".repeat(done),
                            " ".repeat(w - done), Math.min(t, total), total, readyNow[0] ? "READY" : "not ready", restartsNow[0]));
                    err.flush();
                }
            }, 500, 500, TimeUnit.MILLISECONDS);
        }
        startNanos[0] = System.nanoTime();
        SimulationResult result;
        try {
            result = sim.run();
        } finally {
            if (progress != null) {
                progress.shutdownNow();
                synchronized (lock) {
                    err.print("\r\033[K");
                    err.flush();
                }
            }
        }
        out.println();
        out.print(Reports.summary(result, pod));
        out.flush();
        write(json, Reports.json(result, pod), out);
        write(html, Reports.html(result, pod), out);
        return result.passed() ? VitalsCommand.OK : VitalsCommand.FAILED;
    }

    private ProcessBuilder.Redirect output() {
        switch (appOutput) {
            case "discard":
                return ProcessBuilder.Redirect.DISCARD;
            case "inherit":
                return ProcessBuilder.Redirect.INHERIT;
            default:
                return ProcessBuilder.Redirect.appendTo(new File(appOutput));
        }
    }

    private static void write(Path file, String text, PrintWriter out) throws IOException {
        if (file != null) {
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            Files.writeString(file, text, StandardCharsets.UTF_8);
            out.println("wrote " + file);
            out.flush();
        }
    }
}
