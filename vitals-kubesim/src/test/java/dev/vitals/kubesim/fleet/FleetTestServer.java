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
 * {@code DEPENDENCY_PORT} (when set) refuses a connection. Starts after {@code startMs}.
 * Arguments: workers serviceMs startMs.
 */
public final class FleetTestServer {
    private FleetTestServer() {
    }

    public static void main(String[] args) throws Exception {
        int workers = Integer.parseInt(args[0]);
        long serviceMs = Long.parseLong(args[1]);
        long startMs = Long.parseLong(args[2]);
        int port = Integer.parseInt(System.getenv("PORT"));
        int probePort = Integer.parseInt(System.getenv("PROBE_PORT"));
        Thread.sleep(startMs);
        HttpServer probes = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), probePort), 50);
        String depPort = System.getenv("DEPENDENCY_PORT");
        probes.createContext("/readyz", ex -> answer(ex, depPort == null || reachable(Integer.parseInt(depPort)) ? 200 : 503, "ready?"));
        probes.createContext("/", ex -> answer(ex, 200, "ok"));
        probes.setExecutor(Executors.newSingleThreadExecutor());
        probes.start();
        HttpServer app = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1000);
        app.createContext("/healthz", ex -> answer(ex, 200, "ok"));
        app.createContext("/", ex -> {
            try {
                Thread.sleep(serviceMs);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            answer(ex, 200, "done by replica " + System.getenv("REPLICA"));
        });
        app.setExecutor(Executors.newFixedThreadPool(workers));
        app.start();
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
