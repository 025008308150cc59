package dev.vitals.grpc;

import static dev.vitals.testing.HostileClient.garbage;
import static dev.vitals.testing.HostileClient.send;
import static dev.vitals.testing.HostileClient.tlsClientHello;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.vitals.Check;
import dev.vitals.Groups;
import dev.vitals.Health;
import dev.vitals.HealthRegistry;
import dev.vitals.testing.LogCapture;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 30: no client can fill the disk through the gRPC port. Each bad connection shape (HTTP/1.1
 * on the gRPC port, a TLS ClientHello, random bytes, a half-open connection, a broken HTTP/2
 * preface) is sent {@value #CONNECTIONS} times; everything logged at INFO or above, by any logger
 * (grpc-java, its shaded Netty, Vitals), formatted as a file handler would write it with stack
 * traces, must stay under {@value #LOG_BOUND} bytes. Before the fix, one HTTP/1.x connection wrote
 * one INFO "Transport failed" with a ~25-frame stack trace (≈ 2.8 KB): 300 connections ≈ 840 KB.
 */
class LogFloodTest {
    static final int CONNECTIONS = 300;
    static final int LOG_BOUND = 8 * 1024;

    /** A bad client's connection. */
    enum Shape {
        HTTP1("GET /health HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII)),
        TLS_CLIENT_HELLO(tlsClientHello()),
        GARBAGE(garbage()),
        HALF_OPEN(new byte[0]),
        BROKEN_PREFACE("PRI * HTTP/2.0\r\n\r\nXX\r\n\r\n".getBytes(StandardCharsets.US_ASCII));

        final byte[] bytes;

        Shape(byte[] bytes) {
            this.bytes = bytes;
        }
    }

    @ParameterizedTest
    @EnumSource(Shape.class)
    void badConnectionsAreCountedNotLogged(Shape shape) throws Exception {
        LogCapture capture = LogCapture.install();
        try (HealthRegistry r = HealthRegistry.builder()
                .register(Check.builder("loop", Health::up).groups(Groups.LIVENESS).build()).build()) {
            r.start();
            GrpcHealthServer s = GrpcHealthServer.builder(r).port(0).bindAddress(InetAddress.getLoopbackAddress())
                    .handshakeTimeout(Duration.ofMillis(200)).build().start();
            try {
                long failuresBefore = s.clientFailures();
                for (int i = 0; i < CONNECTIONS; i++) {
                    send(s.port(), shape.bytes, shape == Shape.HALF_OPEN);
                }
                await().atMost(Duration.ofSeconds(60)).until(() -> s.openConnections() == 0);
                // the port still serves (a fresh connection each try: the loopback may still be
                // closing the flood's sockets on a loaded machine)
                await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                        assertThat(Clients.probe(s.port(), "liveness")).isEqualTo("SERVING"));
                if (shape != Shape.HALF_OPEN) {
                    await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                            assertThat(s.clientFailures() - failuresBefore).as("counted").isPositive());
                }
            } finally {
                s.close();
            }
        } finally {
            capture.remove();
        }
        assertThat(capture.bytes()).as("log bytes after %d %s connections; loggers: %s", CONNECTIONS, shape, capture.byLogger())
                .isLessThan(LOG_BOUND);
    }
}
