package dev.vitals.bench.suite;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The suite's five scenarios (issue 9). Each starts its targets in child JVMs, drives them with
 * bounded load on 127.0.0.1, kills them, and returns its rows. Not thread-safe: one scenario at a time.
 */
final class Scenarios {
    static final List<String> NAMES = List.of("saturation", "slow-checks", "hung-check", "throughput", "footprint");

    static final Duration PROBE_TIMEOUT = Duration.ofSeconds(3);
    /** The kubelet's default {@code timeoutSeconds: 1} (kubelet: pkg/apis/core/v1/defaults.go). */
    static final Duration KUBELET_TIMEOUT = Duration.ofSeconds(1);
    static final int THROUGHPUT_CONNECTIONS = 16;

    /**
     * How long each scenario runs: {@code FULL} (about 15 minutes), {@code QUICK} (about 5),
     * {@code SMOKE} (every scenario once with the least load, seconds each plus the targets'
     * start-ups: proves that each runs, its figures mean nothing).
     */
    enum Scale {
        FULL, QUICK, SMOKE
    }

    private final Target.Paths paths;
    /** Shorter than full: quick or smoke. */
    private final boolean quick;
    private final boolean smoke;
    /** Probes sent to each probe path before the application load starts (not counted). */
    private final int warmProbes;
    private final Duration hungClientTimeout;
    private final String load;
    private final PrintStream log;
    /** Starts of each side in the footprint scenario. */
    private final int footprintStarts;

    /**
     * @param load {@code wrk}, {@code java} or {@code both}: the tool(s) of the throughput scenario
     * @param footprintStarts starts of each side in the footprint scenario, at least 1
     */
    Scenarios(Target.Paths paths, Scale scale, String load, PrintStream log, int footprintStarts) {
        this.paths = paths;
        this.quick = scale != Scale.FULL;
        this.smoke = scale == Scale.SMOKE;
        this.warmProbes = smoke ? 5 : 50;
        this.hungClientTimeout = Duration.ofSeconds(smoke ? 3 : 5);
        this.load = load;
        this.log = log;
        this.footprintStarts = footprintStarts;
    }

    List<Row> run(String name) throws Exception {
        switch (name) {
            case "saturation":
                return saturation();
            case "slow-checks":
                return slowChecks();
            case "hung-check":
                return hungCheck();
            case "throughput":
                return throughput();
            case "footprint":
                return footprint();
            default:
                throw new IllegalArgumentException("unknown scenario '" + name + "'; known: " + String.join(", ", NAMES));
        }
    }

    private void say(String format, Object... args) {
        log.printf(Locale.ROOT, "[%s] %s%n", java.time.LocalTime.now().withNano(0), String.format(Locale.ROOT, format, args));
        log.flush();
    }

    // ------------------------------------------------------------------ 1. probe under saturation

    /** Figures of one probed run under application load. */
    record ProbeRun(double p50, double p99, double max, int failures, int probes, int appOk, String errors) {
    }

    private List<Row> saturation() throws Exception {
        Duration duration = Duration.ofSeconds(smoke ? 6 : quick ? 20 : 40);
        int probes = smoke ? 2 : quick ? 15 : 30;
        int[] levels = smoke ? new int[] {10} : quick ? new int[] {100} : new int[] {50, 100};
        List<Row> rows = new ArrayList<>();
        for (int c : levels) {
            String scenario = "saturation c=" + c;
            ProbeRun vitals;
            ProbeRun ceiling;
            try (Target netty = Target.fixed200(paths, "sat-netty-fixed-200-c" + c);
                    Target t = Target.spring(paths, "sat-vitals-c" + c, true, false, Map.of())) {
                ProbeRun[] both = probeUnderLoad(t, t.probePort(), "/livez", slowUris(t), c, duration, probes, netty.appPort());
                vitals = both[0];
                ceiling = both[1];
            }
            say("%s vitals probe port:        %s", scenario, vitals);
            say("%s idle netty fixed 200, probed at the same moments: %s", scenario, ceiling);
            ProbeRun main;
            try (Target t = Target.spring(paths, "sat-actuator-main-c" + c, false, false, Map.of())) {
                main = probeUnderLoad(t, t.appPort(), "/actuator/health/liveness", slowUris(t), c, duration, probes);
            }
            say("%s actuator main port:       %s", scenario, main);
            ProbeRun mgmt;
            try (Target t = Target.spring(paths, "sat-actuator-mgmt-c" + c, false, true, Map.of())) {
                mgmt = probeUnderLoad(t, t.managementPort(), "/actuator/health/liveness", slowUris(t), c, duration, probes);
            }
            say("%s actuator management port: %s", scenario, mgmt);
            rows.add(Row.of(scenario, "probe p99", "ms", vitals.p99(), "idle netty fixed 200, same moments", ceiling.p99())
                    .withNote("ceiling p50 " + ResultTable.format(ceiling.p50()) + " ms, " + ceiling.failures() + " failed"));
            rows.addAll(probeRows(scenario, vitals, "actuator main port", main, true));
            rows.addAll(probeRows(scenario, vitals, "actuator management port", mgmt, false));
        }
        if (!quick) {
            // The demo service (JDK HttpServer, 40 workers, exports of 4-12 s): Vitals wiring
            // against its naive /healthz on the worker pool.
            int c = 100;
            String scenario = "saturation c=" + c + " (demo)";
            ProbeRun vitals;
            try (Target t = Target.demo(paths, "sat-demo-vitals", List.of("--wiring=vitals"))) {
                vitals = probeUnderLoad(t, t.probePort(), "/livez", exportUris(t), c, duration, probes);
            }
            say("%s vitals wiring /livez: %s", scenario, vitals);
            ProbeRun naive;
            try (Target t = Target.demo(paths, "sat-demo-naive", List.of("--wiring=naive"))) {
                naive = probeUnderLoad(t, t.appPort(), "/healthz", exportUris(t), c, duration, probes);
            }
            say("%s naive wiring /healthz: %s", scenario, naive);
            rows.addAll(probeRows(scenario, vitals, "naive /healthz", naive, true));
        }
        return rows;
    }

    private static List<Row> probeRows(String scenario, ProbeRun v, String refName, ProbeRun r, boolean goals) {
        List<Row> rows = new ArrayList<>();
        rows.add(Row.of(scenario, "probe p50", "ms", v.p50(), refName, r.p50()));
        Row p99 = Row.of(scenario, "probe p99", "ms", v.p99(), refName, r.p99());
        rows.add(goals ? p99.withGoal("vitals < 5 ms", v.p99() < 5) : p99);
        rows.add(Row.of(scenario, "probe max", "ms", v.max(), refName, r.max()));
        Row failures = Row.of(scenario, "probe failures of " + v.probes(), "", v.failures(), refName, r.failures())
                .withNote("app requests ok: " + v.appOk() + " / " + r.appOk()
                        + (r.errors().isEmpty() ? "" : "; ref: " + r.errors())
                        + (v.errors().isEmpty() ? "" : "; vitals: " + v.errors()));
        rows.add(goals ? failures.withGoal("vitals 0, reference > 0", v.failures() == 0 && r.failures() > 0) : failures);
        return rows;
    }

    /** {@code /slow?ms=} 4000 to 12000, seeded, on the Spring service. */
    private static Supplier<URI> slowUris(Target t) {
        SplittableRandom random = new SplittableRandom(42);
        return () -> {
            int ms;
            synchronized (random) {
                ms = random.nextInt(4000, 12001);
            }
            return URI.create("http://127.0.0.1:" + t.appPort() + "/slow?ms=" + ms);
        };
    }

    /** The demo's export (the demo draws its 4-12 s hold time itself, seeded). */
    private static Supplier<URI> exportUris(Target t) {
        URI uri = URI.create("http://127.0.0.1:" + t.appPort() + "/reports/export?costCenter=CC-7");
        return () -> uri;
    }

    /**
     * Holds {@code concurrency} slow application requests in flight for {@code duration}; from
     * 3 s in, probes {@code path} once a second ({@code probes} times, fresh connection, 3 s
     * timeout, at most 6 at once), after {@link #warmProbes} uncounted ones before the load. A
     * failed probe counts with its elapsed time in the percentiles.
     */
    ProbeRun probeUnderLoad(Target t, int port, String path, Supplier<URI> app, int concurrency, Duration duration,
            int probes) throws Exception {
        return probeUnderLoad(t, port, path, app, concurrency, duration, probes, -1)[0];
    }

    /**
     * As above; when {@code calibrationPort > 0}, also probes {@code GET /} there at the same
     * moments (the idle fixed-200 Netty server: what a probe costs on this machine right now).
     *
     * @return the target's figures, then the calibration's (or null)
     */
    ProbeRun[] probeUnderLoad(Target t, int port, String path, Supplier<URI> app, int concurrency, Duration duration,
            int probes, int calibrationPort) throws Exception {
        // Warm both probe paths first (class loading, JIT), so that no figure is a cold start's.
        for (int i = 0; i < warmProbes; i++) {
            HttpProbe.get(port, path, PROBE_TIMEOUT);
            if (calibrationPort > 0) {
                HttpProbe.get(calibrationPort, "/", PROBE_TIMEOUT);
            }
        }
        ExecutorService probers = Executors.newFixedThreadPool(6, daemon("vitals-bench-probe"));
        try (SlowLoad load = new SlowLoad(app)) {
            long t0 = System.nanoTime();
            load.start(concurrency, duration);
            List<Future<HttpProbe.Result>> results = new ArrayList<>();
            List<Future<HttpProbe.Result>> calibration = new ArrayList<>();
            for (int i = 0; i < probes; i++) {
                sleepUntil(t0 + TimeUnit.SECONDS.toNanos(3 + i));
                t.child().requireAlive();
                results.add(probers.submit(() -> HttpProbe.get(port, path, PROBE_TIMEOUT)));
                if (calibrationPort > 0) {
                    calibration.add(probers.submit(() -> HttpProbe.get(calibrationPort, "/", PROBE_TIMEOUT)));
                }
            }
            ProbeRun target = collect(results, load.ok());
            ProbeRun calibrated = calibrationPort > 0 ? collect(calibration, 0) : null;
            sleepUntil(t0 + duration.toNanos());
            t.child().requireAlive();
            return new ProbeRun[] {new ProbeRun(target.p50(), target.p99(), target.max(), target.failures(), target.probes(),
                    load.ok(), target.errors()), calibrated};
        } finally {
            probers.shutdownNow();
        }
    }

    private static ProbeRun collect(List<Future<HttpProbe.Result>> results, int appOk) throws Exception {
        double[] ms = new double[results.size()];
        int failures = 0;
        Map<String, Integer> errors = new LinkedHashMap<>();
        for (int i = 0; i < ms.length; i++) {
            HttpProbe.Result r = results.get(i).get(PROBE_TIMEOUT.toSeconds() + 10, TimeUnit.SECONDS);
            ms[i] = r.latencyMs();
            if (!r.ok()) {
                failures++;
                errors.merge(r.error(), 1, Integer::sum);
            }
        }
        return new ProbeRun(Stats.percentile(ms, 50), Stats.percentile(ms, 99), Stats.max(ms), failures, ms.length, appOk,
                errors.isEmpty() ? "" : errors.toString());
    }

    // ------------------------------------------------------------------ 2. slow checks

    /**
     * Ten indicators of 1 s each. On demand, two questions: what a kubelet sees (a probe with
     * its default 1 s timeout waits at most the probe budget, 800 ms, while the evaluation runs:
     * the first probe of the service finds no result yet and reads 503 UNKNOWN "still running, no
     * result yet", every later one reads the last result, younger than its maxAge, 200; the
     * answer is one evaluation behind), and what the evaluation costs (the JSON report
     * {@code /health/readiness} waits for the checks: the slowest one, as they run concurrently).
     * Then scheduled reads, and Actuator, which runs the indicators one after another.
     */
    private List<Row> slowChecks() throws Exception {
        Map<String, String> tenSlow = Map.of("example.indicators.count", "10", "example.indicators.latency", "1s",
                "vitals.defaults.timeout", "2s");
        int onDemandSamples = smoke ? 1 : quick ? 3 : 5;
        OnDemand onDemand = onDemand(tenSlow, onDemandSamples);
        HttpProbe.Result first = onDemand.first();
        HttpProbe.Result[] probes = onDemand.probes();
        double[] evaluation = onDemand.evaluation();
        double[] probeMs = Arrays.stream(probes).mapToDouble(HttpProbe.Result::latencyMs).toArray();
        String statuses = Arrays.stream(probes).map(r -> r.status() > 0 ? Integer.toString(r.status()) : r.error())
                .collect(java.util.stream.Collectors.joining(", "));
        boolean allOk = Arrays.stream(probes).allMatch(HttpProbe.Result::ok);
        say("slow checks, vitals on-demand: first /readyz %s; then /readyz %s; /health/readiness ms %s",
                first, Arrays.toString(probes), Arrays.toString(evaluation));
        double[] scheduled = scheduledReads(tenSlow);
        say("slow checks, vitals scheduled /readyz ms: p50 %.2f max %.2f", Stats.percentile(scheduled, 50), Stats.max(scheduled));
        int actuatorSamples = quick ? 1 : 3;
        double[] actuator = new double[actuatorSamples];
        try (Target t = Target.spring(paths, "slow-actuator", false, false, tenSlow)) {
            for (int i = 0; i < actuatorSamples; i++) {
                actuator[i] = expectOk(t, t.appPort(), "/actuator/health", Duration.ofSeconds(60));
            }
        }
        say("slow checks, actuator /actuator/health ms: %s", Arrays.toString(actuator));
        String s = "slow checks 10 x 1 s";
        String ref = "actuator /actuator/health";
        double a50 = Stats.percentile(actuator, 50);
        double budget = 800; // ProbeServer.Builder.DEFAULT_PROBE_BUDGET, what vitals-spring-boot uses unless told
        return List.of(
                new Row(s, "on-demand first /readyz (no result yet)", "ms", OptionalDouble.of(first.latencyMs()), "-",
                        OptionalDouble.empty(), "", Optional.empty(),
                        (first.status() > 0 ? "status " + first.status() : first.error())
                                + "; expected: 503 at the 800 ms budget (UNKNOWN, still running, no result yet)"),
                Row.of(s, "on-demand /readyz (kubelet, 1 s timeout) max", "ms", Stats.max(probeMs), ref, Stats.max(actuator))
                        .withGoal("answered < 1 s, 200 (last result)", allOk && Stats.max(probeMs) < KUBELET_TIMEOUT.toMillis())
                        .withNote(onDemandSamples + " probes 1.5 s apart, each waits the " + (int) budget
                                + " ms budget for a running evaluation: statuses " + statuses),
                Row.of(s, "on-demand evaluation (/health/readiness) p50", "ms", Stats.percentile(evaluation, 50), ref, a50)
                        .withGoal("<= 1200 ms (1.2 x slowest)", Stats.percentile(evaluation, 50) <= 1200)
                        .withNote("max " + ResultTable.format(Stats.max(evaluation)) + " ms; the JSON report waits for the checks"),
                Row.of(s, "vitals scheduled p50", "ms", Stats.percentile(scheduled, 50), ref, a50)
                        .withGoal("< 5 ms", Stats.percentile(scheduled, 50) < 5),
                Row.of(s, "vitals scheduled max", "ms", Stats.max(scheduled), ref, Stats.max(actuator))
                        .withNote(scheduled.length + " vitals requests, " + actuatorSamples + " actuator"),
                new Row(s, "actuator vs the sum of the checks", "ms", OptionalDouble.empty(), ref, OptionalDouble.of(a50),
                        "actuator ~ 10000 ms (the sum)", Optional.of(a50 >= 9000 && a50 <= 13000), ""));
    }

    /**
     * The on-demand service's answers.
     *
     * @param first its first probe, before any evaluation
     * @param probes later probes, each past the result's ttl
     * @param evaluation the JSON report's latencies, ms: a whole evaluation each
     */
    private record OnDemand(HttpProbe.Result first, HttpProbe.Result[] probes, double[] evaluation) {
    }

    /** The ten slow checks on demand: the first probe, then {@code samples} probes and reports 1.5 s apart. */
    private OnDemand onDemand(Map<String, String> tenSlow, int samples) throws Exception {
        HttpProbe.Result[] probes = new HttpProbe.Result[samples];
        double[] evaluation = new double[samples];
        Map<String, String> od = new LinkedHashMap<>(tenSlow);
        od.put("vitals.defaults.mode", "on-demand");
        try (Target t = Target.spring(paths, "slow-vitals-on-demand", true, false, od)) {
            // The service's first probe: nothing evaluated yet (start-up probed /livez only).
            HttpProbe.Result first = HttpProbe.get(t.probePort(), "/readyz", KUBELET_TIMEOUT);
            for (int i = 0; i < samples; i++) {
                Thread.sleep(1500); // past the 1 s ttl: the probe starts a fresh evaluation of all 10 checks
                probes[i] = HttpProbe.get(t.probePort(), "/readyz", KUBELET_TIMEOUT);
            }
            for (int i = 0; i < samples; i++) {
                Thread.sleep(1500); // past the ttl again: the report waits for a whole evaluation
                evaluation[i] = expectOk(t, t.probePort(), "/health/readiness", Duration.ofSeconds(30));
            }
            return new OnDemand(first, probes, evaluation);
        }
    }

    /** @return the ten slow checks scheduled every 10 s: /readyz latencies once the first results are in, ms */
    private double[] scheduledReads(Map<String, String> tenSlow) throws Exception {
        Map<String, String> sc = new LinkedHashMap<>(tenSlow);
        sc.put("vitals.defaults.mode", "scheduled");
        sc.put("vitals.defaults.interval", "10s");
        try (Target t = Target.spring(paths, "slow-vitals-scheduled", true, false, sc)) {
            HttpProbe.awaitOk(t.child(), t.probePort(), "/readyz", Duration.ofSeconds(30)); // first results in
            for (int i = 0; i < (smoke ? 2 : 20); i++) {
                expectOk(t, t.probePort(), "/readyz", Duration.ofSeconds(5)); // warm-up
            }
            double[] scheduled = new double[smoke ? 3 : 30];
            for (int i = 0; i < scheduled.length; i++) {
                scheduled[i] = expectOk(t, t.probePort(), "/readyz", Duration.ofSeconds(5));
            }
            return scheduled;
        }
    }

    /** One kubelet-like GET that must answer 2xx/3xx; @return its latency, ms */
    private static double expectOk(Target t, int port, String path, Duration timeout) {
        HttpProbe.Result r = HttpProbe.get(port, path, timeout);
        if (!r.ok()) {
            throw new IllegalStateException(t.child().name + ": " + path + " failed: " + r + "; log " + t.child().log);
        }
        return r.latencyMs();
    }

    // ------------------------------------------------------------------ 3. hung check

    /** Figures of 200 requests against an endpoint whose check never returns. */
    /**
     * @param vitalsBefore the target's {@code vitals-} threads before the requests (those the
     *     requests found, which {@code added} does not count)
     */
    record HungRun(double p50, double max, int answered, int timedOut, int threadsBefore, int threadsAfter, List<String> added,
            List<String> vitalsBefore) {
    }

    /** @return the names in {@code after} that {@code before} does not account for (multiset difference) */
    static List<String> added(List<String> before, List<String> after) {
        List<String> left = new ArrayList<>(after);
        for (String name : before) {
            left.remove(name);
        }
        return left;
    }

    private List<Row> hungCheck() throws Exception {
        int total = smoke ? 20 : 200;
        Map<String, String> hung = Map.of("example.indicators.count", "0", "example.indicators.hung", "true",
                "vitals.defaults.mode", "on-demand", "vitals.defaults.timeout", "2s");
        HungRun vitals;
        try (Target t = Target.spring(paths, "hung-vitals", true, false, hung)) {
            vitals = hammer(t, t.probePort(), "/readyz", total);
        }
        say("hung check, vitals /readyz: %s", vitals);
        HungRun actuator;
        try (Target t = Target.spring(paths, "hung-actuator", false, false, hung)) {
            actuator = hammer(t, t.appPort(), "/actuator/health/readiness", total);
        }
        say("hung check, actuator /actuator/health/readiness: %s", actuator);
        String s = "hung check (" + total + " req, " + hungClientTimeout.toSeconds() + " s)";
        String ref = "actuator readiness";
        int vAdded = vitals.threadsAfter() - vitals.threadsBefore();
        int aAdded = actuator.threadsAfter() - actuator.threadsBefore();
        return List.of(
                Row.of(s, "latency p50", "ms", vitals.p50(), ref, actuator.p50()),
                Row.of(s, "latency max", "ms", vitals.max(), ref, actuator.max())
                        .withGoal("vitals <= 2.5 s (2 s timeout + 0.5 s margin)", vitals.max() <= 2500),
                Row.of(s, "requests timed out", "", vitals.timedOut(), ref, actuator.timedOut())
                        .withGoal("vitals 0, actuator hangs (> 0)", vitals.timedOut() == 0 && actuator.timedOut() > 0),
                Row.of(s, "JVM threads added", "", vAdded, ref, aAdded)
                        .withGoal("vitals <= 1", vAdded <= 1)
                        .withNote("threads " + vitals.threadsBefore() + "->" + vitals.threadsAfter() + " / "
                                + actuator.threadsBefore() + "->" + actuator.threadsAfter() + "; vitals added " + vitals.added()
                                + ", had " + vitals.vitalsBefore()));
    }

    /** {@code total} kubelet-like requests, 40 at a time, client timeout 5 s (smoke: 3 s); threads counted before and 1 s after. */
    private HungRun hammer(Target t, int port, String path, int total) throws Exception {
        Thread.sleep(2000); // let start-up threads settle
        int before = t.child().threads();
        List<String> namesBefore = t.child().threadNames();
        ExecutorService pool = Executors.newFixedThreadPool(40, daemon("vitals-bench-hung"));
        try {
            List<Future<HttpProbe.Result>> futures = new ArrayList<>();
            for (int i = 0; i < total; i++) {
                futures.add(pool.submit(() -> HttpProbe.get(port, path, hungClientTimeout)));
            }
            double[] ms = new double[total];
            int answered = 0;
            int timedOut = 0;
            for (int i = 0; i < total; i++) {
                HttpProbe.Result r = futures.get(i).get(120, TimeUnit.SECONDS);
                ms[i] = r.latencyMs();
                if (r.status() > 0) {
                    answered++; // 503 is the expected answer: the check is DOWN
                } else {
                    timedOut++;
                }
            }
            Thread.sleep(1000);
            return new HungRun(Stats.percentile(ms, 50), Stats.max(ms), answered, timedOut, before, t.child().threads(),
                    added(namesBefore, t.child().threadNames()),
                    namesBefore.stream().filter(n -> n.startsWith("vitals-")).collect(java.util.stream.Collectors.toList()));
        } finally {
            pool.shutdownNow();
        }
    }

    // ------------------------------------------------------------------ 4. probe throughput

    private List<Row> throughput() throws Exception {
        int seconds = smoke ? 1 : quick ? 5 : 10;
        int warmup = smoke ? 1 : quick ? 2 : 3;
        int rounds = quick ? 1 : 2;
        List<String> tools = new ArrayList<>();
        if (!load.equals("java")) {
            tools.add("wrk");
        }
        if (!load.equals("wrk")) {
            tools.add("java");
        }
        try (Target vitals = Target.spring(paths, "tp-vitals", true, false, Map.of());
                // Actuator at its best: Tomcat keeps a connection for any number of requests (its
                // default closes one after 100, which costs a reconnect).
                Target actuator = Target.spring(paths, "tp-actuator", false, false, Map.of("server.tomcat.max-keep-alive-requests", "-1"));
                Target netty = Target.fixed200(paths, "tp-netty-fixed-200")) {
            // nginx `return 200`, one worker: the real ceiling when installed (issue 37)
            Optional<Nginx> nginx = Nginx.start(paths.logs(), "tp-nginx");
            try {
                return throughputRows(vitals, actuator, netty, nginx, tools, warmup, seconds, rounds);
            } finally {
                nginx.ifPresent(Nginx::close);
            }
        }
    }

    private List<Row> throughputRows(Target vitals, Target actuator, Target netty, Optional<Nginx> nginx, List<String> tools,
                                     int warmup, int seconds, int rounds) throws Exception {
        List<String> names = new ArrayList<>(List.of("vitals", "actuator", "netty"));
        List<Integer> ports = new ArrayList<>(List.of(vitals.probePort(), actuator.appPort(), netty.appPort()));
        List<String> pathsOf = new ArrayList<>(List.of("/livez", "/actuator/health/liveness", "/"));
        if (nginx.isPresent()) {
            names.add("nginx");
            ports.add(nginx.get().port());
            pathsOf.add("/");
        }
        int n = names.size();
        for (int i = 0; i < n; i++) {
            KeepAliveLoad.run(ports.get(i), pathsOf.get(i), THROUGHPUT_CONNECTIONS, smoke ? 1 : quick ? 5 : 10); // JIT warm-up of each
        }
        List<Row> rows = new ArrayList<>();
        for (String tool : tools) {
            double[][] rps = new double[n][rounds];
            double[][] p99 = new double[n][rounds];
            double[][] p50 = new double[n][rounds];
            for (int round = 0; round < rounds; round++) {
                for (int k = 0; k < n; k++) {
                    int i = round % 2 == 0 ? k : n - 1 - k; // alternate the order between rounds
                    double[] f = measure(tool, ports.get(i), pathsOf.get(i), warmup, seconds);
                    rps[i][round] = f[0];
                    p50[i][round] = f[1];
                    p99[i][round] = f[2];
                    say("throughput %s %-8s round %d: %.0f req/s p50 %.3f ms p99 %.3f ms", tool, names.get(i), round + 1, f[0], f[1], f[2]);
                }
            }
            String s = "throughput 16 conns (" + tool + ")";
            double vr = mean(rps[0]);
            double ar = mean(rps[1]);
            double nr = mean(rps[2]);
            String load = String.format(Locale.ROOT, "load %.2f",
                    java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
            if (nginx.isPresent()) {
                double gr = mean(rps[3]);
                rows.add(Row.of(s, "/livez req/s", "req/s", vr, "nginx return 200 (1 worker)", gr)
                        .withGoal(">= 0.9 x nginx", vr >= 0.9 * gr)
                        .withNote(String.format(Locale.ROOT, "vitals/nginx %.2f, vitals/netty %.2f, same run, %s",
                                vr / gr, vr / nr, load)));
            } else {
                rows.add(new Row(s, "/livez req/s", "req/s", OptionalDouble.of(vr), "nginx return 200 (1 worker)",
                        OptionalDouble.empty(), ">= 0.9 x nginx", Optional.empty(),
                        "nginx not installed (apt-get install -y nginx-light)"));
            }
            rows.add(Row.of(s, "/livez req/s", "req/s", vr, "netty fixed 200", nr).withGoal(">= 0.7 x netty", vr >= 0.7 * nr)
                    .withNote(String.format(Locale.ROOT, "vitals/netty %.2f", vr / nr)));
            rows.add(Row.of(s, "/livez req/s", "req/s", vr, "actuator liveness", ar).withGoal(">= actuator", vr >= ar));
            if (nginx.isPresent()) {
                rows.add(Row.of(s, "p50", "ms", mean(p50[0]), "nginx return 200 (1 worker)", mean(p50[3])));
            }
            rows.add(Row.of(s, "p50", "ms", mean(p50[0]), "netty fixed 200", mean(p50[2])));
            rows.add(Row.of(s, "p99", "ms", mean(p99[0]), "netty fixed 200", mean(p99[2])));
            rows.add(Row.of(s, "p99", "ms", mean(p99[0]), "actuator liveness", mean(p99[1]))
                    .withNote(rounds + " x " + seconds + " s per target"));
        }
        return rows;
    }

    /** @return {rps, p50 ms, p99 ms} of one run after a warm-up */
    private double[] measure(String tool, int port, String path, int warmup, int seconds) throws Exception {
        if (tool.equals("wrk")) {
            String url = "http://127.0.0.1:" + port + path;
            Wrk.run(url, THROUGHPUT_CONNECTIONS, warmup);
            Wrk.Figures f = Wrk.run(url, THROUGHPUT_CONNECTIONS, seconds);
            return new double[] {f.rps(), f.p50(), f.p99()};
        }
        KeepAliveLoad.run(port, path, THROUGHPUT_CONNECTIONS, warmup);
        double[] ms = Stats.millis(KeepAliveLoad.run(port, path, THROUGHPUT_CONNECTIONS, seconds));
        return new double[] {ms.length / (double) seconds, Stats.percentile(ms, 50), Stats.percentile(ms, 99)};
    }

    private static double mean(double[] v) {
        return Arrays.stream(v).average().orElseThrow();
    }

    // ------------------------------------------------------------------ 5. footprint

    /**
     * Both sides of the footprint pair run with the same fixed, pre-touched heap ({@code -Xms} =
     * {@code -Xmx} of {@link ChildJvm#JVM_OPTIONS}): the whole heap is resident on both, so the
     * RSS difference is what Vitals adds outside it (classes, threads, code), not how far each run's
     * GC happened to grow the heap (issue 37: +30 MiB RSS for 0.3 MiB of live heap with a growing one).
     * Native memory tracking (summary) on both sides tells where the difference goes.
     */
    static final List<String> FIXED_HEAP = List.of("-Xms256m", "-XX:+AlwaysPreTouch", "-XX:NativeMemoryTracking=summary");

    /** Issue 37's aims for the starter, Vitals on minus off: start-up to liveness 200, ms. */
    static final double STARTUP_AIM_MS = 100;
    /** RSS, MiB. */
    static final double RSS_AIM_MIB = 12;
    /** JVM threads at idle. */
    static final int THREADS_AIM = 4;
    /** NMT categories always shown; others only when their medians differ by at least 0.25 MiB. */
    private static final List<String> NMT_SHOWN = List.of("Total", "Java Heap", "Class", "Metaspace", "Thread", "Code");

    /**
     * One start of the Spring example: its figures, its NMT summary and its threads' names.
     *
     * @param trimmedRssMiB RSS after the C library gave its free heap back ({@link ChildJvm#trimNativeHeap}), or NaN
     *     when the JDK cannot
     */
    record FootprintRun(double startupMs, double rssMiB, double trimmedRssMiB, double liveHeapMiB, int threads,
            List<String> threadNames, Map<String, Long> nativeKiB) {
    }

    private List<Row> footprint() throws Exception {
        int pairs = footprintStarts;
        List<List<FootprintRun>> runs = List.of(new ArrayList<>(), new ArrayList<>()); // 0 = with Vitals, 1 = without
        for (int n = 0; n < pairs; n++) {
            for (int k = 0; k < 2; k++) {
                int i = n % 2 == 0 ? k : 1 - k; // alternate the order
                FootprintRun run;
                try (Target t = Target.spring(paths, "footprint-" + (i == 0 ? "vitals" : "actuator") + "-" + n, i == 0, false, Map.of(),
                        FIXED_HEAP)) {
                    Thread.sleep(3000); // settle
                    int threads = t.child().threads(); // before any jcmd: its attach listener is a thread too
                    List<String> names = t.child().threadNames();
                    double rss = t.child().rssKiB() / 1024.0;
                    Map<String, Long> nmt = t.child().nativeMemoryKiB();
                    double trimmed = t.child().trimNativeHeap() ? t.child().rssKiB() / 1024.0 : Double.NaN;
                    run = new FootprintRun(t.startupMs(), rss, trimmed, t.child().liveHeapKiB() / 1024.0, threads, names, nmt);
                }
                runs.get(i).add(run);
                say("footprint %s #%d: startup %.0f ms, RSS %.1f MiB, live heap %.1f MiB, %d threads, NMT committed %.1f MiB",
                        i == 0 ? "vitals" : "actuator", n + 1, run.startupMs(), run.rssMiB(), run.liveHeapMiB(), run.threads(),
                        run.nativeKiB().getOrDefault("Total", 0L) / 1024.0);
            }
        }
        String s = "footprint (spring example)";
        String ref = "same app, vitals.enabled=false";
        String starts = pairs + (pairs == 1 ? " start" : " starts") + " each, alternating";
        List<FootprintRun> on = runs.get(0);
        List<FootprintRun> off = runs.get(1);
        List<Row> rows = new ArrayList<>();
        rows.add(aimRow(s, "startup to liveness 200 (median)", "ms", median(on, FootprintRun::startupMs), ref,
                median(off, FootprintRun::startupMs), STARTUP_AIM_MS, starts));
        rows.add(aimRow(s, "RSS after start (median)", "MiB", median(on, FootprintRun::rssMiB), ref,
                median(off, FootprintRun::rssMiB), RSS_AIM_MIB, "both sides " + String.join(" ", FIXED_HEAP) + " -Xmx256m"));
        if (on.stream().allMatch(r -> !Double.isNaN(r.trimmedRssMiB())) && off.stream().allMatch(r -> !Double.isNaN(r.trimmedRssMiB()))) {
            rows.add(Row.of(s, "RSS after malloc trim (median)", "MiB", median(on, FootprintRun::trimmedRssMiB), ref,
                    median(off, FootprintRun::trimmedRssMiB)).withNote(String.format(Locale.ROOT, "%+.1f MiB; jcmd System.trim_native_heap,"
                    + " after the RSS above: what of it was the C library's free memory",
                    median(on, FootprintRun::trimmedRssMiB) - median(off, FootprintRun::trimmedRssMiB))));
        } else {
            rows.add(new Row(s, "RSS after malloc trim (median)", "MiB", java.util.OptionalDouble.empty(), ref,
                    java.util.OptionalDouble.empty(), "", Optional.empty(), "this JDK has no System.trim_native_heap"));
        }
        rows.add(aimRow(s, "JVM threads at idle (median)", "", median(on, r -> r.threads()), ref,
                median(off, r -> r.threads()), THREADS_AIM, threadsNote(on.get(on.size() - 1).threadNames(),
                        off.get(off.size() - 1).threadNames())));
        rows.add(Row.of(s, "live heap after full GC (median)", "MiB", median(on, FootprintRun::liveHeapMiB), ref,
                median(off, FootprintRun::liveHeapMiB)));
        rows.addAll(nativeMemoryRows(s, ref, on, off));
        for (String module : List.of("vitals-core", "vitals-server", "vitals-micrometer", "vitals-spring-boot")) {
            rows.addAll(jarRows(module));
        }
        return rows;
    }

    /** A row whose goal is Vitals − reference ≤ {@code aim}, the difference in its note. */
    private static Row aimRow(String s, String metric, String unit, double vitals, String ref, double refValue, double aim,
            String note) {
        double delta = vitals - refValue;
        String u = unit.isEmpty() ? "" : " " + unit;
        return Row.of(s, metric, unit, vitals, ref, refValue)
                .withGoal("vitals - reference <= +" + ResultTable.format(aim) + u, delta <= aim)
                .withNote(String.format(Locale.ROOT, "%+.1f%s; %s", delta, u, note));
    }

    private static double median(List<FootprintRun> runs, java.util.function.ToDoubleFunction<FootprintRun> figure) {
        return Stats.percentile(runs.stream().mapToDouble(figure).toArray(), 50);
    }

    /** NMT committed memory, medians per category, for where the RSS difference goes. */
    private static List<Row> nativeMemoryRows(String s, String ref, List<FootprintRun> on, List<FootprintRun> off) {
        List<String> categories = new ArrayList<>(NMT_SHOWN);
        for (FootprintRun r : on) {
            r.nativeKiB().keySet().stream().filter(c -> !categories.contains(c)).forEach(categories::add);
        }
        List<Row> rows = new ArrayList<>();
        for (String c : categories) {
            double v = median(on, r -> r.nativeKiB().getOrDefault(c, 0L) / 1024.0);
            double o = median(off, r -> r.nativeKiB().getOrDefault(c, 0L) / 1024.0);
            if (NMT_SHOWN.contains(c) || Math.abs(v - o) >= 0.25) {
                rows.add(Row.of(s, "NMT committed: " + c + " (median)", "MiB", v, ref, o)
                        .withNote(String.format(Locale.ROOT, "%+.2f MiB", v - o)));
            }
        }
        return rows;
    }

    /**
     * @return the threads Vitals adds at idle, by name ({@code comm}, 15 characters; repeated
     *     names counted), with what each is for, and those only the reference has
     */
    static String threadsNote(List<String> on, List<String> off) {
        Map<String, Integer> added = new java.util.TreeMap<>();
        added(off, on).forEach(n -> added.merge(n, 1, Integer::sum));
        List<String> missing = added(on, off);
        StringBuilder b = new StringBuilder("added:");
        added.forEach((name, count) -> b.append(' ').append(name).append(count > 1 ? " x" + count : "")
                .append(" (").append(purpose(name)).append(')'));
        if (added.isEmpty()) {
            b.append(" none");
        }
        if (!missing.isEmpty()) {
            b.append("; only without vitals: ").append(String.join(" ", missing));
        }
        return b.toString();
    }

    /** @return what a thread of the Spring example with Vitals is for, from its name ({@code comm}); docs/benchmarks.md says more */
    static String purpose(String comm) {
        if (comm.startsWith("vitals-schedule")) {
            return "scheduler";
        }
        if (comm.startsWith("vitals-probe")) {
            return "probe server loop";
        }
        if (comm.startsWith("vitals-listener")) {
            return "listener delivery";
        }
        if (comm.startsWith("vitals-check")) {
            return "check run";
        }
        return comm.startsWith("vitals-") ? "Vitals" : "not Vitals'";
    }

    /** Jar size of a module and of its runtime dependencies (from target/runtime-classpath.txt, written at package: root pom). */
    private List<Row> jarRows(String module) throws IOException {
        Path dir = paths.root().resolve(module).resolve("target");
        Path jar = dir.resolve(module + "-0.1.0-SNAPSHOT.jar");
        if (!Files.isRegularFile(jar)) {
            return List.of(new Row("jars", module + " jar", "KiB", OptionalDouble.empty(), "-",
                    OptionalDouble.empty(), "", Optional.empty(), "not built: " + jar));
        }
        double own = Files.size(jar) / 1024.0;
        Path cp = dir.resolve("runtime-classpath.txt");
        Row ownRow = new Row("jars", module + " jar", "KiB", OptionalDouble.of(own), "-",
                OptionalDouble.empty(), "", Optional.empty(), "");
        if (!Files.isRegularFile(cp)) {
            return List.of(ownRow, new Row("jars", module + " + runtime deps", "KiB", OptionalDouble.empty(), "-",
                    OptionalDouble.empty(), "", Optional.empty(), "no " + cp + " (mvn package writes it)"));
        }
        String text = Files.readString(cp).trim();
        long total = Files.size(jar);
        List<String> names = new ArrayList<>();
        if (!text.isEmpty()) {
            for (String entry : text.split(java.io.File.pathSeparator)) {
                Path p = Path.of(entry);
                if (Files.isRegularFile(p)) {
                    total += Files.size(p);
                    names.add(p.getFileName().toString().replaceAll("-[0-9][^-]*(\\.Final|-SNAPSHOT)?\\.jar$", ""));
                } else if (Files.isDirectory(p)) {
                    throw new IllegalStateException(cp + " names a directory, " + p + ": build with package first");
                }
            }
        }
        String shown = names.size() <= 5 ? String.join(" ", names) : String.join(" ", names.subList(0, 5)) + " ...";
        return List.of(ownRow, new Row("jars", module + " + runtime deps", "KiB", OptionalDouble.of(total / 1024.0), "-",
                OptionalDouble.empty(), "", Optional.empty(), names.size() + " jars" + (names.isEmpty() ? "" : ": " + shown)));
    }

    // ------------------------------------------------------------------ helpers

    private static void sleepUntil(long nanoTime) throws InterruptedException {
        long left = nanoTime - System.nanoTime();
        if (left > 0) {
            TimeUnit.NANOSECONDS.sleep(left);
        }
    }

    private static java.util.concurrent.ThreadFactory daemon(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }
}
