package dev.vitals.agent.impl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.vitals.Check;
import dev.vitals.Groups;
import dev.vitals.Health;
import dev.vitals.HealthRegistry;
import dev.vitals.Scheduler;
import dev.vitals.Status;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Issue 37: the readiness check {@code app} runs on Vitals' scheduler thread, in non-blocking
 * steps, against real sockets on loopback: an application that accepts and never answers, one
 * that answers byte by byte, an answer split across steps, a refused connection, a full accept
 * backlog, gRPC frames that trickle in. Each step returns at once (a blocking socket would hold
 * the step for the whole readiness-timeout), nothing is asked twice across steps, and the
 * scheduler's other work stays on time. Bounds are generous: a loaded 2-core machine.
 */
class AppReadinessNonBlockingTest {
    /** A step that blocked on a socket would take the whole readiness-timeout (3 s here). */
    private static final long STEP_BOUND_MS = 1_000;

    /**
     * A real TCP server on loopback: reads each request's head (to the blank line), counts it, and
     * hands the connection's output to {@code answer} (which may write slowly, or never).
     */
    static final class Scripted implements AutoCloseable {
        interface Answer {
            void write(OutputStream out, int request) throws Exception;
        }

        final ServerSocket server;
        final AtomicInteger requests = new AtomicInteger();
        final AtomicInteger connections = new AtomicInteger();
        final List<String> paths = new CopyOnWriteArrayList<>();
        private final List<Socket> open = new CopyOnWriteArrayList<>();

        Scripted(Answer answer) throws IOException {
            server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            Thread t = new Thread(() -> {
                while (!server.isClosed()) {
                    Socket c;
                    try {
                        c = server.accept();
                    } catch (IOException e) {
                        return;
                    }
                    open.add(c);
                    connections.incrementAndGet();
                    Thread h = new Thread(() -> serve(c, answer), "scripted-conn");
                    h.setDaemon(true);
                    h.start();
                }
            }, "scripted-accept");
            t.setDaemon(true);
            t.start();
        }

        private void serve(Socket c, Answer answer) {
            try (c) {
                InputStream in = c.getInputStream();
                while (true) {
                    String head = readHead(in);
                    if (head == null) {
                        return;
                    }
                    paths.add(head.split(" ", 3)[1]);
                    answer.write(c.getOutputStream(), requests.incrementAndGet());
                }
            } catch (Exception e) {
                // the test ended
            }
        }

        private static String readHead(InputStream in) throws IOException {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            int state = 0;
            while (state < 4) {
                int ch = in.read();
                if (ch < 0) {
                    return null;
                }
                b.write(ch);
                state = (ch == '\r' && (state == 0 || state == 2)) || (ch == '\n' && (state == 1 || state == 3)) ? state + 1 : 0;
            }
            return b.toString(StandardCharsets.ISO_8859_1);
        }

        int port() {
            return server.getLocalPort();
        }

        @Override
        public void close() throws IOException {
            server.close();
            for (Socket s : open) {
                s.close();
            }
        }
    }

    private static HealthRegistry registry() {
        return HealthRegistry.builder().startupCompletion(dev.vitals.StartupCompletion.MANUAL).build();
    }

    private static AgentOptions options(int port, String more) {
        return AgentOptions.resolve("app-port=" + port + (more.isEmpty() ? "" : "," + more), new Properties(), Map.of());
    }

    private static AppReadiness readiness(HealthRegistry r, int port, String more, Set<String> loaded) {
        return new AppReadiness(options(port, more), () -> List.of(port), r::availability, p -> { },
                () -> Frameworks.detect(loaded, new Properties()));
    }

    /** One run, step by step on this thread as the scheduler would: its health, and how many steps it took. */
    private static final class Run {
        Health health;
        int steps;
        long longestStepMs;
        long tookMs;
    }

    private static Run run(AppReadiness readiness) throws InterruptedException {
        Run run = new Run();
        long t0 = System.nanoTime();
        while (true) {
            long s = System.nanoTime();
            Health h = readiness.step();
            run.longestStepMs = Math.max(run.longestStepMs, (System.nanoTime() - s) / 1_000_000);
            run.steps++;
            if (h != null) {
                run.health = h;
                run.tookMs = (System.nanoTime() - t0) / 1_000_000;
                return run;
            }
            TimeUnit.NANOSECONDS.sleep(readiness.nextPauseNanos());
        }
    }

    private static Run runUntil(AppReadiness readiness, Status want, int runs) throws InterruptedException {
        Run r = run(readiness);
        for (int i = 1; i < runs && r.health.status() != want; i++) {
            r = run(readiness);
        }
        return r;
    }

    /**
     * An application that accepts and never answers, through a real registry as the agent
     * registers {@code app} (inline, asynchronous): readiness reads DOWN "timed out" while every
     * step runs on the scheduler thread, and another inline check on the same scheduler (the
     * {@code jvm} check's shape, every 200 ms) keeps its schedule: no gap near the 3 s timeout a
     * blocking read would make.
     */
    @Test
    void anApplicationThatNeverAnswersDoesNotHoldTheScheduler() throws Exception {
        try (Scripted app = new Scripted((out, n) -> Thread.sleep(Long.MAX_VALUE))) {
            AgentOptions o = options(app.port(), "readiness=/health,readiness-timeout=3s,readiness-interval=1s");
            HealthRegistry[] holder = new HealthRegistry[1];
            AppReadiness readiness = new AppReadiness(o, () -> List.of(app.port()), () -> holder[0].availability(), p -> { },
                    () -> Frameworks.detect(Set.of(), new Properties()));
            Set<String> stepThreads = ConcurrentHashMap.newKeySet();
            List<Long> beats = new CopyOnWriteArrayList<>();
            Scheduler recording = (delay, task) -> holder[0].scheduler().schedule(delay, () -> {
                stepThreads.add(Thread.currentThread().getName());
                task.run();
            });
            HealthRegistry r = HealthRegistry.builder().startupCompletion(dev.vitals.StartupCompletion.MANUAL).virtualThreads(false)
                    .register(AgentMain.appCheck(readiness, o, () -> {
                        stepThreads.add(Thread.currentThread().getName()); // a run's first step
                        return recording;
                    }))
                    .register(Check.asyncBuilder("beat", () -> {
                        beats.add(System.nanoTime());
                        return CompletableFuture.completedFuture(Health.up());
                    }).inline(true).groups(Groups.LIVENESS).interval(Duration.ofMillis(200)).build())
                    .build();
            holder[0] = r;
            try (r) {
                r.start();
                await().atMost(Duration.ofSeconds(60)).until(() -> {
                    Health h = r.report(Groups.READINESS).checks().get("app");
                    return h != null && h.message().orElse("").contains("timed out after 3000 ms: GET /health");
                });
                // The registry's first run starts on the thread that starts the registry (the agent's
                // start thread), as every inline check's; from here on, the scheduler's thread only.
                stepThreads.clear();
                // Two more runs' worth: the call in flight waited for ("unanswered for"), never sent again.
                await().atMost(Duration.ofSeconds(60)).until(() ->
                        r.report(Groups.READINESS).checks().get("app").message().orElse("").contains("unanswered for"));
                assertThat(app.requests.get()).as("one call in flight").isEqualTo(1);
                assertThat(app.connections.get()).as("one connection").isEqualTo(1);
                assertThat(stepThreads).as("every step on the scheduler thread").containsOnly("vitals-scheduler");
                long longestGapMs = 0;
                for (int i = 1; i < beats.size(); i++) {
                    longestGapMs = Math.max(longestGapMs, (beats.get(i) - beats.get(i - 1)) / 1_000_000);
                }
                assertThat(beats.size()).isGreaterThan(10);
                assertThat(longestGapMs).as("the scheduler's other check, every 200 ms, while 'app' waits 3 s at a time")
                        .isLessThan(1_500);
            }
            assertThat(Thread.getAllStackTraces().keySet().stream().map(Thread::getName))
                    .as("no thread named for the check").doesNotContain("vitals-check-app");
        }
    }

    /** An answer written one byte every 15 ms: read across many steps, each returning at once; one request. */
    @Test
    void anAnswerThatComesByteByByteIsReadAcrossSteps() throws Exception {
        byte[] answer = "HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n{\"up\":true}".getBytes(StandardCharsets.ISO_8859_1);
        try (Scripted app = new Scripted((out, n) -> {
            for (byte b : answer) {
                out.write(b);
                out.flush();
                Thread.sleep(15);
            }
        }); HealthRegistry r = registry()) {
            AppReadiness readiness = readiness(r, app.port(), "readiness=/health,readiness-timeout=10s", Set.of());
            Run run = run(readiness);
            assertThat(run.health.status()).as(run.health.toString()).isEqualTo(Status.UP);
            assertThat(run.steps).as("steps of the run").isGreaterThan(5);
            assertThat(run.longestStepMs).as("the longest step").isLessThan(STEP_BOUND_MS);
            assertThat(app.requests.get()).as("asked once, whatever the number of steps").isEqualTo(1);
            Run again = run(readiness);
            assertThat(again.health.status()).isEqualTo(Status.UP);
            assertThat(app.connections.get()).as("the kept-alive connection").isEqualTo(1);
            assertThat(app.requests.get()).isEqualTo(2);
        }
    }

    /**
     * A chunked answer split mid-chunk, its second half 400 ms later, and its status line split
     * from its headers: the parser picks up where the previous step left it.
     */
    @Test
    void anAnswerSplitAcrossStepsIsPutTogether() throws Exception {
        try (Scripted app = new Scripted((out, n) -> {
            out.write("HTTP/1.1 20".getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            Thread.sleep(200);
            out.write(("3 Non-Authoritative\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n{\"status\":").getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            Thread.sleep(400);
            out.write("\"UP\"}\r\n0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
        }); HealthRegistry r = registry()) {
            AppReadiness readiness = readiness(r, app.port(), "readiness=/health,readiness-timeout=5s", Set.of());
            Run run = run(readiness);
            assertThat(run.health.status()).as(run.health.toString()).isEqualTo(Status.UP);
            assertThat(run.health.details()).containsEntry("httpStatus", 203);
            assertThat(run.tookMs).isGreaterThanOrEqualTo(550);
            assertThat(run.steps).isGreaterThan(3);
            assertThat(run.longestStepMs).isLessThan(STEP_BOUND_MS);
            // The connection is kept (the whole chunked body was read): the next run uses it.
            assertThat(run(readiness).health.status()).isEqualTo(Status.UP);
            assertThat(app.connections.get()).isEqualTo(1);
            assertThat(app.requests.get()).isEqualTo(2);
        }
    }

    /** A slow answer, past readiness-timeout: "timed out" only at the deadline; the late answer is waited for, not asked again. */
    @Test
    void aTimeoutIsDecidedOnlyAtTheDeadline() throws Exception {
        try (Scripted app = new Scripted((out, n) -> {
            Thread.sleep(1_500);
            out.write("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
        }); HealthRegistry r = registry()) {
            r.availability().markStartupComplete();
            AppReadiness readiness = readiness(r, app.port(), "readiness=http://127.0.0.1:" + app.port() + "/health,readiness-timeout=600ms",
                    Set.of());
            Run first = run(readiness);
            assertThat(first.health.status()).isEqualTo(Status.DOWN);
            assertThat(first.health.message()).hasValueSatisfying(m -> assertThat(m).startsWith("timed out after 600 ms"));
            assertThat(first.tookMs).as("decided at the deadline, not before").isGreaterThanOrEqualTo(590);
            assertThat(first.steps).isGreaterThan(5);
            assertThat(first.longestStepMs).isLessThan(STEP_BOUND_MS);
            Run second = run(readiness); // the same call: "unanswered for", or its late answer (still a timeout)
            assertThat(second.health.status()).isEqualTo(Status.DOWN);
            assertThat(second.health.message()).hasValueSatisfying(m -> assertThat(m).startsWith("timed out after 600 ms"));
            assertThat(app.requests.get()).as("one call in flight").isEqualTo(1);
        }
    }

    /** A refused connection: DOWN in the run's first steps, long before the timeout. */
    @Test
    void aRefusedConnectionIsDownAtOnce() throws Exception {
        int closed;
        try (ServerSocket ss = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = ss.getLocalPort();
        }
        try (HealthRegistry r = registry()) {
            AppReadiness readiness = readiness(r, closed, "readiness=http://127.0.0.1:" + closed + "/health,readiness-timeout=10s", Set.of());
            Run run = run(readiness);
            assertThat(run.health.status()).isEqualTo(Status.DOWN);
            assertThat(run.health.message()).hasValue("not listening (connection refused)");
            assertThat(run.tookMs).as("no wait for a refused connect").isLessThan(5_000);
        }
    }

    /**
     * A full accept backlog (a listener that never accepts): the kernel drops the handshake, so a
     * blocking connect would hang for the whole bound. The start-up connect (a framework without
     * a health endpoint) stays pending across steps and gives up at readiness-timeout; the
     * application is not started. A GET's connect is "connect timed out".
     */
    @Test
    void aFullAcceptBacklogIsWaitedForInStepsThenGivenUp() throws Exception {
        try (ServerSocket full = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            List<Socket> filling = fill(full);
            try (HealthRegistry r = registry()) {
                Assumptions.assumeTrue(filling != null, "this kernel did not leave a connect pending on a full backlog");
                AppReadiness readiness = readiness(r, full.getLocalPort(), "readiness-timeout=1s", Set.of(Frameworks.QUARKUS));
                Run run = run(readiness);
                assertThat(run.longestStepMs).isLessThan(STEP_BOUND_MS);
                assertThat(run.steps).as("the connect waited for in steps").isGreaterThan(3);
                assertThat(run.tookMs).isGreaterThanOrEqualTo(990);
                assertThat(r.availability().isStartupComplete()).as("a connect that never completed is not started").isFalse();

                try (LoopbackGet g = LoopbackGet.start(full.getLocalPort(), "/health", 300)) {
                    long t0 = System.nanoTime();
                    assertThat(g.poll()).as("no answer yet, and no wait").isNull();
                    assertThat((System.nanoTime() - t0) / 1_000_000).isLessThan(STEP_BOUND_MS);
                    LoopbackGet.Answer a = g.await(5_000);
                    assertThat(a).isNotNull();
                    assertThat(a.failure).isEqualTo("connect timed out after 300 ms");
                }
            } finally {
                if (filling != null) {
                    for (Socket s : filling) {
                        s.close();
                    }
                }
            }
        }
    }

    /** Connects to {@code full} until a connect stays pending; the sockets made, or null when none did. */
    private static List<Socket> fill(ServerSocket full) throws IOException {
        List<Socket> made = new ArrayList<>();
        for (int i = 0; i < 32; i++) {
            Socket s = new Socket();
            try {
                s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), full.getLocalPort()), 300);
                made.add(s);
            } catch (SocketTimeoutException e) {
                s.close();
                return made;
            }
        }
        for (Socket s : made) {
            s.close();
        }
        return null;
    }

    /**
     * Quarkus whose endpoints answer after 300 ms: the start-up call and the readiness call each
     * span several steps, each asked once per run (the start-up call, on the readiness connection
     * once it is free, only until it passed).
     */
    @Test
    void theStartupCallResumesAcrossStepsWithoutBeingAskedAgain() throws Exception {
        try (Scripted app = new Scripted((out, n) -> {
            Thread.sleep(300);
            out.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}".getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
        }); HealthRegistry r = registry()) {
            AppReadiness readiness = readiness(r, app.port(), "readiness-timeout=3s", Set.of(Frameworks.QUARKUS, Frameworks.QUARKUS_HEALTH));
            Run run = runUntil(readiness, Status.UP, 3);
            assertThat(run.health.status()).as(run.health.toString()).isEqualTo(Status.UP);
            assertThat(r.availability().isStartupComplete()).isTrue();
            assertThat(run.longestStepMs).isLessThan(STEP_BOUND_MS);
            assertThat(app.paths).as("each asked once").containsExactly("/q/health/ready", "/q/health/started");
            assertThat(app.connections.get()).as("one kept-alive connection").isEqualTo(1);
        }
    }

    /**
     * A gRPC server whose frames trickle in (SETTINGS, then the answer's HEADERS, DATA and
     * trailers, 7 bytes at a time): the h2c call is read across steps and answers SERVING; the
     * server's SETTINGS is acknowledged.
     */
    @Test
    void aGrpcAnswerThatTricklesInIsReadAcrossSteps() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            CompletableFuture<byte[]> fromClient = new CompletableFuture<>();
            Thread t = new Thread(() -> {
                try (Socket c = server.accept()) {
                    InputStream in = c.getInputStream();
                    // The preface, the client's SETTINGS, its HEADERS and DATA: at least 24 + 9 + 9 + 14 bytes.
                    byte[] got = new byte[256];
                    int n = 0;
                    while (n < 24 + 9 + 9 + 14) {
                        int k = in.read(got, n, got.length - n);
                        if (k < 0) {
                            break;
                        }
                        n += k;
                    }
                    ByteArrayOutputStream answer = new ByteArrayOutputStream();
                    frame(answer, 0x4, 0, 0, new byte[0]); // SETTINGS
                    frame(answer, 0x1, 0x4, 1, new byte[] {(byte) 0x88}); // HEADERS :status 200 (indexed), END_HEADERS
                    frame(answer, 0x0, 0, 1, new byte[] {0, 0, 0, 0, 2, 0x08, 0x01}); // DATA: SERVING
                    frame(answer, 0x1, 0x5, 1, new byte[] {0x40, 0x0b, 'g', 'r', 'p', 'c', '-', 's', 't', 'a', 't', 'u', 's', 0x01, '0'}); // trailers, END_STREAM
                    byte[] all = answer.toByteArray();
                    OutputStream out = c.getOutputStream();
                    for (int i = 0; i < all.length; i += 7) {
                        out.write(all, i, Math.min(7, all.length - i));
                        out.flush();
                        Thread.sleep(20);
                    }
                    c.setSoTimeout(2_000);
                    ByteArrayOutputStream rest = new ByteArrayOutputStream();
                    try {
                        for (int k; (k = in.read(got)) > 0; ) {
                            rest.write(got, 0, k);
                        }
                    } catch (SocketTimeoutException e) {
                        // what came after our frames
                    }
                    fromClient.complete(rest.toByteArray());
                } catch (Exception e) {
                    fromClient.completeExceptionally(e);
                }
            }, "trickling-grpc");
            t.setDaemon(true);
            t.start();
            try (GrpcHealthCall c = GrpcHealthCall.connect(server.getLocalPort(), 5_000)) {
                c.call();
                int polls = 0;
                long longest = 0;
                GrpcHealthCall.Answer a = null;
                long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (a == null && System.nanoTime() < end) {
                    long s = System.nanoTime();
                    a = c.poll();
                    longest = Math.max(longest, (System.nanoTime() - s) / 1_000_000);
                    polls++;
                    Thread.sleep(2);
                }
                assertThat(a).isNotNull();
                assertThat(a.h2).isTrue();
                assertThat(a.statusName()).isEqualTo("SERVING");
                assertThat(polls).isGreaterThan(5);
                assertThat(longest).isLessThan(STEP_BOUND_MS);
                byte[] rest = fromClient.get(30, TimeUnit.SECONDS);
                // The client's SETTINGS ACK: length 0, type 4, flags 1, stream 0.
                assertThat(indexOf(rest, new byte[] {0, 0, 0, 4, 1, 0, 0, 0, 0})).as("SETTINGS acknowledged").isGreaterThanOrEqualTo(0);
            }
        }
    }

    private static void frame(ByteArrayOutputStream b, int type, int flags, int id, byte[] p) {
        GrpcHealthCall.frame(b, type, flags, id, p);
    }

    private static int indexOf(byte[] in, byte[] what) {
        outer:
        for (int i = 0; i + what.length <= in.length; i++) {
            for (int j = 0; j < what.length; j++) {
                if (in[i + j] != what[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
