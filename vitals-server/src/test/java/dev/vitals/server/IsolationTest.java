package dev.vitals.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.vitals.Groups;
import dev.vitals.Health;
import dev.vitals.HealthRegistry;
import dev.vitals.Status;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/** Probes keep answering while the application is saturated, and never wait behind a check. */
@ParameterizedClass
@EnumSource(ProbeServer.Transport.class)
class IsolationTest {
    @Parameter
    ProbeServer.Transport transport;

    static final int APP_WORKERS = 40;
    static final int SLOW_REQUESTS = 50;
    static final int PROBES = 20;
    static final int PROBE_TIMEOUT_MILLIS = 1000; // kubelet's default timeoutSeconds

    @Test
    void livenessIsServedOffTheSaturatedApplicationPool() throws Exception { // case C05
        HealthRegistry registry = HealthRegistry.builder()
                .register(Fixtures.scheduled("progress", Health::up, Groups.LIVENESS))
                .build();
        registry.start();
        ExecutorService appPool = Executors.newFixedThreadPool(APP_WORKERS);
        ExecutorService clients = Executors.newFixedThreadPool(SLOW_REQUESTS + 2 * PROBES);
        HttpServer app = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 200);
        AtomicInteger holding = new AtomicInteger();
        CountDownLatch release = new CountDownLatch(1);
        app.createContext("/slow", ex -> {
            holding.incrementAndGet();
            try {
                release.await(3, TimeUnit.SECONDS); // each slow request holds a worker for at most 3 s
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            reply(ex, "done");
        });
        app.createContext("/health", ex -> reply(ex, "ok")); // the naive wiring: health on the app's own pool
        app.setExecutor(appPool);
        app.start();
        ProbeServer probes = ProbeServer.builder(registry).transport(transport).bindAddress(InetAddress.getLoopbackAddress()).port(0).build().start();
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> registry.report(Groups.LIVENESS).status() == Status.UP);
            int appPort = app.getAddress().getPort();
            List<Future<RawHttp.Response>> slow = new ArrayList<>();
            for (int i = 0; i < SLOW_REQUESTS; i++) {
                slow.add(clients.submit(() -> RawHttp.exchange(appPort,
                        "GET /slow HTTP/1.1\r\nHost: app\r\nConnection: close\r\n\r\n", 15_000)));
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> holding.get() == APP_WORKERS);

            // During the burst: the same probes to both listeners, at once.
            List<Future<Boolean>> onProbeServer = new ArrayList<>();
            List<Future<Boolean>> onAppPool = new ArrayList<>();
            for (int i = 0; i < PROBES; i++) {
                onProbeServer.add(clients.submit(() -> probe(probes.port(), "/livez")));
                onAppPool.add(clients.submit(() -> probe(appPort, "/health")));
            }
            int probeOk = count(onProbeServer);
            int appOk = count(onAppPool);
            assertThat(holding.get()).as("the burst was still holding every worker").isEqualTo(APP_WORKERS);
            release.countDown();

            assertThat(probeOk).as("probe server answers during the burst").isEqualTo(PROBES);
            assertThat((double) appOk / PROBES).as("share of app-pool health probes answered in time").isLessThanOrEqualTo(0.2);
            for (Future<RawHttp.Response> f : slow) {
                assertThat(f.get(15, TimeUnit.SECONDS).body).isEqualTo("done"); // the application was busy, not broken
            }
        } finally {
            release.countDown();
            probes.stop(Duration.ZERO);
            app.stop(0);
            appPool.shutdownNow();
            clients.shutdownNow();
            registry.close();
        }
    }

    @Test
    void livenessNeverWaitsBehindASlowReadinessEvaluation() throws Exception { // case C09
        CountDownLatch started = new CountDownLatch(1);
        HealthRegistry registry = HealthRegistry.builder()
                .register(Fixtures.scheduled("progress", Health::up, Groups.LIVENESS))
                .register(dev.vitals.Check.builder("slow-db", () -> {
                    started.countDown();
                    Thread.sleep(3000);
                    return Health.up();
                }).groups(Groups.READINESS).mode(dev.vitals.Mode.ON_DEMAND).timeout(Duration.ofSeconds(5)).build())
                .build();
        registry.start();
        registry.availability().markStartupComplete();
        // A budget past the check's 3 s, so the readiness answer waits for it (ProbeBudgetTest covers the budget).
        ProbeServer server = ProbeServer.builder(registry).transport(transport).bindAddress(InetAddress.getLoopbackAddress()).port(0)
                .eventLoopThreads(1).probeBudget(Duration.ofSeconds(10)).build().start();
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> registry.report(Groups.LIVENESS).status() == Status.UP);
            CompletableFuture<RawHttp.Response> ready = CompletableFuture.supplyAsync(() -> {
                try {
                    return RawHttp.exchange(server.port(), "GET /readyz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 10_000);
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            });
            assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
            for (int i = 0; i < 10; i++) {
                assertThat(probe(server.port(), "/livez")).as("liveness probe " + i).isTrue();
            }
            assertThat(ready).as("readiness is still being evaluated after 10 liveness answers").isNotDone();
            assertThat(ready.get(10, TimeUnit.SECONDS).body).isEqualTo("ok");
        } finally {
            server.stop(Duration.ZERO);
            registry.close();
        }
    }

    /** A kubelet-like probe: fresh connection, Connection: close, 1 s timeout; true on 200 "ok". */
    static boolean probe(int port, String path) {
        try {
            RawHttp.Response r = RawHttp.exchange(port, "GET " + path + " HTTP/1.1\r\nHost: x\r\nUser-Agent: kube-probe/1.33\r\n"
                    + "Connection: close\r\n\r\n", PROBE_TIMEOUT_MILLIS);
            return r.status == 200 && r.body.equals("ok");
        } catch (IOException timedOut) {
            return false;
        }
    }

    static int count(List<Future<Boolean>> results) throws Exception {
        int ok = 0;
        for (Future<Boolean> f : results) {
            ok += f.get(10, TimeUnit.SECONDS) ? 1 : 0;
        }
        return ok;
    }

    static void reply(HttpExchange ex, String body) throws IOException {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        ex.sendResponseHeaders(200, b.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(b);
        }
    }
}
