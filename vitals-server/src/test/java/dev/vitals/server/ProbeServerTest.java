package dev.vitals.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.vitals.Check;
import dev.vitals.Groups;
import dev.vitals.Health;
import dev.vitals.HealthRegistry;
import dev.vitals.Mode;
import dev.vitals.Status;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/** Each transport's glue on a real loopback socket: routes, headers, keep-alive, lifecycle, threads. */
@ParameterizedClass
@EnumSource(ProbeServer.Transport.class)
class ProbeServerTest {
    @Parameter
    ProbeServer.Transport transport;

    static final String SECRET = "jdbc:postgresql://db.internal:5432/app?user=admin&password=s3cr3t-pw";

    HealthRegistry registry;
    ProbeServer server;

    @BeforeEach
    void setUp() {
        registry = HealthRegistry.builder()
                .register(Fixtures.scheduled("deadlock", () -> Health.up().withDetail("threads", 12), Groups.LIVENESS))
                .register(Fixtures.scheduled("db", () -> {
                    throw new IllegalStateException("cannot connect to " + SECRET);
                }, Groups.READINESS))
                .build();
        registry.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> registry.report(Groups.READINESS).checks().get("db").status() == Status.DOWN
                && registry.report(Groups.LIVENESS).status() == Status.UP);
    }

    @AfterEach
    void tearDown() {
        if (server != null) {
            server.stop(Duration.ZERO);
        }
        registry.close();
    }

    ProbeServer start(ProbeServer.Builder b) {
        server = b.transport(transport).bindAddress(InetAddress.getLoopbackAddress()).port(0).build().start();
        return server;
    }

    @Test
    void servesEveryRouteWithTheContractHeaders() throws Exception {
        int port = start(ProbeServer.builder(registry)).port();
        assertThat(port).isPositive();

        RawHttp.Response live = RawHttp.get(port, "/livez");
        assertThat(live.statusLine).isEqualTo("HTTP/1.1 200 OK");
        assertThat(live.body).isEqualTo("ok");
        assertThat(live.header("Content-Type")).isEqualTo("text/plain; charset=utf-8");
        assertThat(live.header("Content-Length")).isEqualTo("2");
        assertThat(live.header("Cache-Control")).isEqualTo("no-store");
        assertThat(live.header("X-Content-Type-Options")).isEqualTo("nosniff");
        assertThat(live.header("Connection")).isEqualTo("close");

        assertThat(RawHttp.get(port, "/livez?verbose").body).isEqualTo("[+]deadlock ok\n[+]availability ok\nlivez check passed\n");
        RawHttp.Response ready = RawHttp.get(port, "/readyz");
        assertThat(ready.statusLine).isEqualTo("HTTP/1.1 503 Service Unavailable");
        assertThat(ready.body).isEqualTo("[-]db failed: reason withheld\n[+]availability ok\nreadyz check failed\n");
        assertThat(RawHttp.get(port, "/readyz?exclude=db").status).isEqualTo(200);
        assertThat(RawHttp.get(port, "/readyz/db").body).isEqualTo("internal server error: reason withheld\n");
        assertThat(RawHttp.get(port, "/livez/deadlock").body).isEqualTo("ok");
        assertThat(RawHttp.get(port, "/startupz").status).isEqualTo(200);
        RawHttp.Response json = RawHttp.get(port, "/health/liveness");
        assertThat(json.status).isEqualTo(200);
        assertThat(json.header("Content-Type")).isEqualTo("application/json");
        assertThat(json.header("Cache-Control")).isEqualTo("no-store");
        assertThat(json.body).startsWith("{\"status\":\"UP\",\"checks\":{\"deadlock\":{\"status\":\"UP\",\"durationMs\":")
                .doesNotContain("threads");
        RawHttp.Response all = RawHttp.get(port, "/health");
        assertThat(all.status).isEqualTo(503);
        assertThat(all.body).startsWith("{\"status\":\"DOWN\",\"groups\":{\"liveness\":");
        assertThat(RawHttp.get(port, "/nope").status).isEqualTo(404);
        assertThat(RawHttp.get(port, "/readyz/nope").status).isEqualTo(404);
        assertThat(RawHttp.get(port, "/health/nope").status).isEqualTo(404);
        assertThat(RawHttp.get(port, "/livez?bogus").status).isEqualTo(400);

        RawHttp.Response post = RawHttp.exchange(port, "POST /livez HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n", 5000);
        assertThat(post.status).isEqualTo(405);
        assertThat(post.header("Allow")).isEqualTo("GET, HEAD");
        assertThat(post.body).isEqualTo("method not allowed\n");

        RawHttp.Response head = RawHttp.exchange(port, "HEAD /readyz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 5000);
        assertThat(head.status).isEqualTo(503);
        assertThat(head.header("Content-Length")).isEqualTo(String.valueOf(ready.body.length()));
        assertThat(head.body).isEmpty();
    }

    @Test
    void headSendsNoBodyOnAKeptAliveConnection() throws Exception {
        int port = start(ProbeServer.builder(registry)).port();
        try (RawHttp c = new RawHttp(port, 5000)) {
            c.send("HEAD /livez?verbose HTTP/1.1\r\nHost: x\r\n\r\n");
            RawHttp.Response head = c.read(true);
            assertThat(head.header("Content-Length"))
                    .isEqualTo(String.valueOf("[+]deadlock ok\n[+]availability ok\nlivez check passed\n".length()));
            // If the body had been sent, this would read it as the next status line.
            c.send("GET /livez HTTP/1.1\r\nHost: x\r\n\r\n");
            RawHttp.Response get = c.read(false);
            assertThat(get.statusLine).isEqualTo("HTTP/1.1 200 OK");
            assertThat(get.body).isEqualTo("ok");
        }
    }

    @Test
    void keepsHttp11AliveAndHonoursConnectionClose() throws Exception {
        int port = start(ProbeServer.builder(registry)).port();
        try (RawHttp c = new RawHttp(port, 5000)) {
            for (int i = 0; i < 3; i++) {
                c.send("GET /livez HTTP/1.1\r\nHost: x\r\n\r\n");
                RawHttp.Response r = c.read(false);
                assertThat(r.body).isEqualTo("ok");
                assertThat(r.header("Connection")).isNull();
            }
            // kubelet's request: Connection: close, then the server closes its side.
            c.send("GET /livez HTTP/1.1\r\nHost: x\r\nUser-Agent: kube-probe/1.33\r\nConnection: close\r\n\r\n");
            RawHttp.Response last = c.read(false);
            assertThat(last.header("Connection")).isEqualTo("close");
            assertThat(c.awaitsEof()).isTrue();
        }
    }

    @Test
    void http10ClosesUnlessAskedToKeepAlive() throws Exception {
        int port = start(ProbeServer.builder(registry)).port();
        try (RawHttp c = new RawHttp(port, 5000)) {
            c.send("GET /livez HTTP/1.0\r\n\r\n");
            assertThat(c.read(false).header("Connection")).isEqualTo("close");
            assertThat(c.awaitsEof()).isTrue();
        }
        try (RawHttp c = new RawHttp(port, 5000)) {
            c.send("GET /livez HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
            assertThat(c.read(false).header("Connection")).isEqualTo("keep-alive");
            c.send("GET /livez HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
            assertThat(c.read(false).body).isEqualTo("ok");
        }
    }

    @Test
    void answersPipelinedRequestsInOrderEvenAcrossOnDemandEvaluation() throws Exception {
        HealthRegistry onDemand = HealthRegistry.builder()
                .register(Fixtures.slowOnDemand("slow", Duration.ofMillis(300), Duration.ofSeconds(5), Groups.READINESS))
                .build();
        onDemand.availability().markStartupComplete();
        try {
            int port = start(ProbeServer.builder(onDemand)).port();
            try (RawHttp c = new RawHttp(port, 10_000)) {
                c.send("GET /readyz?verbose HTTP/1.1\r\nHost: x\r\n\r\nGET /livez?verbose HTTP/1.1\r\nHost: x\r\n\r\n"
                        + "GET /nope HTTP/1.1\r\nHost: x\r\n\r\n");
                assertThat(c.read(false).body).isEqualTo("[+]slow ok\n[+]availability ok\nreadyz check passed\n");
                assertThat(c.read(false).body).isEqualTo("[+]availability ok\nlivez check passed\n");
                assertThat(c.read(false).status).isEqualTo(404);
            }
        } finally {
            server.stop(Duration.ZERO);
            onDemand.close();
        }
    }

    @Test
    void aRequestWithABodyIsAnsweredAndClosed() throws Exception {
        int port = start(ProbeServer.builder(registry)).port();
        try (RawHttp c = new RawHttp(port, 5000)) {
            c.send("POST /readyz HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello");
            RawHttp.Response r = c.read(false);
            assertThat(r.status).isEqualTo(405);
            assertThat(r.header("Connection")).isEqualTo("close");
            assertThat(c.awaitsEof()).isTrue();
        }
    }

    @Test
    void anAddressThisMachineDoesNotHaveIsNamedAsSuch() throws Exception {
        // 192.0.2.1 is TEST-NET-1 (RFC 5737): never a local address. A fresh user read "the port is
        // already in use" for it.
        ProbeServer s = ProbeServer.builder(registry).transport(transport).bindAddress(InetAddress.getByName("192.0.2.1")).port(0).build();
        assertThatThrownBy(s::start).isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("probe server cannot listen on port 0 (192.0.2.1): the address is not one of this machine's");
        assertThat(s.isRunning()).isFalse();
    }

    @Test
    void startingTwiceOrOnABusyPortFailsNamingThePort() throws Exception {
        ProbeServer s = start(ProbeServer.builder(registry));
        int port = s.port();
        assertThatThrownBy(s::start).isInstanceOf(IllegalStateException.class)
                .hasMessage("probe server is already running on port " + port);

        Set<String> threadsBefore = liveVitalsThreads();
        ProbeServer second = ProbeServer.builder(registry).transport(transport).bindAddress(InetAddress.getLoopbackAddress()).port(port).build();
        assertThatThrownBy(second::start).isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("probe server cannot listen on port " + port + " (127.0.0.1): the port is already in use");
        assertThat(second.isRunning()).isFalse();
        // The failed start leaves no event-loop thread behind.
        await().atMost(Duration.ofSeconds(10)).until(() -> liveVitalsThreads().equals(threadsBefore));

        try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            ProbeServer third = ProbeServer.builder(registry).transport(transport).bindAddress(InetAddress.getLoopbackAddress())
                    .port(taken.getLocalPort()).build();
            assertThatThrownBy(third::start).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("port " + taken.getLocalPort());
        }

        s.stop(Duration.ofSeconds(1));
        assertThat(s.isRunning()).isFalse();
        assertThatThrownBy(s::start).isInstanceOf(IllegalStateException.class)
                .hasMessage("probe server (port " + port + ") was stopped; build a new one to start again");
        s.stop(Duration.ZERO); // idempotent
    }

    @Test
    void aClosedRegistryCannotBeServed() {
        HealthRegistry closed = HealthRegistry.builder().build();
        closed.close();
        assertThatThrownBy(() -> ProbeServer.builder(closed).transport(transport).port(0).build().start())
                .isInstanceOf(IllegalStateException.class).hasMessage("health registry is closed");
    }

    @Test
    void gracefulStopFinishesAnswersInProgressThenRefusesConnections() throws Exception {
        HealthRegistry onDemand = HealthRegistry.builder()
                .register(Fixtures.slowOnDemand("slow", Duration.ofMillis(800), Duration.ofSeconds(5), Groups.READINESS))
                .build();
        onDemand.availability().markStartupComplete();
        ExecutorService pool = Executors.newFixedThreadPool(1);
        try {
            // A budget past the 800 ms check, so its answer is still in progress when the stop begins.
            int port = start(ProbeServer.builder(onDemand).probeBudget(Duration.ofSeconds(3))).port();
            RawHttp idle = new RawHttp(port, 5000);
            idle.send("GET /livez HTTP/1.1\r\nHost: x\r\n\r\n");
            assertThat(idle.read(false).status).isEqualTo(200);
            RawHttp slow = new RawHttp(port, 10_000);
            slow.send("GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n");
            await().atMost(Duration.ofSeconds(5)).until(() -> server.openConnections() == 2);
            Thread.sleep(100); // let the evaluation start
            Future<?> stopping = pool.submit(() -> server.stop(Duration.ofSeconds(5)));
            RawHttp.Response answered = slow.read(false);
            assertThat(answered.status).isEqualTo(200);
            assertThat(answered.header("Connection")).isEqualTo("close");
            assertThat(idle.awaitsEof()).isTrue();
            stopping.get(10, TimeUnit.SECONDS);
            assertThatThrownBy(() -> new RawHttp(port, 1000).close()).isInstanceOf(IOException.class);
            idle.close();
            slow.close();
        } finally {
            pool.shutdownNow();
            onDemand.close();
        }
    }

    @Test
    void everyThreadItStartsIsADaemonNamedVitalsProbe() throws Exception {
        Set<Thread> before = Thread.getAllStackTraces().keySet();
        int port = start(ProbeServer.builder(registry).eventLoopThreads(2)).port();
        for (int i = 0; i < 4; i++) {
            assertThat(RawHttp.get(port, "/livez").status).isEqualTo(200);
        }
        Set<Thread> started = Thread.getAllStackTraces().keySet().stream().filter(t -> !before.contains(t))
                .filter(t -> !t.getName().startsWith("vitals-check-") && !t.getName().equals("vitals-scheduler"))
                .filter(t -> t.getThreadGroup() != null && !"system".equals(t.getThreadGroup().getName()))
                .collect(Collectors.toSet());
        assertThat(started).isNotEmpty().allSatisfy(t -> {
            assertThat(t.getName()).startsWith("vitals-probe-");
            assertThat(t.isDaemon()).isTrue();
        });
        server.stop(Duration.ofSeconds(1));
        await().atMost(Duration.ofSeconds(10)).until(() -> started.stream().noneMatch(Thread::isAlive));
    }

    @Test
    void basePathPrefixesEveryRoute() throws Exception {
        int port = start(ProbeServer.builder(registry).basePath("/probes")).port();
        assertThat(RawHttp.get(port, "/probes/livez").body).isEqualTo("ok");
        assertThat(RawHttp.get(port, "/probes/health/liveness").status).isEqualTo(200);
        assertThat(RawHttp.get(port, "/livez").status).isEqualTo(404);
    }

    @Test
    void detailsPolicyOverHttp() throws Exception { // case C15, every format, over a real socket
        for (DetailsPolicy hidden : new DetailsPolicy[] {DetailsPolicy.never(), DetailsPolicy.whenAuthorized("t0ken-t0ken")}) {
            int port = start(ProbeServer.builder(registry).detailsPolicy(hidden)).port();
            for (String target : new String[] {"/readyz", "/readyz?verbose", "/readyz/db", "/health", "/health/readiness"}) {
                for (String auth : new String[] {"", "Authorization: Bearer wrong-token\r\n"}) {
                    RawHttp.Response r = RawHttp.exchange(port, "GET " + target + " HTTP/1.1\r\nHost: x\r\n" + auth
                            + "Connection: close\r\n\r\n", 5000);
                    assertThat(r.status).isEqualTo(503);
                    assertThat(r.toString()).as(hidden + " " + target)
                            .doesNotContain("s3cr3t", "db.internal", "admin", "jdbc", "IllegalStateException", "threads");
                }
            }
            server.stop(Duration.ZERO);
        }
        int port = start(ProbeServer.builder(registry).detailsPolicy(DetailsPolicy.whenAuthorized("t0ken-t0ken"))).port();
        RawHttp.Response authorized = RawHttp.exchange(port, "GET /health HTTP/1.1\r\nHost: x\r\n"
                + "Authorization: Bearer t0ken-t0ken\r\nConnection: close\r\n\r\n", 5000);
        assertThat(authorized.body).contains(SECRET, "java.lang.IllegalStateException", "\"threads\":12");
        server.stop(Duration.ZERO);
        port = start(ProbeServer.builder(registry).detailsPolicy(DetailsPolicy.always())).port();
        assertThat(RawHttp.get(port, "/readyz").body)
                .isEqualTo("[-]db failed: java.lang.IllegalStateException: cannot connect to " + SECRET
                        + "\n[+]availability ok\nreadyz check failed\n");
    }

    @Test
    void builderValidatesAndNamesTheBound() {
        ProbeServer.Builder b = ProbeServer.builder(registry);
        assertThatThrownBy(() -> b.port(65536)).hasMessage("port must be in 0..65535, was 65536");
        assertThatThrownBy(() -> b.port(-1)).hasMessage("port must be in 0..65535, was -1");
        assertThatThrownBy(() -> b.eventLoopThreads(0)).hasMessage("eventLoopThreads must be in 1..16, was 0");
        assertThatThrownBy(() -> b.maxConnections(0)).hasMessage("maxConnections must be in 1..1000000, was 0");
        assertThatThrownBy(() -> b.maxHeaderSize(100)).hasMessage("maxHeaderSize must be in 256..1048576 bytes, was 100");
        assertThatThrownBy(() -> b.readTimeout(Duration.ZERO)).hasMessage("readTimeout must be at least 1 ms, was PT0S");
        assertThatThrownBy(() -> b.idleTimeout(Duration.ofNanos(10))).hasMessage("idleTimeout must be at least 1 ms, was PT0.00000001S");
        assertThatThrownBy(() -> b.basePath("probes")).hasMessage("basePath must start with '/' and not end with '/', was 'probes'");
        assertThatThrownBy(() -> b.basePath("/probes/")).hasMessage("basePath must start with '/' and not end with '/', was '/probes/'");
        assertThatThrownBy(() -> b.basePath("/pro bes")).hasMessage("basePath may hold letters, digits and - . _ ~ / only, was '/pro bes'");
        assertThatThrownBy(() -> b.detailsPolicy(null)).isInstanceOf(NullPointerException.class).hasMessage("policy");
        assertThatThrownBy(() -> ProbeServer.builder(null)).isInstanceOf(NullPointerException.class).hasMessage("registry");
        ProbeServer s = ProbeServer.builder(registry).build();
        assertThat(s.port()).isEqualTo(8081);
        assertThat(s.bindAddress()).isEmpty();
        assertThat(s.maxHeaderSize()).isEqualTo(8192);
        assertThat(s.readTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(s.detailsPolicy()).isSameAs(DetailsPolicy.never());
        assertThat(s.eventLoopThreads()).isBetween(1, 2);
        assertThat(s.transport()).isEqualTo(ProbeServer.Transport.JDK);
        assertThatThrownBy(() -> b.transport(null)).isInstanceOf(NullPointerException.class).hasMessage("transport");
        assertThatThrownBy(() -> s.stop(Duration.ofSeconds(-1))).hasMessage("grace must not be negative, was PT-1S");
    }

    @Test
    void onDemandGroupsAreEvaluatedOffTheEventLoop() throws Exception {
        CountDownLatch ran = new CountDownLatch(1);
        String[] thread = new String[1];
        HealthRegistry onDemand = HealthRegistry.builder()
                .register(Check.builder("probe-thread", () -> {
                    thread[0] = Thread.currentThread().getName();
                    ran.countDown();
                    return Health.up();
                }).groups(Groups.READINESS).mode(Mode.ON_DEMAND).build())
                .build();
        onDemand.availability().markStartupComplete();
        try {
            int port = start(ProbeServer.builder(onDemand)).port();
            assertThat(RawHttp.get(port, "/readyz").body).isEqualTo("ok");
            assertThat(ran.await(5, TimeUnit.SECONDS)).isTrue();
            assertThat(thread[0]).startsWith("vitals-check-").doesNotStartWith("vitals-probe");
        } finally {
            server.stop(Duration.ZERO);
            onDemand.close();
        }
    }

    @Test
    void anEvaluationThatMissesItsDeadlineIsAnsweredFromMemoryByTheEventLoop() throws Exception {
        // A scheduler that never runs anything: the engine's own timeout never fires, so only the
        // server's safety deadline (the shorter of group deadline and probe budget, + 100 ms, on the
        // event loop) can answer.
        CountDownLatch hang = new CountDownLatch(1);
        HealthRegistry stuck = HealthRegistry.builder()
                .scheduler((delayNanos, task) -> () -> { })
                .register(Check.builder("hang", () -> {
                    hang.await(10, TimeUnit.SECONDS);
                    return Health.up();
                }).groups(Groups.READINESS).mode(Mode.ON_DEMAND).timeout(Duration.ofMillis(200)).build())
                .build();
        try {
            int port = start(ProbeServer.builder(stuck)).port();
            long start = System.nanoTime();
            RawHttp.Response r = RawHttp.get(port, "/readyz");
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertThat(r.status).isEqualTo(503);
            assertThat(r.body).isEqualTo("[-]hang failed: reason withheld\n[+]availability ok\nreadyz check failed\n");
            assertThat(millis).as("waited for the group deadline and the margin, then answered").isBetween(300L, 5000L);
            assertThat(RawHttp.get(port, "/livez").body).isEqualTo("ok");
        } finally {
            hang.countDown();
            server.stop(Duration.ZERO);
            stuck.close();
        }
    }

    static Set<String> liveVitalsThreads() {
        return Thread.getAllStackTraces().keySet().stream().map(Thread::getName).filter(n -> n.startsWith("vitals-probe"))
                .collect(Collectors.toSet());
    }
}
