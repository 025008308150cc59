package dev.vitals.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.vitals.Groups;
import dev.vitals.Health;
import dev.vitals.HealthRegistry;
import dev.vitals.Status;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Hostile and broken clients: oversized and malformed requests are answered at once, idle and
 * stalled connections cost a buffer (not a thread) and are freed after the read timeout, and a
 * well-behaved client keeps getting answers throughout. Every loop is bounded in count and time.
 */
@ParameterizedClass
@EnumSource(ProbeServer.Transport.class)
class BadInputTest {
    @Parameter
    ProbeServer.Transport transport;

    static final Duration READ_TIMEOUT = Duration.ofSeconds(2);
    static final int HOSTILE = 300;
    /** Generous bound for "at once" and for a good client's answer on a loaded 2-core machine. */
    static final long GENEROUS_MILLIS = 1000;

    HealthRegistry registry;
    ProbeServer server;
    final List<RawHttp> hostile = new ArrayList<>();
    final ExecutorService pool = Executors.newFixedThreadPool(2);

    @BeforeEach
    void setUp() {
        registry = HealthRegistry.builder().register(Fixtures.scheduled("progress", Health::up, Groups.LIVENESS)).build();
        registry.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> registry.report(Groups.LIVENESS).status() == Status.UP);
        server = ProbeServer.builder(registry).transport(transport).bindAddress(InetAddress.getLoopbackAddress()).port(0)
                .eventLoopThreads(1).readTimeout(READ_TIMEOUT)
                .maxConnectionsPerAddress(1024) // every client here is 127.0.0.1; shares are ConnectionPolicyTest's
                .build().start();
    }

    @AfterEach
    void tearDown() throws IOException {
        for (RawHttp c : hostile) {
            c.close();
        }
        pool.shutdownNow();
        server.stop(Duration.ZERO);
        registry.close();
    }

    @Test
    void oversizedHeaderGets431AtOnce() throws Exception {
        String big = "GET /livez HTTP/1.1\r\nHost: x\r\nX-Big: " + "a".repeat(200 * 1024) + "\r\n\r\n";
        try (RawHttp c = new RawHttp(server.port(), 5000)) {
            long start = System.nanoTime();
            Future<?> writing = pool.submit(() -> {
                c.send(big); // may fail once the server has answered and closed; that is fine
                return null;
            });
            RawHttp.Response r = c.read(false);
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertThat(r.status).isEqualTo(431);
            assertThat(r.body).isEqualTo("request header fields too large\n");
            assertThat(r.header("Connection")).isEqualTo("close");
            assertThat(millis).as("answered at once, not after the read timeout").isLessThan(READ_TIMEOUT.toMillis());
            assertThat(c.awaitsEof()).isTrue();
            writing.cancel(true);
        }
        assertThat(IsolationTest.probe(server.port(), "/livez")).isTrue();
    }

    @Test
    void overlongRequestLineGets400AtOnce() throws Exception {
        RawHttp.Response r = RawHttp.exchange(server.port(),
                "GET /livez?" + "x".repeat(20_000) + " HTTP/1.1\r\nHost: x\r\n\r\n", 5000);
        assertThat(r.status).isEqualTo(400);
        assertThat(r.body).isEqualTo("bad request: request line too long\n");
    }

    @Test
    void garbageGets400() throws Exception {
        byte[] noise = new byte[4096];
        new Random(42).nextBytes(noise);
        for (byte[] garbage : new byte[][] {
                "NOT HTTP AT ALL\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1),
                "GET /livez HTTP/9.9\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1),
                "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1),
                "GET /livez HTTP/1.1\r\nHost: x\r\nBad Header Without Colon\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1),
                concat("G\u00e9T /livez HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.ISO_8859_1), noise),
                concat(noise, "\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1))}) {
            try (RawHttp c = new RawHttp(server.port(), 5000)) {
                long start = System.nanoTime();
                c.send(garbage);
                RawHttp.Response r = c.read(false);
                assertThat(r.status).as(new String(garbage, 0, 16, StandardCharsets.ISO_8859_1)).isEqualTo(400);
                assertThat(r.body).startsWith("bad request: ");
                assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(READ_TIMEOUT.toMillis());
                assertThat(c.awaitsEof()).isTrue();
            }
        }
        assertThat(IsolationTest.probe(server.port(), "/livez")).isTrue();
    }

    @Test
    void bytesThatCannotBeHttpGet400AtOnceWithoutWaitingForANewline() throws Exception {
        // QA: a TLS ClientHello (kubelet with scheme: HTTPS, a TLS health checker) or binary noise
        // without a newline got 400 at once from Netty but no answer, and a close only at the read
        // timeout, from the JDK transport, which waited for the end of the line.
        byte[] clientHello = new byte[160];
        byte[] head = {0x16, 0x03, 0x01, 0x00, (byte) 0xa5, 0x01, 0x00, 0x00, (byte) 0xa1, 0x03, 0x03};
        System.arraycopy(head, 0, clientHello, 0, head.length);
        for (byte[] garbage : new byte[][] {
                clientHello,
                new byte[] {0, 0, 0, 0},
                "GET /livez\u0001 HTTP/1.1".getBytes(StandardCharsets.ISO_8859_1)}) { // a control byte mid-line, no newline
            try (RawHttp c = new RawHttp(server.port(), 5000)) {
                long start = System.nanoTime();
                c.send(garbage);
                RawHttp.Response r = c.read(false);
                assertThat(r.status).isEqualTo(400);
                assertThat(r.body).startsWith("bad request: ");
                assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start))
                        .as("answered at once, not at the read timeout").isLessThan(READ_TIMEOUT.toMillis());
                assertThat(c.awaitsEof()).isTrue();
            }
        }
        assertThat(IsolationTest.probe(server.port(), "/livez")).isTrue();
    }

    @Test
    void connectionsThatSendNothingDoNotStopProbesAndAreFreedAfterTheReadTimeout() throws Exception {
        for (int i = 0; i < HOSTILE; i++) {
            hostile.add(new RawHttp(server.port(), 10_000));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> server.openConnections() >= HOSTILE);
        goodClientKeepsGettingAnswers();
        await().atMost(READ_TIMEOUT.multipliedBy(5)).until(() -> server.openConnections() == 0);
        for (RawHttp c : hostile.subList(0, 10)) {
            assertThat(c.awaitsEof()).isTrue();
        }
    }

    @Test
    void halfRequestsThatStallDoNotStopProbesAndAreFreedAfterTheReadTimeout() throws Exception {
        for (int i = 0; i < HOSTILE; i++) {
            RawHttp c = new RawHttp(server.port(), 10_000);
            hostile.add(c);
            c.send("GET /livez HTTP/1.1\r\nHost: x\r\n"); // and nothing more
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> server.openConnections() >= HOSTILE);
        goodClientKeepsGettingAnswers();
        await().atMost(READ_TIMEOUT.multipliedBy(5)).until(() -> server.openConnections() == 0);
        for (RawHttp c : hostile.subList(0, 10)) {
            assertThat(c.awaitsEof()).isTrue();
        }
    }

    @Test
    void aSlowDripIsCutAtTheReadTimeoutCountedFromTheFirstByte() throws Exception {
        RawHttp drip = new RawHttp(server.port(), 10_000);
        hostile.add(drip);
        await().atMost(Duration.ofSeconds(10)).until(() -> server.openConnections() == 1);
        byte[] request = ("GET /livez HTTP/1.1\r\nHost: x\r\nX-Drip: " + "d".repeat(200)).getBytes(StandardCharsets.ISO_8859_1);
        long start = System.nanoTime();
        boolean cut = false;
        for (int i = 0; i < request.length && !cut; i++) { // at most 200 × 50 ms = 10 s
            try {
                drip.send(new byte[] {request[i]});
            } catch (IOException closed) {
                cut = true;
            }
            if (server.openConnections() == 0) {
                cut = true;
            }
            Thread.sleep(50);
        }
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(cut).as("the server closed the dripping connection").isTrue();
        // The deadline runs from the connection's opening (just before the first byte), so the
        // lower bound is loose; the upper bound is the point: each byte does not extend it.
        assertThat(millis).as("closed after about the read timeout, not kept alive by each byte")
                .isBetween(READ_TIMEOUT.toMillis() / 2, READ_TIMEOUT.toMillis() * 3);
    }

    @Test
    void keptAliveConnectionsAreClosedAfterTheIdleTimeout() throws Exception {
        server.stop(Duration.ZERO);
        server = ProbeServer.builder(registry).transport(transport).bindAddress(InetAddress.getLoopbackAddress()).port(0)
                .idleTimeout(Duration.ofMillis(300)).build().start();
        try (RawHttp c = new RawHttp(server.port(), 5000)) {
            c.send("GET /livez HTTP/1.1\r\nHost: x\r\n\r\n");
            assertThat(c.read(false).body).isEqualTo("ok");
            assertThat(c.awaitsEof()).isTrue();
        }
    }

    @Test
    void aClientThatReadsNoAnswersStopsBeingReadAndIsClosedAfterTheIdleTimeout() throws Exception {
        server.stop(Duration.ZERO);
        server = ProbeServer.builder(registry).transport(transport).bindAddress(InetAddress.getLoopbackAddress()).port(0)
                .idleTimeout(Duration.ofMillis(500)).build().start();
        RawHttp c = new RawHttp(server.port(), 10_000);
        hostile.add(c);
        byte[] batch = "GET /health/liveness HTTP/1.1\r\nHost: x\r\n\r\n".repeat(100).getBytes(StandardCharsets.US_ASCII);
        long writeFor = TimeUnit.SECONDS.toNanos(30);
        Future<String> writer = pool.submit(() -> {
            long start = System.nanoTime();
            try {
                while (System.nanoTime() - start < writeFor) { // never reads an answer
                    c.send(batch);
                }
                return "still writing after 30 s";
            } catch (IOException closedByServer) {
                return "closed";
            }
        });
        // Once the answers fill the socket buffers the server stops reading, the client's writes
        // block, and without an answer written the idle timeout closes the connection. A server
        // that kept reading would keep answering (each answer restarting the idle time) for 30 s.
        assertThat(writer.get(60, TimeUnit.SECONDS)).isEqualTo("closed");
        await().atMost(Duration.ofSeconds(10)).until(() -> server.openConnections() == 0);
        assertThat(IsolationTest.probe(server.port(), "/livez")).isTrue();
    }

    @Test
    void atTheLimitTheNewestConnectionIsAnsweredAndTheOldestIdleOneClosed() throws Exception { // issue 19
        server.stop(Duration.ZERO);
        server = ProbeServer.builder(registry).transport(transport).bindAddress(InetAddress.getLoopbackAddress()).port(0)
                .maxConnections(5).maxConnectionsPerAddress(5).build().start();
        for (int i = 0; i < 5; i++) {
            hostile.add(new RawHttp(server.port(), 10_000));
            int open = i + 1;
            await().atMost(Duration.ofSeconds(10)).until(() -> server.openConnections() == open);
        }
        RawHttp.Response r = RawHttp.get(server.port(), "/livez");
        assertThat(r.status).as("the sixth connection, a probe").isEqualTo(200);
        assertThat(hostile.get(0).awaitsEof()).as("the oldest idle connection made room").isTrue();
        assertThat(server.evictedConnections()).isEqualTo(1);
        for (RawHttp c : hostile) {
            c.close();
        }
        hostile.clear();
        await().atMost(Duration.ofSeconds(10)).until(() -> server.openConnections() == 0);
        assertThat(IsolationTest.probe(server.port(), "/livez")).isTrue();
    }

    @Test
    void aConnectionErrorIsLoggedOnceAtDebugWithoutAStackTrace() throws Exception {
        java.util.logging.Logger jul = java.util.logging.Logger.getLogger("dev.vitals.server");
        List<java.util.logging.LogRecord> records = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.logging.Handler handler = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord r) {
                records.add(r);
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        java.util.logging.Level level = jul.getLevel();
        jul.setLevel(java.util.logging.Level.ALL);
        jul.addHandler(handler);
        try {
            List<String> clients = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                RawHttp c = new RawHttp(server.port(), 5000);
                clients.add(":" + c.socket.getLocalPort());
                c.send("GET /livez HTTP/1.1\r\nHost: x\r\n");
                await().atMost(Duration.ofSeconds(10)).until(() -> server.openConnections() == 1);
                c.socket.setSoLinger(true, 0); // close with a reset: the server's read fails
                c.close();
                await().atMost(Duration.ofSeconds(10)).until(() -> server.openConnections() == 0);
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> records.stream()
                    .filter(r -> r.getMessage().contains("closed after error")).count() >= 3);
            Thread.sleep(200); // any duplicate would be logged by now
            for (String client : clients) {
                List<java.util.logging.LogRecord> mine = records.stream()
                        .filter(r -> r.getMessage().contains(client + " closed after error")).collect(java.util.stream.Collectors.toList());
                assertThat(mine).as("records for client " + client).hasSize(1);
                assertThat(mine.get(0).getLevel()).isEqualTo(java.util.logging.Level.FINE); // System.Logger DEBUG
                assertThat(mine.get(0).getThrown()).as("no stack trace").isNull();
            }
            assertThat(records).allSatisfy(r -> assertThat(r.getThrown()).isNull());
        } finally {
            jul.removeHandler(handler);
            jul.setLevel(level);
        }
    }

    /** Ten probes, 100 ms apart, each on a fresh connection, each answered 200 within the bound. */
    private void goodClientKeepsGettingAnswers() throws Exception {
        for (int i = 0; i < 10; i++) {
            long start = System.nanoTime();
            RawHttp.Response r = RawHttp.exchange(server.port(), "GET /livez HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                    (int) GENEROUS_MILLIS);
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertThat(r.status).as("probe " + i).isEqualTo(200);
            assertThat(millis).as("probe " + i + " latency").isLessThan(GENEROUS_MILLIS);
            Thread.sleep(100);
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] r = new byte[a.length + b.length];
        System.arraycopy(a, 0, r, 0, a.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }

    @Test
    void aFailingAcceptIsOneDebugLineWithoutAStackTraceAndThePortStillAnswers() throws Exception {
        // QA: accept() failing with "Too many open files" made Netty's pipeline tail log
        // "exceptionCaught ... reached the tail of the pipeline" at WARN with a stack trace, once a second.
        java.util.logging.Logger root = java.util.logging.Logger.getLogger("");
        java.util.logging.Logger jul = java.util.logging.Logger.getLogger("dev.vitals.server");
        List<java.util.logging.LogRecord> records = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.logging.Handler handler = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord r) {
                records.add(r);
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        java.util.logging.Level level = jul.getLevel();
        jul.setLevel(java.util.logging.Level.ALL);
        root.addHandler(handler); // Netty's own loggers (io.netty.*) reach the root's handlers
        try {
            java.util.function.BooleanSupplier accepting = failAcceptThreeTimes(server);
            await().atMost(Duration.ofSeconds(10)).until(() -> records.stream()
                    .anyMatch(r -> r.getMessage().contains("accepting a connection failed")
                            || r.getLevel().intValue() >= java.util.logging.Level.WARNING.intValue()));
            Thread.sleep(200); // a tail WARNING would be logged by now
            assertThat(records).noneSatisfy(r -> assertThat(r.getLevel().intValue())
                    .isGreaterThanOrEqualTo(java.util.logging.Level.WARNING.intValue()));
            assertThat(records).allSatisfy(r -> assertThat(r.getThrown()).isNull());
            List<java.util.logging.LogRecord> mine = records.stream()
                    .filter(r -> r.getMessage().contains("accepting a connection failed")).collect(java.util.stream.Collectors.toList());
            assertThat(mine).hasSize(1); // the first, then every 1000th
            assertThat(mine.get(0).getLevel()).isEqualTo(java.util.logging.Level.FINE);
            assertThat(mine.get(0).getMessage()).contains("Too many open files");
            // accepting resumes after the pause
            await().atMost(Duration.ofSeconds(10)).until(accepting::getAsBoolean);
            assertThat(IsolationTest.probe(server.port(), "/livez")).isTrue();
        } finally {
            root.removeHandler(handler);
            jul.setLevel(level);
        }
    }

    /**
     * Makes the server's accept fail three times, as "Too many open files" does, through the
     * path a real failure takes on each transport.
     *
     * @return whether the server accepts connections again
     */
    private java.util.function.BooleanSupplier failAcceptThreeTimes(ProbeServer s) {
        ServerTransport t = s.transportImpl();
        if (t instanceof NioTransport) {
            NioTransport nio = (NioTransport) t;
            for (int i = 0; i < 3; i++) {
                nio.simulateAcceptFailure(new IOException("Too many open files"));
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> nio.acceptFailures() == 3);
            return nio::accepting;
        }
        io.netty.channel.Channel listening = ((NettyTransport) t).serverChannel();
        for (int i = 0; i < 3; i++) {
            listening.pipeline().fireExceptionCaught(new IOException("Too many open files"));
        }
        return () -> listening.config().isAutoRead();
    }
}
