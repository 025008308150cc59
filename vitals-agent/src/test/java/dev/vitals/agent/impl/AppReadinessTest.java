package dev.vitals.agent.impl;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.vitals.Health;
import dev.vitals.HealthRegistry;
import dev.vitals.Status;
import io.grpc.Server;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The readiness check and start-up gate against real servers on loopback: detection from the
 * loaded framework (the markers given as the loaded classes), one request per candidate on one
 * kept-alive connection, start-up from the framework's started endpoint or its port, never from
 * readiness, and gRPC health over h2c.
 */
class AppReadinessTest {
    /** A real HTTP/1.1 server (JDK's, keep-alive) answering a status per path, 404 otherwise, recording each request. */
    static final class App implements AutoCloseable {
        final HttpServer server;
        final Map<String, Integer> status = new ConcurrentHashMap<>();
        final List<String> asked = Collections.synchronizedList(new ArrayList<>());
        final Set<Integer> connections = ConcurrentHashMap.newKeySet();
        volatile long delayMillis;
        /** Paths that answer only after 20 s (a check hung on a blackholed dependency). */
        final Set<String> hang = ConcurrentHashMap.newKeySet();
        private final ExecutorService pool = Executors.newFixedThreadPool(4);

        App() throws Exception {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
            server.createContext("/", ex -> {
                asked.add(ex.getRequestURI().getPath());
                connections.add(ex.getRemoteAddress().getPort());
                try {
                    Thread.sleep(hang.contains(ex.getRequestURI().getPath()) ? 20_000 : delayMillis);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                byte[] body = "{\"status\":\"x\"}".getBytes(java.nio.charset.StandardCharsets.UTF_8);
                ex.sendResponseHeaders(status.getOrDefault(ex.getRequestURI().getPath(), 404), body.length);
                ex.getResponseBody().write(body);
                ex.close();
            });
            server.setExecutor(pool);
            server.start();
        }

        int port() {
            return server.getAddress().getPort();
        }

        @Override
        public void close() {
            server.stop(0);
            pool.shutdownNow();
        }
    }

    /** Startup completed by the check alone, as in the agent. */
    private static HealthRegistry registry() {
        return HealthRegistry.builder().startupCompletion(dev.vitals.StartupCompletion.MANUAL).build();
    }

    private static AppReadiness readiness(HealthRegistry r, int port, String options, Set<String> loaded) {
        AgentOptions o = AgentOptions.resolve((options.contains("readiness-timeout") ? "" : "readiness-timeout=1s,") + "app-port=" + port
                + (options.isEmpty() ? "" : "," + options),
                new Properties(), Map.of());
        return new AppReadiness(o, () -> List.of(port), r::availability, ports -> { },
                () -> Frameworks.detect(loaded, new Properties()));
    }

    /** Runs the check until start-up completes, at most {@code runs} times; the last result (null if none ran). */
    private static Health untilStarted(AppReadiness readiness, HealthRegistry r, int runs) {
        Health h = null;
        for (int i = 0; i < runs && !r.availability().isStartupComplete(); i++) {
            h = readiness.check();
        }
        return h;
    }

    private static Health runUntil(AppReadiness readiness, Status want, int runs) {
        Health h = readiness.check();
        for (int i = 1; i < runs && h.status() != want; i++) {
            h = readiness.check();
        }
        return h;
    }

    /**
     * Issue 40: while the application answers the same DOWN, the calls back off from
     * readiness-interval, doubling to readiness-backoff-max (frameworks log every call), on one
     * kept-alive connection; the recovery is seen at most readiness-backoff-max late, and once UP
     * every run calls again (a loss of readiness is never seen late).
     */
    @Test
    void readinessPollBacksOffWhileTheAnswerStaysDownOnOneConnection() throws Exception {
        try (App app = new App(); HealthRegistry r = registry()) {
            app.status.put("/health", 503);
            AppReadiness readiness = readiness(r, app.port(),
                    "readiness=/health,readiness-interval=100ms,readiness-max-age=1s,readiness-backoff-max=800ms", Set.of());
            r.availability().markStartupComplete();
            int runs = 0;
            long t0 = System.nanoTime();
            while (System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(4)) {
                Health h = readiness.check();
                assertThat(h.status()).as(h.toString()).isEqualTo(Status.DOWN);
                assertThat(h.message()).hasValue("answered 503");
                runs++;
                Thread.sleep(100);
            }
            int calls = app.asked.size();
            // 4 s of runs every ~100 ms: 100, 200, 400, 800, 800 ... ms apart is at most 1 + 1 + 1 + 1 + 5 calls.
            assertThat(calls).as(calls + " calls in " + runs + " runs").isBetween(3, 10);
            assertThat(runs).isGreaterThan(calls);
            assertThat(app.connections).as("one kept-alive connection").hasSize(1);

            app.status.put("/health", 200);
            int recoveryRuns = 0;
            Health h = readiness.check();
            while (h.status() != Status.UP && recoveryRuns < 20) {
                Thread.sleep(100);
                h = readiness.check();
                recoveryRuns++;
            }
            assertThat(h.status()).as(h.toString()).isEqualTo(Status.UP);
            assertThat(recoveryRuns).as("runs until the recovery was asked").isLessThanOrEqualTo(9);

            int before = app.asked.size();
            for (int i = 0; i < 5; i++) {
                assertThat(readiness.check().status()).isEqualTo(Status.UP);
            }
            assertThat(app.asked.size() - before).as("UP: every run calls").isEqualTo(5);
        }
    }

    /**
     * While the agent drains (SIGTERM), the application is not asked: readiness is DOWN (draining)
     * whatever it answers, and a call may find its checks torn down mid-answer. The last answer
     * stands, unchanged (no transition line).
     */
    @Test
    void theApplicationIsNotAskedWhileDraining() throws Exception {
        try (App app = new App(); HealthRegistry r = registry()) {
            app.status.put("/health", 200);
            AppReadiness readiness = readiness(r, app.port(), "readiness=/health", Set.of());
            r.availability().markStartupComplete();
            Health before = readiness.check();
            assertThat(before.status()).as(before.toString()).isEqualTo(Status.UP);
            int asked = app.asked.size();
            r.availability().drain(java.time.Duration.ofSeconds(30));
            app.status.put("/health", 503);
            for (int i = 0; i < 5; i++) {
                assertThat(readiness.check()).isSameAs(before);
            }
            assertThat(app.asked).as("no call while draining").hasSize(asked);
        }
    }

    /**
     * An unknown framework answering each request after 600 ms (a busy machine): the generic
     * candidates are each asked once, even when one run's timeout (1 s) does not reach them all,
     * and no path outside them is ever asked (no "is this HTTP" request a 404 in access logs).
     */
    @Test
    void aSlowUnknownApplicationsEndpointIsFoundAskingEachCandidateOnce() throws Exception {
        try (App app = new App(); HealthRegistry r = registry()) {
            app.delayMillis = 600;
            app.status.put("/health", 200);
            AppReadiness readiness = readiness(r, app.port(), "", Set.of());
            Health h = runUntil(readiness, Status.UP, 12);
            assertThat(h.status()).as(h + " after asking " + app.asked).isEqualTo(Status.UP);
            assertThat(h.details()).containsEntry("endpoint", "http://127.0.0.1:" + app.port() + "/health");
            assertThat(app.asked).as("each candidate once, nothing else").containsExactly("/readyz", "/healthz", "/health");
            assertThat(app.connections).as("one kept-alive connection").hasSize(1);
            assertThat(r.availability().isStartupComplete()).isTrue();
        }
    }

    /**
     * An unknown application whose every request hangs from boot (its handlers wait on a
     * blackholed dependency): start-up completes once its port has held the request for a full
     * readiness-timeout, readiness stays DOWN "timed out", and the hung candidate is not asked
     * again. Before, start-up never completed and kubelet restarted the pod whatever the hang.
     */
    @Test
    void anUnknownApplicationHungFromBootStillCompletesStartup() throws Exception {
        try (App app = new App(); HealthRegistry r = registry()) {
            app.delayMillis = 20_000;
            app.status.put("/readyz", 200);
            AppReadiness readiness = readiness(r, app.port(), "readiness-timeout=300ms", Set.of());
            Health h = untilStarted(readiness, r, 5);
            assertThat(r.availability().isStartupComplete()).as(h + " after asking " + app.asked).isTrue();
            h = readiness.check();
            assertThat(h.status()).isEqualTo(Status.DOWN);
            assertThat(h.message()).get().asString().contains("timed out");
            assertThat(app.asked).as("one call in flight").containsExactly("/readyz");
        }
    }

    /** The same with {@code readiness} given as a URL (a fresh user's finding: it never started). */
    @Test
    void aReadinessUrlHungFromBootStillCompletesStartup() throws Exception {
        try (App app = new App(); HealthRegistry r = registry()) {
            app.delayMillis = 20_000;
            AppReadiness readiness = readiness(r, app.port(),
                    "readiness-timeout=300ms,readiness=http://127.0.0.1:" + app.port() + "/ready", Set.of());
            Health h = untilStarted(readiness, r, 5);
            assertThat(r.availability().isStartupComplete()).as(h + " after asking " + app.asked).isTrue();
            assertThat(readiness.check().status()).isEqualTo(Status.DOWN);
        }
    }

    /** A port that accepts, reads what it is sent and never answers (a binary protocol waiting for its greeting, a hung server). */
    static final class SilentPort implements AutoCloseable {
        final java.net.ServerSocket server = new java.net.ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        final List<java.net.Socket> held = Collections.synchronizedList(new ArrayList<>());

        SilentPort() throws Exception {
            Thread t = new Thread(() -> {
                while (!server.isClosed()) {
                    try {
                        java.net.Socket c = server.accept();
                        held.add(c);
                        Thread r = new Thread(() -> {
                            try {
                                c.getInputStream().transferTo(java.io.OutputStream.nullOutputStream());
                            } catch (java.io.IOException e) {
                                // closed
                            }
                        }, "silent-reader");
                        r.setDaemon(true);
                        r.start();
                    } catch (java.io.IOException e) {
                        return;
                    }
                }
            }, "silent-port");
            t.setDaemon(true);
            t.start();
        }

        int port() {
            return server.getLocalPort();
        }

        @Override
        public void close() throws Exception {
            server.close();
            synchronized (held) {
                for (java.net.Socket c : held) {
                    c.close();
                }
            }
        }
    }

    /**
     * A hung-from-boot application starts within the run whose call first times out (one
     * readiness-timeout), not two timeouts and an interval later (a fresh user's finding: 3 x).
     */
    @Test
    void aHungApplicationStartsAtTheFirstTimeout() throws Exception {
        try (App app = new App(); HealthRegistry r = registry()) {
            app.delayMillis = 20_000;
            AppReadiness readiness = readiness(r, app.port(), "readiness-timeout=1s", Set.of());
            Health h = readiness.check();
            assertThat(r.availability().isStartupComplete()).as(h.toString()).isTrue();
            assertThat(h.message()).get().asString().contains("timed out");
        }
    }

    /**
     * A port bound and not yet accepting (its connections wait in the kernel's accept queue, as
     * a server that binds during its initialisation and accepts later): not started, however
     * long it holds the request; the kernel's tables say it never took it (Linux).
     */
    @Test
    void aPortBoundButNotAcceptingIsNotStarted() throws Exception {
        Assumptions.assumeTrue(AppPorts.supported(), "reads /proc/self/net/tcp");
        try (java.net.ServerSocket bound = new java.net.ServerSocket(0, 50, InetAddress.getLoopbackAddress());
             HealthRegistry r = registry()) {
            AppReadiness readiness = readiness(r, bound.getLocalPort(), "readiness-timeout=300ms", Set.of());
            Health h = null;
            for (int i = 0; i < 4; i++) {
                h = readiness.check();
            }
            assertThat(h.status()).isEqualTo(Status.DOWN);
            assertThat(r.availability().isStartupComplete()).as(h.toString()).isFalse();

            // Once it accepts and reads (and still never answers), it is up: started.
            Thread t = new Thread(() -> {
                try {
                    java.net.Socket c = bound.accept();
                    c.getInputStream().transferTo(java.io.OutputStream.nullOutputStream());
                } catch (java.io.IOException e) {
                    // closed
                }
            }, "late-accept");
            t.setDaemon(true);
            t.start();
            h = untilStarted(readiness, r, 40);
            assertThat(r.availability().isStartupComplete()).as(String.valueOf(h)).isTrue();
        }
    }

    /**
     * A silent port listed before the application's HTTP port: detection moves on to the HTTP
     * port after one timeout rather than waiting on the silent one (a fresh user saw 60 s), and
     * start-up comes from the HTTP port's answer, not from the silent port's held request.
     */
    @Test
    void aSilentPortDoesNotHideTheHttpPort() throws Exception {
        try (SilentPort quiet = new SilentPort(); App app = new App(); HealthRegistry r = registry()) {
            app.status.put("/healthz", 200);
            AgentOptions o = AgentOptions.resolve("readiness-timeout=300ms", new Properties(), Map.of());
            AppReadiness readiness = new AppReadiness(o, () -> List.of(quiet.port(), app.port()), r::availability, p -> { },
                    () -> Frameworks.detect(Set.of(), new Properties()));
            Health h = readiness.check();
            assertThat(r.availability().isStartupComplete()).as("not from the silent port: " + h).isFalse();
            h = runUntil(readiness, Status.UP, 4);
            assertThat(h.status()).as(h.toString()).isEqualTo(Status.UP);
            assertThat(h.details()).containsEntry("endpoint", "http://127.0.0.1:" + app.port() + "/healthz");
            assertThat(r.availability().isStartupComplete()).isTrue();
        }
    }

    /**
     * The only port is silent (asked, waited on); the HTTP port comes up later: the silent call
     * is given up for the new port at once, not after its 30 timeouts.
     */
    @Test
    void aPortAppearingWhileTheOnlyOtherIsSilentIsAskedAtOnce() throws Exception {
        try (SilentPort quiet = new SilentPort(); App app = new App(); HealthRegistry r = registry()) {
            app.status.put("/readyz", 200);
            List<Integer> ports = new java.util.concurrent.CopyOnWriteArrayList<>(List.of(quiet.port()));
            AgentOptions o = AgentOptions.resolve("readiness-timeout=300ms", new Properties(), Map.of());
            AppReadiness readiness = new AppReadiness(o, () -> List.copyOf(ports), r::availability, p -> { },
                    () -> Frameworks.detect(Set.of(), new Properties()));
            Health h = readiness.check();
            h = readiness.check();
            assertThat(h.status()).isEqualTo(Status.DOWN);
            assertThat(h.message()).get().asString().contains("timed out");

            ports.add(app.port());
            h = runUntil(readiness, Status.UP, 3);
            assertThat(h.status()).as(h.toString()).isEqualTo(Status.UP);
            assertThat(h.details()).containsEntry("endpoint", "http://127.0.0.1:" + app.port() + "/readyz");
        }
    }

    /**
     * The HTTP port opens while the run waits on the only other port, a silent one: start-up does
     * not complete from the silent port's held request (the ports are read afresh first), and the
     * new port is asked next run (a fresh user's finding: started from the silent port, the HTTP
     * port found 11 s later).
     */
    @Test
    void aPortOpeningDuringTheWaitOnASilentPortIsAskedBeforeStartingFromIt() throws Exception {
        try (SilentPort quiet = new SilentPort(); App app = new App(); HealthRegistry r = registry()) {
            app.status.put("/healthz", 200);
            List<Integer> ports = new java.util.concurrent.CopyOnWriteArrayList<>(List.of(quiet.port()));
            AgentOptions o = AgentOptions.resolve("readiness-timeout=1s", new Properties(), Map.of());
            AppReadiness readiness = new AppReadiness(o, () -> List.copyOf(ports), r::availability, p -> { },
                    () -> Frameworks.detect(Set.of(), new Properties()));
            Thread opens = new Thread(() -> {
                LockSupportSleep.millis(300);
                ports.add(app.port());
            }, "opens");
            opens.start();
            Health h = readiness.check();
            opens.join();
            assertThat(r.availability().isStartupComplete()).as("not from the silent port: " + h).isFalse();
            h = runUntil(readiness, Status.UP, 3);
            assertThat(h.status()).as(h.toString()).isEqualTo(Status.UP);
            assertThat(h.details()).containsEntry("endpoint", "http://127.0.0.1:" + app.port() + "/healthz");
            assertThat(r.availability().isStartupComplete()).isTrue();
        }
    }

    /** Sleeps without a checked exception (test threads). */
    private static final class LockSupportSleep {
        static void millis(long ms) {
            java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(ms));
        }
    }

    /**
     * An HTTP port that closes its first connections before a byte (still starting), then
     * answers 200 to everything: not written off as "not HTTP" for good (a fresh user's finding:
     * never started); asked again each run until it answers.
     */
    @Test
    void aPortThatClosesConnectionsWhileStartingIsAskedAgain() throws Exception {
        try (java.net.ServerSocket server = new java.net.ServerSocket(0, 50, InetAddress.getLoopbackAddress());
             HealthRegistry r = registry()) {
            java.util.concurrent.atomic.AtomicInteger closeFirst = new java.util.concurrent.atomic.AtomicInteger(2);
            Thread t = new Thread(() -> {
                while (!server.isClosed()) {
                    try {
                        java.net.Socket c = server.accept();
                        if (closeFirst.getAndDecrement() > 0) {
                            c.close();
                            continue;
                        }
                        Thread w = new Thread(() -> answer200(c), "answers");
                        w.setDaemon(true);
                        w.start();
                    } catch (java.io.IOException e) {
                        return;
                    }
                }
            }, "closes-then-answers");
            t.setDaemon(true);
            t.start();
            AppReadiness readiness = readiness(r, server.getLocalPort(), "readiness-timeout=500ms", Set.of());
            Health h = runUntil(readiness, Status.UP, 6);
            assertThat(h.status()).as(h.toString()).isEqualTo(Status.UP);
            assertThat(r.availability().isStartupComplete()).isTrue();
        }
    }

    /** Answers every request on {@code c} with 200 and an empty body, keep-alive, until closed. */
    private static void answer200(java.net.Socket c) {
        try (c) {
            java.io.InputStream in = c.getInputStream();
            int state = 0;
            int b;
            while ((b = in.read()) >= 0) {
                state = (b == '\r' && state % 2 == 0) || (b == '\n' && state % 2 == 1) ? state + 1 : 0;
                if (state == 4) {
                    c.getOutputStream().write("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                    state = 0;
                }
            }
        } catch (java.io.IOException e) {
            // closed
        }
    }

    /** A call given up after its 30 timeouts says so, not "a new call ... after 1 s" beside a longer wait (a fresh user's finding). */
    @Test
    void aCallGivenUpSaysSo() throws Exception {
        try (App app = new App(); HealthRegistry r = registry()) {
            app.delayMillis = 20_000;
            AppReadiness readiness = readiness(r, app.port(),
                    "readiness-timeout=50ms,readiness=http://127.0.0.1:" + app.port() + "/ready", Set.of());
            long t0 = System.nanoTime();
            Health h = readiness.check();
            while (!h.message().orElse("").contains("closed") && System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(20)) {
                String m = h.message().orElse("");
                java.util.regex.Matcher age = java.util.regex.Pattern.compile("unanswered for (\\d+) ms").matcher(m);
                if (age.find()) {
                    assertThat(Long.parseLong(age.group(1))).as(m).isLessThan(1500);
                    assertThat(m).endsWith("or after 1500ms)");
                }
                h = readiness.check();
            }
            assertThat(h.message()).get().asString().contains("(closed: a new call next run)");
            assertThat(readiness.check().message()).get().asString().doesNotContain("unanswered for"); // a new call
        }
    }

    /** An unknown application's port that refuses connections never completes start-up. */
    @Test
    void anUnknownApplicationNotListeningDoesNotCompleteStartup() throws Exception {
        int closed;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = s.getLocalPort();
        }
        try (HealthRegistry r = registry()) {
            AppReadiness readiness = readiness(r, closed, "readiness-timeout=300ms", Set.of());
            Health h = null;
            for (int i = 0; i < 4; i++) {
                h = readiness.check();
            }
            assertThat(h.status()).isEqualTo(Status.DOWN);
            assertThat(r.availability().isStartupComplete()).as(h.toString()).isFalse();
        }
    }

    /**
     * The naive demo's shape: an embedded database port (not HTTP) listens first. Not started,
     * readiness DOWN "waiting for the application's HTTP port"; once the HTTP port listens too,
     * its endpoint is found and startup completes.
     */
    @Test
    void aPortThatDoesNotSpeakHttpIsNotTheApplicationStarting() throws Exception {
        try (java.net.ServerSocket db = new java.net.ServerSocket(0, 50, InetAddress.getLoopbackAddress());
             App app = new App(); HealthRegistry r = registry()) {
            Thread t = new Thread(() -> {
                while (!db.isClosed()) {
                    try (java.net.Socket c = db.accept()) {
                        c.getOutputStream().write("DB 1.0 ready\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                    } catch (java.io.IOException e) {
                        return;
                    }
                }
            }, "fake-db");
            t.setDaemon(true);
            t.start();
            app.status.put("/healthz", 200);
            List<Integer> ports = new java.util.concurrent.CopyOnWriteArrayList<>(List.of(db.getLocalPort()));
            AgentOptions o = AgentOptions.resolve("readiness-timeout=1s", new Properties(), Map.of());
            AppReadiness readiness = new AppReadiness(o, () -> List.copyOf(ports), r::availability, p -> { },
                    () -> Frameworks.detect(Set.of(), new Properties()));
            Health h = readiness.check();
            h = readiness.check();
            assertThat(h.status()).isEqualTo(Status.DOWN);
            assertThat(h.message()).get().asString().contains("do not speak plain HTTP");
            assertThat(r.availability().isStartupComplete()).isFalse();

            ports.add(app.port());
            h = runUntil(readiness, Status.UP, 4);
            assertThat(h.status()).as(h.toString()).isEqualTo(Status.UP);
            assertThat(h.details()).containsEntry("endpoint", "http://127.0.0.1:" + app.port() + "/healthz");
            assertThat(r.availability().isStartupComplete()).isTrue();
        }
    }

    /**
     * Quarkus with SmallRye Health and its database down at boot: readiness DOWN ("answered
     * 503"), start-up complete from {@code /q/health/started}; only those two paths asked, on
     * one connection, however many runs.
     */
    @Test
    void quarkusStartedWhileItsDependencyIsDown() throws Exception {
        try (App app = new App(); HealthRegistry r = registry()) {
            app.status.put("/q/health/ready", 503);
            app.status.put("/q/health/started", 200);
            AppReadiness readiness = readiness(r, app.port(), "", Set.of(Frameworks.QUARKUS, Frameworks.QUARKUS_HEALTH));
            Health h = null;
            for (int i = 0; i < 5; i++) {
                h = readiness.check();
            }
            assertThat(h.status()).isEqualTo(Status.DOWN);
            assertThat(h.message()).get().asString().contains("answered 503");
            assertThat(r.availability().isStartupComplete()).as("startup means started").isTrue();
            assertThat(Set.copyOf(app.asked)).containsExactlyInAnyOrder("/q/health/ready", "/q/health/started");
            assertThat(app.asked.stream().filter("/q/health/started"::equals).count()).as("started asked until it passed").isEqualTo(1);
            assertThat(app.connections).as("one kept-alive connection for readiness and start-up (issue 37), for "
                    + app.asked.size() + " calls").hasSize(1);

            app.status.put("/q/health/ready", 200);
            // The same DOWN answer was backed off from (issue 40): the recovery is asked within
            // readiness-backoff-max (16 s = 8 runs of the 2 s readiness-interval).
            assertThat(runUntil(readiness, Status.UP, 9).status()).isEqualTo(Status.UP);
        }
    }

    /** Started endpoint DOWN: startup waits even though readiness would answer. */
    @Test
    void startupWaitsForTheStartedEndpoint() throws Exception {
        try (App app = new App(); HealthRegistry r = registry()) {
            app.status.put("/health/readiness", 200);
            app.status.put("/health/liveness", 503);
            AppReadiness readiness = readiness(r, app.port(), "", Set.of(Frameworks.MICRONAUT, Frameworks.MICRONAUT_HEALTH));
            for (int i = 0; i < 4; i++) {
                readiness.check();
            }
            assertThat(r.availability().isStartupComplete()).isFalse();
            app.status.put("/health/liveness", 200);
            readiness.check();
            assertThat(r.availability().isStartupComplete()).isTrue();
        }
    }

    /**
     * Quarkus whose readiness check hangs from boot (its database blackholed): start-up still
     * completes from {@code /q/health/started}, asked on a connection of its own beside the
     * readiness call in flight.
     */
    @Test
    void aReadinessCheckHungFromBootDoesNotHoldStartupBack() throws Exception {
        try (App app = new App(); HealthRegistry r = registry()) {
            app.hang.add("/q/health/ready");
            app.status.put("/q/health/ready", 200);
            app.status.put("/q/health/started", 200);
            AppReadiness readiness = readiness(r, app.port(), "readiness-timeout=300ms", Set.of(Frameworks.QUARKUS, Frameworks.QUARKUS_HEALTH));
            Health h = untilStarted(readiness, r, 4);
            assertThat(r.availability().isStartupComplete()).as(h + " after asking " + app.asked).isTrue();
            h = readiness.check();
            assertThat(h.status()).isEqualTo(Status.DOWN);
            assertThat(h.message()).get().asString().contains("timed out");
            assertThat(app.asked.stream().filter("/q/health/ready"::equals).count()).as("one readiness call in flight").isEqualTo(1);
        }
    }

    /**
     * A check slower than readiness-timeout (600 ms against 300 ms): its late passing answers stay
     * DOWN "timed out", never flicker UP; a fast check again is UP on the next call.
     */
    @Test
    void aLatePassingAnswerIsStillATimeout() throws Exception {
        try (App app = new App(); HealthRegistry r = registry()) {
            app.status.put("/q/health/ready", 200);
            app.status.put("/q/health/started", 200);
            AppReadiness readiness = readiness(r, app.port(), "readiness-timeout=300ms", Set.of(Frameworks.QUARKUS, Frameworks.QUARKUS_HEALTH));
            assertThat(runUntil(readiness, Status.UP, 5).status()).isEqualTo(Status.UP);
            app.delayMillis = 600;
            for (int i = 0; i < 6; i++) {
                Health h = readiness.check();
                assertThat(h.status()).as(h.toString()).isEqualTo(Status.DOWN);
                assertThat(h.message()).get().asString().startsWith("timed out after 300 ms");
            }
            app.delayMillis = 0;
            assertThat(runUntil(readiness, Status.UP, 3).status()).isEqualTo(Status.UP);
        }
    }

    /** Quarkus without a health extension: no request at all; readiness and startup from the listener. */
    @Test
    void aFrameworkWithoutHealthEndpointsGetsNoRequest() throws Exception {
        try (App app = new App(); HealthRegistry r = registry()) {
            AppReadiness readiness = readiness(r, app.port(), "", Set.of(Frameworks.QUARKUS));
            Health h = readiness.check();
            h = readiness.check();
            assertThat(h.status()).as(h.toString()).isEqualTo(Status.UP);
            assertThat(h.message()).get().asString().contains("readiness follows the listener");
            assertThat(r.availability().isStartupComplete()).isTrue();
            assertThat(app.asked).as("no request sent").isEmpty();
        }
    }

    /**
     * Issue 37: readiness from the listener opens no connection per poll on Linux (the kernel's
     * LISTEN rows): Vert.x or Netty would accept and register each one. Start-up is the one
     * connect; a closed port is DOWN at the next run.
     */
    @Test
    void readinessFromTheListenerConnectsOnlyForStartupOnLinux() throws Exception {
        Assumptions.assumeTrue(AppPorts.supported(), "Linux: /proc/self/net/tcp");
        try (java.net.ServerSocket listener = new java.net.ServerSocket(0, 50, InetAddress.getLoopbackAddress());
             HealthRegistry r = registry()) {
            listener.setSoTimeout(200);
            AppReadiness readiness = readiness(r, listener.getLocalPort(), "", Set.of(Frameworks.QUARKUS));
            readiness.check();
            assertThat(r.availability().isStartupComplete()).isTrue();
            int accepted = acceptAll(listener);
            assertThat(accepted).as("start-up: the port accepts a connection").isLessThanOrEqualTo(1);
            for (int i = 0; i < 5; i++) {
                Health h = readiness.check();
                assertThat(h.status()).as(h.toString()).isEqualTo(Status.UP);
                assertThat(h.message()).get().asString().contains("readiness follows the listener");
            }
            assertThat(acceptAll(listener)).as("connections for 5 readiness runs").isZero();
            listener.close();
            Health h = readiness.check();
            assertThat(h.status()).isEqualTo(Status.DOWN);
            assertThat(h.message()).get().asString().isEqualTo("port " + listener.getLocalPort()
                    + " is not listening (a connection would be refused)");
        }
    }

    private static int acceptAll(java.net.ServerSocket listener) throws java.io.IOException {
        int n = 0;
        while (true) {
            try (java.net.Socket ignored = listener.accept()) {
                n++;
            } catch (java.net.SocketTimeoutException e) {
                return n;
            }
        }
    }

    /** Dropwizard: no started endpoint; its port answering (here its health check failing: 500) is started. */
    @Test
    void dropwizardStartsWhenItsPortAnswersEvenWithAFailingCheck() throws Exception {
        try (App app = new App(); HealthRegistry r = registry()) {
            app.status.put("/healthcheck", 500);
            AppReadiness readiness = readiness(r, app.port(), "", Set.of(Frameworks.DROPWIZARD));
            Health h = readiness.check();
            h = readiness.check();
            assertThat(h.status()).isEqualTo(Status.DOWN);
            assertThat(h.message()).get().asString().contains("answered 500");
            assertThat(r.availability().isStartupComplete()).isTrue();
            assertThat(app.asked).containsOnly("/healthcheck");
        }
    }

    /** A candidate that hangs on a known framework is its endpoint: one call in flight, never asked again. */
    @Test
    void aHungCandidateIsWaitedForNotAskedAgain() throws Exception {
        try (App app = new App(); HealthRegistry r = registry()) {
            app.delayMillis = 5_000;
            app.status.put("/observe/health/ready", 200);
            AppReadiness readiness = readiness(r, app.port(), "readiness-timeout=200ms", Set.of(Frameworks.HELIDON, Frameworks.HELIDON_HEALTH));
            Health h = readiness.check();
            assertThat(h.status()).isEqualTo(Status.DOWN);
            h = readiness.check();
            assertThat(h.message()).get().asString().contains("one call in flight");
            assertThat(app.asked.stream().filter("/observe/health/ready"::equals).count()).as(app.asked.toString()).isEqualTo(1);
        }
    }

    /** grpc-java with the health service: readiness from Check over h2c, SERVING UP, NOT_SERVING DOWN. */
    @Test
    void grpcReadinessFromTheHealthService() throws Exception {
        HealthStatusManager health = new HealthStatusManager();
        Server s = NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                .addService(health.getHealthService()).build().start();
        try (HealthRegistry r = registry()) {
            AppReadiness readiness = readiness(r, s.getPort(), "", Set.of(Frameworks.GRPC));
            Health h = runUntil(readiness, Status.UP, 10); // a cold grpc-java server's first answer can take seconds here
            assertThat(h.status()).as(h.toString()).isEqualTo(Status.UP);
            assertThat(h.details()).containsEntry("grpcStatus", "SERVING");
            assertThat(r.availability().isStartupComplete()).isTrue();
            health.setStatus("", ServingStatus.NOT_SERVING);
            h = readiness.check();
            assertThat(h.status()).isEqualTo(Status.DOWN);
            assertThat(h.message()).get().asString().contains("NOT_SERVING");
        } finally {
            s.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        }
    }

    /** grpc-java without a health service: readiness and startup follow the listener. */
    @Test
    void grpcWithoutHealthFollowsTheListener() throws Exception {
        Server s = NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).build().start();
        try (HealthRegistry r = registry()) {
            AppReadiness readiness = readiness(r, s.getPort(), "", Set.of(Frameworks.GRPC));
            Health h = runUntil(readiness, Status.UP, 10); // a cold grpc-java server's first answer can take seconds here

            assertThat(h.status()).as(h.toString()).isEqualTo(Status.UP);
            assertThat(h.message()).get().asString().contains("readiness follows the listener");
            assertThat(r.availability().isStartupComplete()).isTrue();
        } finally {
            s.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        }
    }
}
