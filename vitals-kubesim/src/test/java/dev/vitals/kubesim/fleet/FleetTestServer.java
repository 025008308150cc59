package dev.vitals.kubesim.fleet;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;

/**
 * A replica for the live engine's tests: an application on {@code PORT} with a pool of
 * {@code workers} threads where {@code GET /} holds a worker {@code serviceMs}, {@code /healthz}
 * answers on that same pool (the naive wiring), and {@code /livez} and {@code /readyz} on
 * {@code PROBE_PORT} from a thread of their own (isolated); {@code /readyz} fails while
 * {@code DEPENDENCY_PORT} (when set) refuses a connection. Answers {@code startMs} after its JVM
 * started (at once when the JVM took longer). With {@code stopMs} > 0, on SIGTERM it stops
 * accepting and lets requests in service finish for up to that long (whole seconds, at least 1).
 *
 * <p>In a rollout ({@code VERSION=new}, {@link LiveFleet#rolloutEnvironment}) it is the new
 * version as the rollout declares it: it answers {@code ROLLOUT_START_MS} after its JVM started;
 * its service time is {@code serviceMs × ROLLOUT_WARMUP_FACTOR} at first, falling linearly to
 * {@code serviceMs} over {@code ROLLOUT_WARMUP_PERIOD_MS} since it began answering (a cold JIT);
 * with {@code ROLLOUT_READINESS=warmed} its {@code /readyz} answers 503 until then (vitals-core
 * {@code Warmup}). Arguments: workers serviceMs startMs [stopMs].
 */
public final class FleetTestServer {
    private FleetTestServer() {
    }

    public static void main(String[] args) throws Exception {
        int workers = Integer.parseInt(args[0]);
        long serviceMs = Long.parseLong(args[1]);
        boolean isNew = "new".equals(System.getenv("VERSION"));
        long stopMs = args.length > 3 ? Long.parseLong(args[3]) : 0;
        long startMs = isNew ? Long.parseLong(System.getenv("ROLLOUT_START_MS")) : Long.parseLong(args[2]);
        double factor = isNew ? Double.parseDouble(System.getenv("ROLLOUT_WARMUP_FACTOR")) : 1;
        long warmupMs = isNew ? Long.parseLong(System.getenv("ROLLOUT_WARMUP_PERIOD_MS")) : 0;
        boolean readyWhenWarm = isNew && "warmed".equals(System.getenv("ROLLOUT_READINESS"));
        int port = Integer.parseInt(System.getenv("PORT"));
        int probePort = Integer.parseInt(System.getenv("PROBE_PORT"));
        Thread.sleep(Math.max(0, startMs - java.lang.management.ManagementFactory.getRuntimeMXBean().getUptime()));
        long up = System.nanoTime();
        // the service-time multiplier now: factor at first, falling linearly to 1 over warmupMs
        java.util.function.DoubleSupplier cold = () -> {
            double since = (System.nanoTime() - up) / 1e6;
            return factor <= 1 || since >= warmupMs ? 1 : 1 + (factor - 1) * (1 - since / warmupMs);
        };
        HttpServer probes = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), probePort), 50);
        String depPort = System.getenv("DEPENDENCY_PORT");
        probes.createContext("/readyz", ex -> answer(ex, (readyWhenWarm && cold.getAsDouble() > 1)
                || !(depPort == null || reachable(Integer.parseInt(depPort))) ? 503 : 200, "ready?"));
        probes.createContext("/", ex -> answer(ex, 200, "ok"));
        probes.setExecutor(Executors.newSingleThreadExecutor());
        probes.start();
        HttpServer app = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1000);
        app.createContext("/healthz", ex -> answer(ex, 200, "ok"));
        app.createContext("/", ex -> {
            try {
                Thread.sleep(Math.round(serviceMs * cold.getAsDouble()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            answer(ex, 200, "done by replica " + System.getenv("REPLICA"));
        });
        app.setExecutor(Executors.newFixedThreadPool(workers));
        app.start();
        if (stopMs > 0) { // SIGTERM: stop accepting, let requests in service finish for up to stopMs (whole seconds)
            Runtime.getRuntime().addShutdownHook(new Thread(() -> app.stop((int) Math.max(1, stopMs / 1000))));
        }
        System.out.println("replica " + System.getenv("REPLICA") + " listening on " + port + ", probes on " + probePort);
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
