package dev.vitals.kubesim.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class SustainedLoadTest {

    private static SustainedLoad start(int port, int clients, Duration sustain, Duration timeout) {
        List<String> paths = IntStream.rangeClosed(1, 100).mapToObj(n -> "/reports/export?costCenter=CC-" + n).toList();
        return SustainedLoad.start(new LoadGenerator.Sustained(clients, paths, port, sustain, timeout), "127.0.0.1");
    }

    @Test
    void clientsResendUntilTheSustainEndsThenStop() throws Exception {
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger maxInFlight = new AtomicInteger();
        AtomicReference<String> path = new AtomicReference<>();
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        server.setExecutor(pool);
        server.createContext("/", ex -> {
            int now = inFlight.incrementAndGet();
            maxInFlight.accumulateAndGet(now, Math::max);
            path.set(ex.getRequestURI().toString());
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            byte[] b = "ok".getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(200, b.length);
            ex.getResponseBody().write(b);
            ex.close();
            inFlight.decrementAndGet();
        });
        server.start();
        try {
            // A 3 s sustain: at load 20 on 2 cores (a parallel build beside other builds) one 50 ms request took
            // longer than a 1 s sustain, and no client re-sent (sent == 4).
            SustainedLoad load = start(server.getAddress().getPort(), 4, Duration.ofSeconds(3), Duration.ofSeconds(5));
            await().atMost(Duration.ofSeconds(20)).until(() -> !load.running());
            int sent = load.sent();
            assertThat(load.ok()).isEqualTo(sent);
            assertThat(sent).isGreaterThan(4); // re-sent, not just one each
            assertThat(maxInFlight.get()).isLessThanOrEqualTo(4);
            assertThat(path.get()).startsWith("/reports/export?costCenter=CC-");
            assertThat(load.totals()).startsWith(sent + " sent: " + sent + " ok");
            Thread.sleep(300);
            assertThat(load.sent()).isEqualTo(sent); // nothing after the sustain
        } finally {
            server.stop(0);
            pool.shutdownNow();
        }
    }

    @Test
    void aRefusingTargetCostsARetryDelayNotAStorm() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        SustainedLoad load = start(port, 3, Duration.ofMillis(1000), Duration.ofSeconds(2));
        await().atMost(Duration.ofSeconds(20)).until(() -> !load.running());
        // each client waits 250 ms after a refusal: at most about 1000 / 250 + 1 attempts each
        assertThat(load.sent()).isBetween(3, 3 * 6);
        assertThat(load.ok()).isZero();
        assertThat(load.totals()).contains("refused/broken");
    }

    @Test
    void stopEndsTheClientsAtOnce() throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        server.setExecutor(pool);
        server.createContext("/", ex -> {
            try {
                Thread.sleep(30_000); // never answers within the test
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            ex.close();
        });
        server.start();
        try {
            SustainedLoad load = start(server.getAddress().getPort(), 2, Duration.ofSeconds(60), Duration.ofSeconds(60));
            await().atMost(Duration.ofSeconds(10)).until(() -> load.sent() == 2);
            load.cancel();
            await().atMost(Duration.ofSeconds(10)).until(() -> !load.running());
        } finally {
            server.stop(0);
            pool.shutdownNow();
        }
    }
}
