package dev.vitals.demo;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * {@code GET /metrics} in Prometheus' text format (0.0.4) on its own port and its own thread
 * ({@code --metrics-port}, vitals wiring): Vitals' meters ({@code vitals_*}, vitals-micrometer)
 * through Micrometer's Prometheus registry, never behind the application's worker pool, so a
 * scrape still answers while the workers are saturated or stalled (what the alerts watch).
 * Not thread-safe to start and stop concurrently; {@link #close()} is idempotent.
 */
final class MetricsEndpoint implements AutoCloseable {
    private final PrometheusMeterRegistry meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final HttpServer server;
    private final ExecutorService thread = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "vitals-demo-metrics");
        t.setDaemon(true);
        return t;
    });

    MetricsEndpoint(InetSocketAddress address) throws IOException {
        server = HttpServer.create(address, 16);
        server.createContext("/metrics", this::scrape);
        server.setExecutor(thread);
    }

    /** @return the registry to bind meters to */
    PrometheusMeterRegistry registry() {
        return meters;
    }

    void start() {
        server.start();
    }

    int port() {
        return server.getAddress().getPort();
    }

    private void scrape(HttpExchange ex) throws IOException {
        try (ex) {
            if (!"GET".equals(ex.getRequestMethod())) {
                ex.sendResponseHeaders(405, -1);
                return;
            }
            byte[] body = meters.scrape().getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
            ex.sendResponseHeaders(200, body.length);
            try (OutputStream out = ex.getResponseBody()) {
                out.write(body);
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
        thread.shutdownNow();
        meters.close();
    }
}
