package dev.vitals.bench.suite;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The soak and flood run ({@code tools/soak}, issue 30): the demo (Vitals wiring, on-demand
 * readiness checks slower than the probe budget, gRPC health and metrics ports) under application
 * load and hostile traffic on every port for {@code --duration}, probed kubelet-like on every
 * probe path, its threads, descriptors, RSS and log sampled; prints a table and exits 0 when every
 * path answered within its budget plus the margin and every resource stayed flat, 1 otherwise
 * (or when the demo could not run), 2 for bad usage. See docs/benchmarks.md, "Soak and flood".
 *
 * <p>Kills only the demo it started, by PID, on every way out (Ctrl-C and SIGTERM included:
 * {@link ChildJvm}'s shutdown hook).
 */
@Command(name = "tools/soak", mixinStandardHelpOptions = true, sortOptions = false, usageHelpWidth = 110,
        description = {"Runs the demo under application load and hostile traffic on every port, probes every probe path",
                "as a kubelet would, samples threads, descriptors, RSS and log bytes; prints worst/p99 per path and a",
                "flat verdict per resource. Exit 0 when all pass, 1 otherwise, 2 for bad usage."})
public final class SoakRun implements Callable<Integer> {
    /** The probe server's default {@code probeBudget} (vitals-server ProbeServer), which the demo keeps. */
    static final Duration PROBE_BUDGET = Duration.ofMillis(800);
    /** The probes' own timeout: long enough to see how late a late answer is (a kubelet gives up at timeoutSeconds). */
    static final Duration MEASURE_TIMEOUT = Duration.ofSeconds(5);

    @Option(names = "--duration", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "How long the load runs after the demo is ready: 90s, 10m, 1h (default: 10m).")
    Duration duration;

    @Option(names = "--short", description = "The CI form: --duration 2m.")
    boolean shortForm;

    @Option(names = "--cycle", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "Length of one cycle, from the demo's start: quiet sample and flood at its start, burst in its middle third (default: 30s).")
    Duration cycle = Duration.ofSeconds(30);

    @Option(names = "--warm-up", paramLabel = "DURATION", converter = DurationConverter.class,
            description = {"Resources: quiet samples before this are not compared (thread pools, JIT code and heap settle; default: a third",
                    "of the duration, at most 60s). Probes are judged from the demo's ready line regardless (see --probe-warm-up)."})
    Duration warmUp;

    @Option(names = "--probe-warm-up", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "Probes that start before this are reported apart, not judged (default: 0s, every probe from the demo's ready line is judged).")
    Duration probeWarmUp = Duration.ZERO;

    @Option(names = "--period", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "Probe period per path, kubelet's periodSeconds (default: 1s).")
    Duration period = Duration.ofSeconds(1);

    @Option(names = "--margin-ms", paramLabel = "MS",
            description = "Allowed above a path's budget (default: 200, the kubelet's default timeoutSeconds 1 s minus the 800 ms probe budget).")
    long marginMs = 200;

    @Option(names = "--check-mode", paramLabel = "on-demand|scheduled",
            description = "Mode of the demo's synthetic readiness checks (default: on-demand: probes wait for them up to the probe budget).")
    String checkMode = "on-demand";

    @Option(names = "--slow-check-ms", paramLabel = "MS",
            description = "How long each of the two synthetic readiness checks takes (default: 1200, longer than the probe budget).")
    long slowCheckMs = 1_200;

    @Option(names = "--check-timeout-ms", paramLabel = "MS",
            description = "Timeout of the demo's readiness checks, the JSON report's budget (default: 2000).")
    long checkTimeoutMs = 2_000;

    @Option(names = "--flood", paramLabel = "N", description = "Idle connections per port at each cycle's start (default: 600).")
    int flood = 600;

    @Option(names = "--slow-clients", paramLabel = "N",
            description = "Slow-drip connections held on the probe and gRPC ports each (default: 64; the application port gets an eighth).")
    int slowClients = 64;

    @Option(names = "--hostile-addresses", paramLabel = "N",
            description = "Hostile connections come from 127.0.0.2 … 127.0.0.(N+1), other pods to the server; 0 = from the probes' own "
                    + "127.0.0.1, which shares the probes' per-address connection share (default: 8).")
    int hostileAddresses = 8;

    @Option(names = "--exports", paramLabel = "N", description = "Steady concurrent exports (default: 16; the demo has 40 workers).")
    int exports = 16;

    @Option(names = "--burst", paramLabel = "N", description = "Concurrent exports added during each burst (default: 48).")
    int burst = 48;

    @Option(names = "--jar", paramLabel = "FILE", description = "The demo jar (default: vitals-demo/target/vitals-demo.jar).")
    Path jar = Path.of("vitals-demo/target/vitals-demo.jar");

    @Option(names = "--logs", paramLabel = "DIR", description = "Where the demo's log goes (default: bench/results/soak-<time>).")
    Path logs;

    @Option(names = "--out", paramLabel = "FILE", description = "Also write the report as JSON here.")
    Path out;

    /**
     * Parses and validates {@code args} without I/O.
     *
     * @return the command line, whose {@link CommandLine#getCommand()} is the run; help and version
     *     requests are not validated
     * @throws CommandLine.ParameterException for bad usage
     */
    static CommandLine parse(String... args) {
        SoakRun r = new SoakRun();
        CommandLine cl = new CommandLine(r);
        cl.parseArgs(args);
        if (!cl.isUsageHelpRequested() && !cl.isVersionHelpRequested()) {
            r.validate(cl);
        }
        return cl;
    }

    void validate(CommandLine cl) {
        if (shortForm && duration != null) {
            throw new CommandLine.ParameterException(cl, "--short and --duration exclude each other");
        }
        if (duration == null) {
            duration = shortForm ? Duration.ofMinutes(2) : Duration.ofMinutes(10);
        }
        between(cl, "--cycle", cycle, Duration.ofSeconds(9), Duration.ofMinutes(10));
        between(cl, "--period", period, Duration.ofSeconds(1), Duration.ofMinutes(5));
        if (warmUp == null) {
            // a third of the run, at most a minute: the resources' baseline is taken once pools and
            // non-heap memory settled; probes are judged from the start (issue 30: the bound holds
            // in the first minute too, since the gRPC port's gate, docs/grpc.md "Connection set-up")
            warmUp = Duration.ofMillis(Math.min(60_000, duration.toMillis() / 3));
        }
        between(cl, "--warm-up", warmUp, Duration.ZERO, Duration.ofHours(1));
        between(cl, "--probe-warm-up", probeWarmUp, Duration.ZERO, Duration.ofHours(1));
        if (probeWarmUp.compareTo(duration) >= 0) {
            throw new CommandLine.ParameterException(cl, "--probe-warm-up (" + seconds(probeWarmUp) + " s) must be shorter than --duration ("
                    + seconds(duration) + " s): no probe would be judged");
        }
        Duration least = firstQuiet(warmUp, cycle).plus(cycle).plusSeconds(1);
        if (duration.compareTo(least) < 0) {
            throw new CommandLine.ParameterException(cl, "--duration must be at least the warm-up rounded up to a cycle, + 1 cycle + 1 s (" + seconds(least)
                    + " s) to compare two quiet samples, was " + seconds(duration) + " s");
        }
        between(cl, "--duration", duration, Duration.ZERO, Duration.ofHours(24));
        range(cl, "--margin-ms", marginMs, 0, 60_000);
        if (!checkMode.equals("on-demand") && !checkMode.equals("scheduled")) {
            throw new CommandLine.ParameterException(cl, "--check-mode must be on-demand or scheduled, was '" + checkMode + "'");
        }
        range(cl, "--slow-check-ms", slowCheckMs, 0, 60_000);
        range(cl, "--check-timeout-ms", checkTimeoutMs, 1, 60_000);
        if (slowCheckMs >= checkTimeoutMs) {
            throw new CommandLine.ParameterException(cl, "--slow-check-ms (" + slowCheckMs + ") must be below --check-timeout-ms ("
                    + checkTimeoutMs + "): a check that times out fails readiness, which is not what a soak measures");
        }
        range(cl, "--flood", flood, 0, 5_000);
        range(cl, "--slow-clients", slowClients, 0, 1_000);
        range(cl, "--hostile-addresses", hostileAddresses, 0, 200);
        range(cl, "--exports", exports, 0, 200);
        range(cl, "--burst", burst, 0, 500);
    }

    /** @return the first cycle start at or after the warm-up: the first quiet sample that is compared */
    static Duration firstQuiet(Duration warmUp, Duration cycle) {
        long c = cycle.toNanos();
        return Duration.ofNanos((warmUp.toNanos() + c - 1) / c * c);
    }

    private static long seconds(Duration d) {
        return (d.toMillis() + 999) / 1000;
    }

    private static void between(CommandLine cl, String flag, Duration d, Duration min, Duration max) {
        if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
            throw new CommandLine.ParameterException(cl, flag + " must be between " + min.toMillis() / 1000.0 + " s and "
                    + max.toMillis() / 1000 + " s, was " + d.toMillis() / 1000.0 + " s");
        }
    }

    private static void range(CommandLine cl, String flag, long v, long min, long max) {
        if (v < min || v > max) {
            throw new CommandLine.ParameterException(cl, flag + " must be between " + min + " and " + max + ", was " + v);
        }
    }

    /** A duration: digits then ms, s, m or h (seconds when bare): {@code 500ms}, {@code 90s}, {@code 10m}, {@code 1h}. */
    static final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
        private static final Pattern P = Pattern.compile("(\\d{1,9})(ms|s|m|h)?");

        @Override
        public Duration convert(String value) {
            Matcher m = P.matcher(value.trim());
            if (!m.matches()) {
                throw new CommandLine.TypeConversionException("expected a duration such as 90s, 10m or 1h, was '" + value + "'");
            }
            long n = Long.parseLong(m.group(1));
            String unit = m.group(2) == null ? "s" : m.group(2);
            switch (unit) {
                case "ms":
                    return Duration.ofMillis(n);
                case "m":
                    return Duration.ofMinutes(n);
                case "h":
                    return Duration.ofHours(n);
                default:
                    return Duration.ofSeconds(n);
            }
        }
    }

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** @return the exit code: 0 all passed (or help), 1 a path or resource failed or the run could not be done, 2 bad usage */
    static int run(String... args) {
        CommandLine cl;
        try {
            cl = parse(args);
        } catch (CommandLine.ParameterException e) {
            System.err.println("tools/soak: " + e.getMessage());
            System.err.println("Try 'tools/soak --help' for the options.");
            return 2;
        }
        if (cl.isUsageHelpRequested()) {
            cl.usage(System.out);
            return 0;
        }
        if (cl.isVersionHelpRequested()) {
            cl.printVersionHelp(System.out);
            return 0;
        }
        try {
            return ((SoakRun) cl.getCommand()).call();
        } catch (Exception e) {
            if (stopping) {
                return 1; // interrupted: the shutdown hook said so; this is the demo being stopped under the run
            }
            System.err.println("tools/soak: " + (e.getMessage() == null ? e.toString() : e.getMessage().lines().findFirst().orElse(e.toString())));
            return 1;
        }
    }

    /** One probe path: its name, budget, and the probe. */
    private record PathSpec(String name, Duration budget, Supplier<HttpProbe.Result> probe) {
    }

    /** Set when {@link #call()} returns or throws: a shutdown before it is an interruption (Ctrl-C, SIGTERM). */
    private volatile boolean finished;
    /** Set on an interruption: the run's own failure (the demo killed under it) is then not reported. */
    private static volatile boolean stopping;

    @Override
    public Integer call() throws Exception {
        try {
            return soak();
        } finally {
            finished = true;
        }
    }

    /** The probers of the run: one thread per path and what each measured (synchronized lists). */
    private record Probers(List<Thread> threads, List<List<SoakReport.Probe>> probes) {
        void start() {
            threads.forEach(Thread::start);
        }

        void join() throws InterruptedException {
            for (Thread t : threads) {
                t.join(MEASURE_TIMEOUT.toMillis() + 10_000);
            }
        }
    }

    private int soak() throws Exception {
        int refused = checkFiles();
        if (refused != 0) {
            return refused;
        }
        String stamp = LocalDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
        Path logDir = logs != null ? logs : Path.of("bench/results/soak-" + stamp);
        List<String> demoArgs = demoArgs();
        Map<String, Object> meta = meta(demoArgs);
        System.out.printf(Locale.ROOT, "tools/soak: %d s (resources' warm-up %.0f s, probes judged from %.0f s, cycle %.0f s), JDK %s, %d cores,"
                + " load average %s; demo log in %s%n", duration.toSeconds(), warmUp.toMillis() / 1000.0, probeWarmUp.toMillis() / 1000.0,
                cycle.toMillis() / 1000.0, meta.get("jdk"), meta.get("cores"), meta.get("loadAverageStart"), logDir);
        try (ChildJvm demo = ChildJvm.start("demo", logDir, demoArgs)) {
            Matcher ready = demo.awaitLine(Pattern.compile("vitals-demo ready: (.*)"), Duration.ofSeconds(120));
            long ready0 = System.nanoTime();
            Runtime.getRuntime().addShutdownHook(interruptedNotice(demo, ready0));
            Map<String, String> fields = fields(ready.group(1));
            int appPort = Integer.parseInt(fields.get("port"));
            int probePort = Integer.parseInt(fields.get("probe-port"));
            int grpcPort = Integer.parseInt(fields.get("grpc-port"));
            List<PathSpec> specs = pathSpecs(probePort, grpcPort);
            List<String> clientWarmUp = warmUpClients(specs);
            meta.put("clientWarmUp", clientWarmUp);
            long t0 = System.nanoTime();
            meta.put("clientWarmUpSeconds", Math.round((t0 - ready0) / 1e8) / 10.0);
            long end = t0 + duration.toNanos();
            Probers probers = probers(specs, t0, end);
            SoakLoad load = new SoakLoad(new SoakLoad.Plan(appPort, probePort, grpcPort, exports, 4, burst,
                    slowClients, slowClients == 0 ? 0 : Math.max(1, slowClients / 8), flood, hostileAddresses, cycle), () -> System.nanoTime() - t0);
            List<SoakReport.Sample> samples = new ArrayList<>();
            samples.add(sample(demo, demo.log, 0, false));
            probers.start();
            load.start();
            try {
                sampleUntil(demo, t0, end, samples);
            } finally {
                load.close();
            }
            probers.join();
            samples.add(sample(demo, demo.log, (System.nanoTime() - t0) / 1e9, false));
            meta.put("loadAverageEnd", loadAverage());
            meta.put("liveHeapKiBAtEnd", liveHeap(demo));
            meta.put("traffic", load.counts());
            return report(meta, specs, probers, samples, clientWarmUp, demo.pid());
        }
    }

    /** @return 0 when the demo jar exists and --out can be written (checked before the run, issue 30), else the exit code, said */
    private int checkFiles() {
        if (!Files.isRegularFile(jar)) {
            System.err.println("tools/soak: no demo jar at " + jar + " (mvn -B -q -pl vitals-demo -am -DskipTests package)");
            return 1;
        }
        if (out != null) {
            Path parent = out.toAbsolutePath().getParent();
            if (parent == null || !Files.isDirectory(parent) || !Files.isWritable(parent) || Files.isDirectory(out)) {
                System.err.println("tools/soak: cannot write --out " + out + ": not a file in a writable directory");
                return 2;
            }
        }
        return 0;
    }

    /** The demo's command line: every port free, two synthetic readiness checks slower than the probe budget. */
    private List<String> demoArgs() {
        return List.of("-Xms256m", "-XX:+AlwaysPreTouch", "-jar", jar.toString(),
                "--port", "0", "--probe-port", "0", "--grpc-port", "0", "--metrics-port", "0", "--db-port", "0",
                "--export-min-ms", "500", "--export-max-ms", "3000",
                "--synthetic-checks", "2", "--synthetic-latency-ms", Long.toString(slowCheckMs), "--check-mode", checkMode,
                "--check-timeout-ms", Long.toString(checkTimeoutMs), "--drain-ms", "1000");
    }

    /** @return the report's metadata known before the run: date, settings, machine, load average, the demo's command line */
    private Map<String, Object> meta(List<String> demoArgs) {
        Map<String, Object> meta = new LinkedHashMap<>();
        meta.put("date", LocalDateTime.now(ZoneOffset.UTC).withNano(0) + "Z");
        meta.put("durationSeconds", duration.toSeconds());
        meta.put("warmUpSeconds", warmUp.toMillis() / 1000.0);
        meta.put("probeWarmUpSeconds", probeWarmUp.toMillis() / 1000.0);
        meta.put("cycleSeconds", cycle.toMillis() / 1000.0);
        meta.put("periodSeconds", period.toMillis() / 1000.0);
        meta.put("marginMs", marginMs);
        meta.put("hostileAddresses", hostileAddresses);
        meta.put("jdk", System.getProperty("java.version"));
        meta.put("cores", Runtime.getRuntime().availableProcessors());
        meta.put("loadAverageStart", loadAverage());
        meta.put("demo", demoArgs);
        return meta;
    }

    /** @return a shutdown hook that says, on Ctrl-C or SIGTERM before the run ends, that the demo is stopped with no verdict */
    private Thread interruptedNotice(ChildJvm demo, long ready0) {
        return new Thread(() -> {
            if (!finished) {
                stopping = true;
                System.err.printf(Locale.ROOT, "tools/soak: interrupted after %.0f s: the demo (pid %d) is stopped, no verdict%n",
                        (System.nanoTime() - ready0) / 1e9, demo.pid());
            }
        }, "soak-interrupted");
    }

    /** Every probe path with its budget: the HTTP probes (the JSON report's is the checks' timeout), and gRPC's services. */
    private List<PathSpec> pathSpecs(int probePort, int grpcPort) {
        Duration jsonBudget = Duration.ofMillis(checkTimeoutMs);
        List<PathSpec> specs = new ArrayList<>();
        for (String p : List.of("/livez", "/readyz", "/startupz")) {
            specs.add(new PathSpec("http " + p, PROBE_BUDGET, () -> HttpProbe.get(probePort, p, MEASURE_TIMEOUT)));
        }
        specs.add(new PathSpec("http /health/readiness", jsonBudget,
                () -> HttpProbe.get(probePort, "/health/readiness", MEASURE_TIMEOUT)));
        for (String s : List.of("liveness", "readiness", "startup", "")) {
            specs.add(new PathSpec("grpc " + (s.isEmpty() ? "\"\"" : s), PROBE_BUDGET,
                    () -> GrpcProbe.check(grpcPort, s, MEASURE_TIMEOUT)));
        }
        return specs;
    }

    /**
     * The soak's own probe clients load their classes (grpc-java's client above all) with one
     * untimed probe per path before the clock starts: a kubelet's Go client pays no such cost, and
     * the first timed gRPC probes would otherwise measure this JVM's start-up. The demo answers one
     * probe per path first, as it would a kubelet's startupProbe.
     *
     * @return per path, how long its untimed probe took
     */
    private static List<String> warmUpClients(List<PathSpec> specs) {
        List<String> clientWarmUp = new ArrayList<>();
        for (PathSpec spec : specs) {
            HttpProbe.Result r = spec.probe().get();
            clientWarmUp.add(String.format(Locale.ROOT, "%s %.0f ms%s", spec.name(), r.latencyMs(), r.ok() ? "" : " (" + r.error() + ")"));
        }
        return clientWarmUp;
    }

    /** @return one daemon prober per path (not started), the paths spread over the period as kubelet's workers are */
    private Probers probers(List<PathSpec> specs, long t0, long end) {
        List<List<SoakReport.Probe>> probes = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < specs.size(); i++) {
            List<SoakReport.Probe> sink = Collections.synchronizedList(new ArrayList<>());
            probes.add(sink);
            PathSpec spec = specs.get(i);
            long offset = period.toNanos() * i / specs.size();
            Thread t = new Thread(() -> probeLoop(spec, sink, t0 + offset, end, t0), "soak-probe-" + i);
            t.setDaemon(true);
            threads.add(t);
        }
        return new Probers(threads, probes);
    }

    /** Samples the demo's resources every 2 s until {@code end}, a quiet sample at each cycle's start from the warm-up on. */
    private void sampleUntil(ChildJvm demo, long t0, long end, List<SoakReport.Sample> samples) throws IOException, InterruptedException {
        long sampleEvery = Duration.ofSeconds(2).toNanos();
        long nextQuiet = t0 + firstQuiet(warmUp, cycle).toNanos();
        long nextSample = t0 + sampleEvery;
        while (System.nanoTime() - end < 0) {
            long now = System.nanoTime();
            boolean quiet = now - nextQuiet >= 0;
            if (quiet || now - nextSample >= 0) {
                samples.add(sample(demo, demo.log, (now - t0) / 1e9, quiet));
                if (quiet) {
                    nextQuiet += cycle.toNanos();
                }
                nextSample = now + sampleEvery;
                continue;
            }
            long wait = Math.min(Math.min(nextQuiet, nextSample), end) - now;
            Thread.sleep(Math.max(1, wait / 1_000_000));
        }
    }

    /** @return the demo's live heap after a full GC, KiB; -1 where jcmd is unavailable (the figure is left out) */
    private static long liveHeap(ChildJvm demo) throws InterruptedException {
        try {
            return demo.liveHeapKiB();
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /**
     * Prints the table and writes --out.
     *
     * @return 0 when every path and resource passed, else 1
     */
    private int report(Map<String, Object> meta, List<PathSpec> specs, Probers probers, List<SoakReport.Sample> samples,
            List<String> clientWarmUp, long pid) throws IOException {
        double warm = probeWarmUp.toMillis() / 1000.0;
        List<SoakReport.PathSummary> paths = new ArrayList<>();
        for (int i = 0; i < specs.size(); i++) {
            List<SoakReport.Probe> copy;
            synchronized (probers.probes().get(i)) {
                copy = new ArrayList<>(probers.probes().get(i));
            }
            paths.add(SoakReport.path(specs.get(i).name(), specs.get(i).budget().toMillis(), marginMs, copy, warm));
        }
        List<SoakReport.ResourceSummary> resources = SoakReport.resources(samples);
        long liveHeap = (Long) meta.get("liveHeapKiBAtEnd");
        System.out.println();
        System.out.printf(Locale.ROOT, "%s, %d s, JDK %s, %d cores, load average %s at start, %s at end; demo pid %d%n",
                meta.get("date"), duration.toSeconds(), meta.get("jdk"), meta.get("cores"), meta.get("loadAverageStart"),
                meta.get("loadAverageEnd"), pid);
        System.out.print(SoakReport.text(paths, resources, marginMs, warm));
        System.out.println("client warm-up before the clock (untimed, one probe per path, " + meta.get("clientWarmUpSeconds") + " s): "
                + String.join(", ", clientWarmUp));
        System.out.println("traffic: " + meta.get("traffic") + (liveHeap >= 0 ? "; live heap after a full GC at the end: " + liveHeap / 1024 + " MiB" : ""));
        if (out != null) {
            ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
            Files.writeString(out, json.writeValueAsString(SoakReport.json(meta, paths, resources, samples)));
            System.out.println("written: " + out);
        }
        return SoakReport.pass(paths, resources) ? 0 : 1;
    }

    /** Probes {@code spec} every period from {@code first} until {@code end}; a probe longer than the period delays the next tick, as kubelet's ticker does. */
    private void probeLoop(PathSpec spec, List<SoakReport.Probe> sink, long first, long end, long t0) {
        long next = first;
        while (true) {
            long now = System.nanoTime();
            if (now - end >= 0) {
                return;
            }
            if (now - next < 0) {
                try {
                    Thread.sleep(Math.max(1, (next - now) / 1_000_000));
                } catch (InterruptedException e) {
                    return;
                }
                continue;
            }
            HttpProbe.Result r = spec.probe().get();
            sink.add(new SoakReport.Probe((now - t0) / 1e9, r.latencyMs(), r.ok(), r.ok() ? Integer.toString(r.status())
                    : r.error().isEmpty() ? Integer.toString(r.status()) : r.error()));
            next += period.toNanos();
            long after = System.nanoTime();
            if (after - next > 0) {
                next = after; // missed ticks are skipped
            }
        }
    }

    private static SoakReport.Sample sample(ChildJvm demo, Path log, double at, boolean quiet) throws IOException {
        return new SoakReport.Sample(Math.round(at * 10) / 10.0, demo.threads(), demo.fds(), demo.rssKiB(), Files.size(log), quiet);
    }

    /** @return {@code key=value} fields of the demo's ready line */
    static Map<String, String> fields(String line) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String kv : line.trim().split(" ")) {
            int eq = kv.indexOf('=');
            if (eq > 0) {
                m.put(kv.substring(0, eq), kv.substring(eq + 1));
            }
        }
        for (String k : List.of("port", "probe-port", "grpc-port")) {
            if (!m.containsKey(k) || !m.get(k).matches("\\d+")) {
                throw new IllegalStateException("the demo's ready line has no " + k + ": " + line);
            }
        }
        return m;
    }

    private static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException e) {
            return "unknown";
        }
    }
}
