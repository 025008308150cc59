package dev.vitals.kubesim.fleet;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A real process that behaves as a fleet file's replica declares, for the live engine when the
 * point is the fleet's dynamics (the Service, the probes, the Deployment controller, real
 * sockets and timing) rather than one application's own: {@code vitals replay rollout --live}
 * and the model-vs-live tests. It is a real HTTP server, not a model: its service times are real
 * sleeps on a real pool of worker threads.
 *
 * <ul>
 * <li>On {@code PORT}: {@code GET /healthz} answered on the worker pool (the naive wiring); any
 *     other path holds one of {@code workers} threads for a service time drawn uniformly from
 *     {@code [serviceMs, serviceMaxMs]} times the warm-up factor.</li>
 * <li>On {@code PROBE_PORT}, from a thread of its own (isolated): {@code /readyz} and
 *     {@code /readiness} (503 while
 *     {@code DEPENDENCY_PORT}, when set, refuses a connection within 300 ms, or, with warmed
 *     readiness, while it is warming up) and anything else 200.</li>
 * <li>It answers {@code startMs} after its process started (at once when the JVM took longer); its
 *     service times start at {@code × warmupFactor}, falling linearly to × 1 over
 *     {@code warmupMs} since it began answering (a cold JIT). With {@code stopMs} &gt; 0, on SIGTERM
 *     it stops accepting and lets requests in service finish for up to that long (whole seconds,
 *     at least 1).</li>
 * <li>In a rollout, as the new version ({@code VERSION=new}, {@link LiveFleet#rolloutEnvironment}),
 *     the rollout's figures replace start and warm-up: {@code ROLLOUT_START_MS},
 *     {@code ROLLOUT_WARMUP_FACTOR}, and {@code ROLLOUT_WARMUP_PERIOD_MS} or
 *     {@code ROLLOUT_WARMUP_REQUESTS} (the factor falls with requests served); with
 *     {@code ROLLOUT_READINESS=warmed} {@code /readyz} answers 503 until warm (vitals-core
 *     {@code Warmup}), and with a request count its warm-up routine sends them itself on its
 *     free workers.</li>
 * </ul>
 * Arguments (milliseconds): {@code workers serviceMs startMs [stopMs [serviceMaxMs [warmupFactor warmupMs]]]}.
 */
public final class SyntheticReplica {
    private SyntheticReplica() {
    }

    /**
     * @param workers worker threads, ≥ 1
     * @param serviceMs shortest service time
     * @param serviceMaxMs longest service time (≥ serviceMs)
     * @param startMs from JVM start until it answers
     * @param stopMs SIGTERM drain (0: exit at once)
     * @param warmupFactor service-time multiplier at first, ≥ 1
     * @param warmupMs the factor falls to 1 over this long
     * @return the command line that runs one, with this JVM's {@code java} and the class's code source
     */
    public static List<String> command(int workers, long serviceMs, long serviceMaxMs, long startMs, long stopMs, double warmupFactor,
            long warmupMs) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-XX:TieredStopAtLevel=1");
        cmd.add("-XX:CICompilerCount=1");
        cmd.add("-Xshare:auto");
        cmd.add("-cp");
        cmd.add(dev.vitals.kubesim.runtime.CodeSources.codeSourceOf(SyntheticReplica.class)
                .orElseThrow(() -> new IllegalStateException("no code source for " + SyntheticReplica.class.getName())).toString());
        cmd.add(SyntheticReplica.class.getName());
        for (Object a : new Object[] {workers, serviceMs, startMs, stopMs, serviceMaxMs, warmupFactor, warmupMs}) {
            cmd.add(a.toString());
        }
        return cmd;
    }

    /**
     * @param replica the spec's replica
     * @param serviceTime the clients' service time, {min, max} ms
     * @return the command of a synthetic replica as the spec declares it
     */
    static List<String> command(FleetSpec.Replica replica, long[] serviceTime) {
        return command(replica.workers(), serviceTime[0], serviceTime[1], replica.startTime().toMillis(), replica.stopTime().toMillis(),
                replica.warmupFactor(), replica.warmupTime().toMillis());
    }

    /**
     * Runs one synthetic replica until killed (the live fleet starts it as a child process).
     *
     * @param args {@code workers serviceMs startMs [stopMs [serviceMaxMs [warmupFactor warmupMs]]]}
     * @throws Exception when its ports cannot be bound
     */
    public static void main(String[] args) throws Exception {
        if (args.length < 3) {
            System.err.println("usage: SyntheticReplica workers serviceMs startMs [stopMs [serviceMaxMs [warmupFactor warmupMs]]]");
            System.exit(2);
        }
        Map<String, String> env = System.getenv();
        int workers = Integer.parseInt(args[0]);
        long serviceMs = Long.parseLong(args[1]);
        long stopMs = args.length > 3 ? Long.parseLong(args[3]) : 0;
        long serviceMaxMs = args.length > 4 ? Long.parseLong(args[4]) : serviceMs;
        boolean isNew = "new".equals(env.get("VERSION"));
        long startMs = isNew ? Long.parseLong(env.get("ROLLOUT_START_MS")) : Long.parseLong(args[2]);
        double factor = isNew ? Double.parseDouble(env.get("ROLLOUT_WARMUP_FACTOR")) : args.length > 6 ? Double.parseDouble(args[5]) : 1;
        long warmupMs = isNew ? Long.parseLong(env.get("ROLLOUT_WARMUP_PERIOD_MS")) : args.length > 6 ? Long.parseLong(args[6]) : 0;
        long warmupRequests = isNew ? Long.parseLong(env.getOrDefault("ROLLOUT_WARMUP_REQUESTS", "0")) : 0;
        boolean readyWhenWarm = isNew && "warmed".equals(env.get("ROLLOUT_READINESS"));
        int port = Integer.parseInt(env.get("PORT"));
        int probePort = Integer.parseInt(env.get("PROBE_PORT"));
        if (startMs > 0) {
            Thread.sleep(Math.max(0, startMs - uptimeMs()));
        }
        long up = System.nanoTime();
        AtomicLong served = new AtomicLong();
        java.util.function.DoubleSupplier cold = cold(factor, warmupMs, warmupRequests, served, up);
        Runnable work = () -> {
            long ms = serviceMaxMs > serviceMs ? ThreadLocalRandom.current().nextLong(serviceMs, serviceMaxMs + 1) : serviceMs;
            try {
                Thread.sleep(Math.round(ms * cold.getAsDouble()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            served.incrementAndGet();
        };
        String depPort = env.get("DEPENDENCY_PORT");
        startProbes(probePort, ex -> answer(ex, (readyWhenWarm && cold.getAsDouble() > 1)
                || !(depPort == null || reachable(Integer.parseInt(depPort))) ? 503 : 200, "ready?"));
        HttpServer app = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1000);
        app.createContext("/healthz", ex -> answer(ex, 200, "ok"));
        app.createContext("/", ex -> {
            work.run();
            answer(ex, 200, "done by replica " + env.get("REPLICA"));
        });
        ExecutorService pool = Executors.newFixedThreadPool(workers);
        app.setExecutor(pool);
        app.start();
        if (readyWhenWarm && warmupRequests > 0) {
            // the warm-up routine: its own requests on the workers, until warm (new requests wait behind them)
            for (long i = 0; i < warmupRequests; i++) {
                pool.execute(work);
            }
        }
        if (stopMs > 0) { // SIGTERM: stop accepting, let requests in service finish for up to stopMs (whole seconds)
            Runtime.getRuntime().addShutdownHook(new Thread(() -> app.stop((int) Math.max(1, stopMs / 1000))));
        }
        System.out.println("replica " + env.get("REPLICA") + " (" + env.getOrDefault("VERSION", "-") + ") listening on " + port
                + ", probes on " + probePort + ", " + uptimeMs() + " ms after its process started; warm-up: service time x" + factor + (warmupRequests > 0 ? " over " + warmupRequests
                + " requests" : " over " + warmupMs + " ms") + (readyWhenWarm ? ", readiness 503 until warm" : ""));
    }

    /**
     * @return the service-time multiplier now: {@code factor} at first, falling linearly to 1 over
     *         {@code warmupMs} since {@code up} or over {@code warmupRequests} served
     */
    private static java.util.function.DoubleSupplier cold(double factor, long warmupMs, long warmupRequests, AtomicLong served,
            long up) {
        return () -> {
            double progress = warmupRequests > 0 ? served.get() / (double) warmupRequests
                    : warmupMs > 0 ? (System.nanoTime() - up) / 1e6 / warmupMs : 1;
            return factor <= 1 || progress >= 1 ? 1 : 1 + (factor - 1) * (1 - progress);
        };
    }

    /** The probe server on its own thread: {@code readiness} at /readyz and /readiness, 200 elsewhere. */
    private static void startProbes(int probePort, com.sun.net.httpserver.HttpHandler readiness) throws java.io.IOException {
        HttpServer probes = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), probePort), 50);
        probes.createContext("/readyz", readiness); // a fleet file's default isolated readiness path
        probes.createContext("/readiness", readiness); // the replays' (FleetScenarios)
        probes.createContext("/", ex -> answer(ex, 200, "ok"));
        probes.setExecutor(Executors.newSingleThreadExecutor());
        probes.start();
    }

    /**
     * @return milliseconds since this process started, to 10 ms: the system's uptime
     *         ({@code /proc/uptime}) less the process's start in clock ticks since boot
     *         ({@code /proc/self/stat} field 22, USER_HZ 100). {@code ProcessHandle}'s start instant
     *         adds the boot time, which Linux gives to the second, so it was up to a second off (a
     *         700 ms start came out as 540 ms). No management beans, which would cost start-up time
     *         under a CPU limit.
     */
    static long uptimeMs() {
        try {
            String stat = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/self/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            long startTicks = Long.parseLong(f[19]); // field 22 (fields after comm start at 3)
            String up = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/uptime"));
            double upSeconds = Double.parseDouble(up.substring(0, up.indexOf(' ')));
            return Math.max(0, Math.round(upSeconds * 1000) - startTicks * 10);
        } catch (java.io.IOException | RuntimeException e) {
            return ProcessHandle.current().info().startInstant()
                    .map(t -> java.time.Duration.between(t, java.time.Instant.now()).toMillis()).orElse(0L);
        }
    }

    /** A critical readiness check of the shared dependency: a TCP connect within 300 ms. */
    private static boolean reachable(int port) {
        try (java.net.Socket s = new java.net.Socket()) {
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 300);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static void answer(HttpExchange ex, int code, String body) throws IOException {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        ex.getRequestBody().readAllBytes();
        ex.sendResponseHeaders(code, b.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(b);
        }
    }
}
