package dev.vitals.agent.impl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.vitals.Health;
import dev.vitals.HealthRegistry;
import dev.vitals.Status;
import dev.vitals.agent.boot.WorkerCounter;
import dev.vitals.testing.ManualScheduler;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;

/**
 * Requests on virtual threads ({@link WorkerCounter#REQUESTS}): a real HTTP/1.1 server on loopback
 * with a virtual thread per connection ({@code Executors.newVirtualThreadPerTaskExecutor}), each
 * request counted as the agent's advice counts Helidon's {@code Http1Connection.route} (started
 * with the connection, completed on exit), real clients, and the agent's own {@link LoopbackGet}
 * polls on a kept connection. The stall rule without a pool bound: idle (kept-alive connections,
 * no request in flight) is UP whatever the agent polls; requests in flight with others completing
 * is UP; requests in flight and nothing of the application's completing for {@code stall-after}
 * is DOWN, although the agent's own polls keep completing. JDK 21+ (virtual threads); CI runs it
 * on JDK 25 ({@code .ci/run}). The end-to-end check on Helidon itself is {@code HelidonAgentIT}.
 */
@EnabledForJreRange(min = JRE.JAVA_21)
class VirtualThreadRequestsTest {
    private static final Duration STALL_AFTER = Duration.ofSeconds(5);
    private static final String LABEL = WorkerPools.requestsLabel(Server.class.getName());
    private final ManualScheduler scheduler = new ManualScheduler();
    private final CountDownLatch release = new CountDownLatch(1);
    private final List<Socket> clients = new ArrayList<>();
    private HealthRegistry registry;
    private WorkerPools pools;
    private Server server;
    private LoopbackGet agentPoll;

    @BeforeAll
    static void instrument() {
        TestInstrumentation.install();
    }

    @BeforeEach
    void start() throws Exception {
        registry = HealthRegistry.builder().clock(scheduler.clock()).scheduler(scheduler).build();
        pools = new WorkerPools(List.of(), STALL_AFTER, registry, true);
        server = new Server(release);
    }

    @AfterEach
    void stop() throws Exception {
        release.countDown();
        for (Socket c : clients) {
            c.close();
        }
        if (agentPoll != null) {
            agentPoll.close();
        }
        server.close();
        pools.close();
        registry.close();
    }

    /** One poll by the agent, on its kept connection, as AppReadiness polls: answered 200. */
    private void agentPolls() {
        agentPoll = agentPoll == null ? LoopbackGet.start(server.port(), "/hello", 5000) : agentPoll.next(server.port(), "/hello", 5000);
        LoopbackGet.Answer a = agentPoll.await(30_000);
        assertThat(a).isNotNull();
        assertThat(a.status).as("agent poll: " + a.failure).isEqualTo(200);
    }

    /** Each second: the agent polls, the pools are sampled, the watchdogs' clock moves. */
    private Health steps(int seconds, Runnable alsoEachSecond) throws Exception {
        for (int i = 0; i < seconds; i++) {
            agentPolls();
            alsoEachSecond.run();
            pools.sample();
            scheduler.advance(Duration.ofSeconds(1));
        }
        return pools.health();
    }

    private WorkerPools.Reading awaitReading(Predicate<WorkerPools.Reading> p) {
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20)).until(() -> {
            pools.sample();
            WorkerPools.Reading r = pools.reading(LABEL);
            return r != null && p.test(r);
        });
        return pools.reading(LABEL);
    }

    /** A client that sends {@code GET path} and keeps its connection (never reads the answer here). */
    private Socket send(String path) throws IOException {
        Socket s = new Socket(InetAddress.getLoopbackAddress(), server.port());
        clients.add(s);
        s.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        s.getOutputStream().flush();
        return s;
    }

    /** A client's request answered in full, on a new connection that it keeps open afterwards. */
    private void hello() throws IOException {
        Socket s = send("/hello");
        BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII));
        assertThat(in.readLine()).isEqualTo("HTTP/1.1 200 OK");
    }

    @Test
    void idleWithKeptConnectionsAndTheAgentPollingStaysUp() throws Exception {
        hello(); // an application client: its connection stays open and idle
        WorkerPools.Reading r = awaitReading(x -> x.threads() == 1 && x.completed() >= 1 && x.busy() == 0);
        long completed = r.completed();
        assertThat(r.unbounded()).isTrue();
        assertThat(r.hasWork()).isFalse();
        Health h = steps((int) STALL_AFTER.toSeconds() * 3, () -> { });
        assertThat(h.status()).as(h.toString()).isEqualTo(Status.UP);
        r = pools.reading(LABEL);
        assertThat(r.completed()).as("the agent's own polls are not the application's progress").isEqualTo(completed);
        assertThat(r.threads()).as("the agent's connection is not the application's").isEqualTo(1);
    }

    @Test
    void requestsInFlightWhileOthersCompleteStayUp() throws Exception {
        send("/block");
        send("/block");
        long completed = awaitReading(x -> x.busy() == 2 && x.hasWork()).completed();
        Health h = steps((int) STALL_AFTER.toSeconds() * 3, () -> {
            try {
                hello();
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        });
        assertThat(h.status()).as(h.toString()).isEqualTo(Status.UP);
        assertThat(pools.reading(LABEL).completed() - completed).isGreaterThanOrEqualTo(14);
    }

    @Test
    void wedgedRequestsFailLivenessAlthoughTheAgentsPollsComplete() throws Exception {
        for (int i = 0; i < 3; i++) {
            send("/block");
        }
        awaitReading(x -> x.busy() == 3);
        Health before = steps((int) STALL_AFTER.toSeconds() - 1, () -> { });
        assertThat(before.status()).as(before.toString()).isEqualTo(Status.UP);
        Health h = steps(2, () -> { });
        assertThat(h.status()).as(h.toString()).isEqualTo(Status.DOWN);
        assertThat(h.message()).hasValueSatisfying(m -> assertThat(m).contains("pool '" + LABEL + "*': stalled: no task completed for"));
        assertThat(h.details().get(LABEL + "*").toString()).contains("DOWN measured threads=3 busy=3").contains("oldestInFlightMs=");
        WorkerPools.Reading r = pools.reading(LABEL);
        assertThat(r.oldestMs()).as("real time since the oldest request started").isGreaterThanOrEqualTo(0);

        // The requests complete: progress, UP again.
        release.countDown();
        awaitReading(x -> x.busy() == 0 && x.completed() >= 3);
        assertThat(steps(1, () -> { }).status()).isEqualTo(Status.UP);
    }

    /**
     * A minimal HTTP/1.1 server: one virtual thread per connection serving its requests in turn,
     * each counted as the advice on Helidon's {@code route} counts it. {@code /block} waits for
     * the test's release; anything else answers {@code ok}.
     */
    static final class Server implements AutoCloseable {
        private final ServerSocket socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        private final ExecutorService threads;
        private final CountDownLatch release;
        private final Thread acceptor;

        Server(CountDownLatch release) throws Exception {
            this.release = release;
            this.threads = (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
            acceptor = new Thread(this::accept, "vt-test-accept");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        int port() {
            return socket.getLocalPort();
        }

        private void accept() {
            while (!socket.isClosed()) {
                try {
                    Socket c = socket.accept();
                    threads.execute(() -> serve(c));
                } catch (IOException | java.util.concurrent.RejectedExecutionException e) {
                    return;
                }
            }
        }

        private void serve(Socket c) {
            try (c) {
                BufferedReader in = new BufferedReader(new InputStreamReader(c.getInputStream(), StandardCharsets.US_ASCII));
                OutputStream out = c.getOutputStream();
                for (String line; (line = in.readLine()) != null; ) {
                    String path = line.split(" ")[1];
                    while (!(line = in.readLine()).isEmpty()) {
                        // headers
                    }
                    WorkerCounter.requestStarted(Server.class, c);
                    try {
                        if (path.equals("/block")) {
                            release.await();
                        }
                        out.write("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n".getBytes(StandardCharsets.US_ASCII));
                        out.flush();
                    } finally {
                        WorkerCounter.completed(Server.class);
                    }
                }
            } catch (IOException | InterruptedException | RuntimeException e) {
                // the client went away, or the test ended
            }
        }

        @Override
        public void close() throws IOException {
            socket.close();
            threads.shutdownNow();
        }
    }
}
