package dev.vitals.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.vitals.Check;
import dev.vitals.Groups;
import dev.vitals.Health;
import dev.vitals.HealthRegistry;
import io.grpc.ManagedChannel;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import java.io.IOException;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * QA: the gRPC port had no connection cap; 5,000 idle HTTP/2 connections used every file
 * descriptor and the process's HTTP probes failed. Raw connections that send the preface and an
 * empty SETTINGS, then idle, against a small limit; loopback, bounded in count. Tag
 * {@code flood}: a connection flood with a kubelet deadline, run by .ci/run's end-to-end leg one
 * class at a time, not by the default {@code mvn verify}.
 */
@Tag("flood")
class ConnectionCapTest {
    private static final int LIMIT = 64;
    private static final int EXTRA = 300;

    private HealthRegistry registry;
    private GrpcHealthServer server;
    private final List<RawHttp2> raw = new ArrayList<>();

    @BeforeEach
    void start() {
        registry = HealthRegistry.builder()
                .register(Check.builder("loop", Health::up).groups(Groups.LIVENESS, Groups.READINESS).build()).build();
        registry.start();
    }

    @AfterEach
    void stop() throws Exception {
        for (RawHttp2 c : raw) {
            c.close();
        }
        if (server != null) {
            server.stop(Duration.ZERO);
        }
        registry.close();
    }

    private GrpcHealthServer serve(int max, int perAddress) {
        server = GrpcHealthServer.builder(registry).port(0).bindAddress(InetAddress.getLoopbackAddress())
                .maxConnections(max).maxConnectionsPerAddress(perAddress).build().start();
        return server;
    }

    @Test
    void idleConnectionsOverTheLimitCloseTheOldestAndAFreshCheckIsAnswered() throws Exception {
        serve(LIMIT, LIMIT);
        ManagedChannel watching = Clients.channel(server.port());
        try {
            // a Watch stream, opened before the flood: its connection has a call open, so it goes last
            Clients.Watcher w = Clients.Watcher.open(watching, "liveness");
            await().atMost(Duration.ofSeconds(10)).until(() -> w.last() == ServingStatus.SERVING);
            for (int i = 0; i < LIMIT + EXTRA; i++) {
                raw.add(new RawHttp2(server.port()));
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> server.openConnections() <= LIMIT);

            long t0 = System.nanoTime();
            assertThat(Clients.probe(server.port(), "liveness")).isEqualTo("SERVING");
            long millis = (System.nanoTime() - t0) / 1_000_000;
            System.out.println("ConnectionCapTest: fresh Check during " + (LIMIT + EXTRA) + " idle connections: "
                    + millis + " ms; open " + server.openConnections() + ", evicted " + server.evictedConnections());
            assertThat(millis).as("fresh Check answered within the kubelet's default 1 s timeout").isLessThan(1000);

            // the client side agrees: at most LIMIT of the raw connections are still open
            int stillOpen = 0;
            for (RawHttp2 c : raw) {
                if (!c.closedByServer(20)) {
                    stillOpen++;
                }
            }
            assertThat(stillOpen).isLessThanOrEqualTo(LIMIT - 1); // the Watch connection holds one
            assertThat(server.openConnections()).isLessThanOrEqualTo(LIMIT);
            assertThat(server.evictedConnections()).isGreaterThanOrEqualTo(EXTRA);
            assertThat(w.end).as("the Watch stream's connection was not closed").isNotDone();
            assertThat(Clients.check(watching, "readiness")).isEqualTo("SERVING");
        } finally {
            watching.shutdownNow();
        }
    }

    @Test
    void oneAddressAtItsShareClosesOnlyItsOwnConnections() throws Exception {
        serve(LIMIT, 16);
        List<RawHttp2> others = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            RawHttp2 c = new RawHttp2(server.port(), InetAddress.getByName("127.0.0.1"));
            raw.add(c);
            others.add(c);
        }
        InetAddress flooder = InetAddress.getByName("127.0.0.2");
        for (int i = 0; i < 200; i++) {
            raw.add(new RawHttp2(server.port(), flooder));
        }
        // every flooder connection accepted (the cap acts at the accept; the server may still be
        // accepting when the client's connects have returned, on a loaded machine)
        await().atMost(Duration.ofSeconds(10)).until(() -> server.evictedConnections() >= 200 - 16);
        await().atMost(Duration.ofSeconds(10)).until(() -> server.openConnections() <= 8 + 16);
        for (RawHttp2 c : others) {
            assertThat(c.closedByServer(20)).as("another address's connection").isFalse();
        }
        assertThat(Clients.probe(server.port(), "")).isEqualTo("SERVING");
    }

    @Test
    void settingsAreValidated() {
        assertThatThrownBy(() -> GrpcHealthServer.builder(registry).maxConnections(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxConnections");
        assertThatThrownBy(() -> GrpcHealthServer.builder(registry).maxConnectionsPerAddress(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxConnectionsPerAddress");
        assertThatThrownBy(() -> GrpcHealthServer.builder(registry).maxConnections(10).maxConnectionsPerAddress(11).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxConnectionsPerAddress must be at most maxConnections (10), was 11");
        GrpcHealthServer defaults = GrpcHealthServer.builder(registry).build();
        assertThat(defaults.maxConnections()).isEqualTo(1024);
        assertThat(defaults.maxConnectionsPerAddress()).isEqualTo(256);
        assertThat(GrpcHealthServer.builder(registry).maxConnections(2).build().maxConnectionsPerAddress()).isEqualTo(1);
    }

    @Test
    void closedConnectionsLeaveTheTable() throws IOException {
        serve(LIMIT, LIMIT);
        for (int i = 0; i < 10; i++) {
            raw.add(new RawHttp2(server.port()));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> server.openConnections() == 10);
        for (RawHttp2 c : raw) {
            c.close();
        }
        raw.clear();
        await().atMost(Duration.ofSeconds(10)).until(() -> server.openConnections() == 0);
        assertThat(server.evictedConnections()).isZero();
    }

    @Test
    void aFailingAcceptIsOneDebugLineWithoutAStackTrace() throws Exception {
        // the QA repro's log: "exceptionCaught() ... reached at the tail of the pipeline" at WARN
        // with "java.io.IOException: Too many open files", once a second
        serve(LIMIT, LIMIT);
        java.util.logging.Logger root = java.util.logging.Logger.getLogger("");
        java.util.logging.Logger jul = java.util.logging.Logger.getLogger("dev.vitals.grpc");
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
        root.addHandler(handler);
        try {
            CappedServerChannel listening = server.listeningChannel();
            for (int i = 0; i < 3; i++) {
                listening.pipeline().fireExceptionCaught(new IOException("Too many open files"));
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> records.stream()
                    .anyMatch(r -> r.getMessage().contains("accepting a connection failed")
                            || r.getLevel().intValue() >= java.util.logging.Level.WARNING.intValue()));
            Thread.sleep(200);
            assertThat(records).noneSatisfy(r -> assertThat(r.getLevel().intValue())
                    .isGreaterThanOrEqualTo(java.util.logging.Level.WARNING.intValue()));
            assertThat(records).allSatisfy(r -> assertThat(r.getThrown()).isNull());
            assertThat(records.stream().filter(r -> r.getMessage().contains("accepting a connection failed"))).hasSize(1);
            assertThat(listening.acceptErrors()).isEqualTo(3);
            await().atMost(Duration.ofSeconds(10)).until(() -> listening.config().isAutoRead());
            assertThat(Clients.probe(server.port(), "liveness")).isEqualTo("SERVING");
        } finally {
            root.removeHandler(handler);
            jul.setLevel(level);
        }
    }
}
