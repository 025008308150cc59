package dev.vitals.agent.impl;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.vitals.Health;
import dev.vitals.HealthRegistry;
import dev.vitals.Status;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;

class AppReadinessTest {
    /**
     * An application that answers every request after 250 ms (a busy machine): one run's
     * readiness-timeout (1 s) reaches 2 or 3 candidates, and its endpoint {@code /healthz} is the
     * 8th. Each run goes on from the candidates ruled out before; starting over each run, as the
     * agent did, never got there (the naive demo under load was never started: row
     * incident-agent, one run in three).
     */
    @Test
    void aSlowApplicationsEndpointIsFoundOverSeveralRuns() throws Exception {
        HttpServer app = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        List<String> asked = java.util.Collections.synchronizedList(new ArrayList<>());
        app.createContext("/", ex -> {
            asked.add(ex.getRequestURI().getPath());
            try {
                Thread.sleep(250);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            int status = ex.getRequestURI().getPath().equals("/healthz") ? 200 : 404;
            ex.sendResponseHeaders(status, -1);
            ex.close();
        });
        app.setExecutor(Executors.newFixedThreadPool(4));
        app.start();
        try (HealthRegistry r = HealthRegistry.builder().build()) {
            int port = app.getAddress().getPort();
            AgentOptions o = AgentOptions.resolve("readiness-timeout=1s,app-port=" + port, new Properties(), Map.of());
            AppReadiness readiness = new AppReadiness(o, () -> List.of(port), r::availability, ports -> { });
            Health first = readiness.check();
            assertThat(first.status()).as(first.toString()).isEqualTo(Status.DOWN);
            Health h = first;
            for (int run = 2; run <= 12 && h.status() != Status.UP; run++) {
                h = readiness.check();
            }
            assertThat(h.status()).as(h + " after asking " + asked).isEqualTo(Status.UP);
            assertThat(h.details()).containsEntry("endpoint", "http://127.0.0.1:" + port + "/healthz");
            assertThat(asked.stream().filter(p -> p.equals("/actuator/health/readiness")).count())
                    .as("each candidate asked once: " + asked).isEqualTo(1);
        } finally {
            app.stop(0);
            ((java.util.concurrent.ExecutorService) app.getExecutor()).shutdownNow();
        }
    }
}
