package dev.vitals.kubesim.fleet;

import dev.vitals.kubesim.model.KubeletOptions;
import dev.vitals.kubesim.model.ProbeOutcome;
import dev.vitals.kubesim.model.ProbeResult;
import dev.vitals.kubesim.probe.Prober;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code vitals fleet calibrate}: measures one live replica so the model describes the user's
 * service. Starts the command with {@code PORT}, {@code PROBE_PORT} and {@code REPLICA=0},
 * measures the start time (process start until {@code GET <path>} first answers 2xx/3xx), the
 * service time at concurrency 1 (p10, p50, p90 of sequential requests after a warm-up) and the
 * capacity (requests per second at concurrency 1, 2, 4, … until doubling adds less than 10 %),
 * and derives workers ≈ capacity × p50 service time (Little's law). Each request is a new
 * connection. Blocks; not thread-safe; one run per instance.
 */
public final class Calibration {
    private final List<String> command;
    private static final Prober PROBER = new Prober("127.0.0.1", Map.of(), KubeletOptions.defaults().kubeletVersion());
    private final String path;
    private final int requests;
    private final int maxConcurrency;
    private final Duration startLimit;
    private final ProcessBuilder.Redirect output;

    /**
     * The measurements.
     *
     * @param startSeconds process start until the first 2xx/3xx answer
     * @param serviceP10Ms service time at concurrency 1, 10th percentile, ms
     * @param serviceP50Ms median, ms
     * @param serviceP90Ms 90th percentile, ms
     * @param capacityPerSecond the most requests per second measured
     * @param saturatedAt the concurrency where doubling stopped adding throughput
     * @param workers capacity × p50 service time, at least 1
     */
    public record Result(double startSeconds, double serviceP10Ms, double serviceP50Ms, double serviceP90Ms,
            double capacityPerSecond, int saturatedAt, int workers) {

        /** @return the model's fields, as YAML to paste into a fleet file */
        public String yaml() {
            return String.format(Locale.ROOT, "replica: {workers: %d, startTime: %.1fs}%n"
                    + "# for each client population of this path:%n# serviceTime: {min: %.0fms, max: %.0fms}%n",
                    workers, startSeconds, serviceP10Ms, serviceP90Ms);
        }

        /** @return a few lines for a terminal */
        public String text() {
            return String.format(Locale.ROOT, "start time %.2f s; service time p10 %.1f ms, p50 %.1f ms, p90 %.1f ms;%n"
                    + "capacity %.1f requests/s (saturated at concurrency %d); workers ≈ %d%n", startSeconds, serviceP10Ms, serviceP50Ms,
                    serviceP90Ms, capacityPerSecond, saturatedAt, workers);
        }
    }

    /**
     * @param command the replica's command
     * @param path the path to request, e.g. {@code /}
     * @param requests sequential requests for the service time, 5–10,000
     * @param maxConcurrency the highest concurrency tried, 1–1,024
     * @param startLimit how long to wait for the first answer
     * @param output where the process's output goes
     * @throws IllegalArgumentException naming a bad value
     */
    public Calibration(List<String> command, String path, int requests, int maxConcurrency, Duration startLimit,
            ProcessBuilder.Redirect output) {
        this.command = List.copyOf(command);
        this.path = Objects.requireNonNull(path, "path");
        this.startLimit = Objects.requireNonNull(startLimit, "startLimit");
        this.output = Objects.requireNonNull(output, "output");
        if (command.isEmpty()) {
            throw new IllegalArgumentException("calibrate needs a command after --");
        }
        if (!path.startsWith("/")) {
            throw new IllegalArgumentException("--path must start with /, was '" + path + "'");
        }
        if (requests < 5 || requests > 10_000) {
            throw new IllegalArgumentException("--requests must be 5-10000, was " + requests);
        }
        if (maxConcurrency < 1 || maxConcurrency > 1024) {
            throw new IllegalArgumentException("--max-concurrency must be 1-1024, was " + maxConcurrency);
        }
        this.requests = requests;
        this.maxConcurrency = maxConcurrency;
    }

    /**
     * @return the measurements
     * @throws IllegalStateException when the command cannot start, exits, or never answers in time
     * @throws InterruptedException when interrupted (the process is killed)
     */
    public Result run() throws InterruptedException {
        int port = LiveFleet.freePort();
        int probePort = LiveFleet.freePort();
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output);
        pb.environment().putAll(Map.of("PORT", Integer.toString(port), "PROBE_PORT", Integer.toString(probePort), "REPLICA", "0"));
        long t0 = System.nanoTime();
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot start " + command.get(0) + ": " + e.getMessage());
        }
        ExecutorService pool = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "vitals-fleet-calibrate");
            t.setDaemon(true);
            return t;
        });
        try {
            double start = startTime(p, port, t0);
            Latencies l = latencies(port);
            Throughput x = throughput(pool, port);
            int workers = (int) Math.max(1, Math.round(x.best() * l.p50() / 1000));
            return new Result(round(start), round(l.p10()), round(l.p50()), round(l.p90()), round(x.best()), x.saturated(), workers);
        } finally {
            pool.shutdownNow();
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            p.waitFor(5, TimeUnit.SECONDS);
        }
    }

    /** @return seconds from the start until the first answer on {@code port}, within the start limit */
    private double startTime(Process p, int port, long t0) throws InterruptedException {
        long deadline = t0 + startLimit.toNanos();
        while (System.nanoTime() < deadline) {
            if (!p.isAlive()) {
                throw new IllegalStateException(command.get(0) + " exited with code " + p.exitValue() + " before it answered GET "
                        + path + " on PORT " + port);
            }
            if (get(port, 2000) >= 0) {
                return (System.nanoTime() - t0) / 1e9;
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException(command.get(0) + " did not answer GET " + path + " on PORT " + port + " within "
                + startLimit.toSeconds() + " s");
    }

    /** One request's latency percentiles, ms. */
    private record Latencies(double p10, double p50, double p90) {
    }

    /** @return the latencies of {@code requests} requests one at a time, after up to 20 to warm up */
    private Latencies latencies(int port) {
        for (int i = 0; i < Math.min(20, requests); i++) {
            get(port, 30_000); // warm-up
        }
        double[] ms = new double[requests];
        int ok = 0;
        for (int i = 0; i < requests; i++) {
            double l = get(port, 30_000);
            if (l >= 0) {
                ms[ok++] = l;
            }
        }
        if (ok == 0) {
            throw new IllegalStateException("no request to GET " + path + " succeeded after start-up");
        }
        double[] sorted = Arrays.copyOf(ms, ok);
        Arrays.sort(sorted);
        return new Latencies(sorted[(int) (0.1 * (ok - 1))], sorted[(int) (0.5 * (ok - 1))], sorted[(int) (0.9 * (ok - 1))]);
    }

    /** The best throughput seen, per second, and the concurrency where doubling stopped paying (10 % or more). */
    private record Throughput(double best, int saturated) {
    }

    /** @return the throughput at concurrency 1, 2, 4, … up to the maximum, until doubling gains less than 10 % */
    private Throughput throughput(ExecutorService pool, int port) throws InterruptedException {
        double best = 0;
        int saturated = 1;
        double previous = 0;
        for (int c = 1; c <= maxConcurrency; c *= 2) {
            double x = throughput(pool, port, c, Math.max(20, 4 * c));
            if (x > best) {
                best = x;
            }
            saturated = c;
            if (previous > 0 && x < 1.1 * previous) {
                break;
            }
            previous = x;
        }
        return new Throughput(best, saturated);
    }

    private double throughput(ExecutorService pool, int port, int concurrency, int total) throws InterruptedException {
        AtomicInteger left = new AtomicInteger(total);
        AtomicInteger done = new AtomicInteger();
        long t0 = System.nanoTime();
        long limit = t0 + TimeUnit.SECONDS.toNanos(20);
        List<Future<?>> fs = new ArrayList<>();
        for (int i = 0; i < concurrency; i++) {
            fs.add(pool.submit(() -> {
                while (left.getAndDecrement() > 0 && System.nanoTime() < limit) {
                    if (get(port, 30_000) >= 0) {
                        done.incrementAndGet();
                    }
                }
            }));
        }
        for (Future<?> f : fs) {
            try {
                f.get(Math.max(1, limit + TimeUnit.SECONDS.toNanos(30) - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                f.cancel(true);
            }
        }
        return done.get() / ((System.nanoTime() - t0) / 1e9);
    }

    /** @return the latency in ms of a 2xx/3xx answer, or -1 (the simulator's one GET: {@link Prober#get}) */
    private double get(int port, int timeoutMs) {
        ProbeOutcome o = PROBER.get(port, path, Duration.ofMillis(timeoutMs));
        return o.result().counted() == ProbeResult.SUCCESS ? o.latency().toNanos() / 1e6 : -1;
    }

    private static double round(double v) {
        return Math.round(v * 100) / 100.0;
    }
}
