package dev.vitals.server;

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
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;

/**
 * Issue 30: no client can fill the disk through the probe port, on either transport. Each bad
 * connection shape (an HTTP/2 preface, a TLS ClientHello, random bytes, a half-open connection,
 * a smuggling-style request) is sent {@value #CONNECTIONS} times; everything logged at INFO or
 * above by any logger, formatted as a file handler would write it, must stay under
 * {@value #LOG_BOUND} bytes. (The gRPC port has the same test in vitals-grpc.)
 */
class LogFloodTest {
    static final int CONNECTIONS = 300;
    static final int LOG_BOUND = 8 * 1024;

    /** A bad client's connection. */
    enum Shape {
        HTTP2_PREFACE("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII)),
        SMUGGLING(("POST /livez HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "0\r\n\r\nGET /readyz HTTP/1.1\r\nHost: x\r\n\r\n").getBytes(StandardCharsets.US_ASCII)),
        TLS_CLIENT_HELLO(tlsClientHello()),
        GARBAGE(garbage()),
        HALF_OPEN(new byte[0]),
        OVERSIZED_HEADER(("GET /livez HTTP/1.1\r\nHost: x\r\nX: " + "a".repeat(64 * 1024) + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));

        final byte[] bytes;

        Shape(byte[] bytes) {
            this.bytes = bytes;
        }
    }

    static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> shapes() {
        List<org.junit.jupiter.params.provider.Arguments> all = new ArrayList<>();
        for (ProbeServer.Transport t : ProbeServer.Transport.values()) {
            for (Shape s : Shape.values()) {
                all.add(org.junit.jupiter.params.provider.Arguments.of(t, s));
            }
        }
        return all.stream();
    }

    @ParameterizedTest
    @org.junit.jupiter.params.provider.MethodSource("shapes")
    void badConnectionsLeaveTheLogAlone(ProbeServer.Transport transport, Shape shape) throws Exception {
        LogCapture capture = LogCapture.install();
        try (HealthRegistry r = HealthRegistry.builder()
                .register(Check.builder("loop", Health::up).groups(Groups.LIVENESS).build()).build()) {
            r.start();
            ProbeServer s = ProbeServer.builder(r).transport(transport).port(0).bindAddress(InetAddress.getLoopbackAddress())
                    .build().start();
            try {
                for (int i = 0; i < CONNECTIONS; i++) {
                    send(s.port(), shape.bytes, shape == Shape.HALF_OPEN);
                }
                await().atMost(Duration.ofSeconds(60)).until(() -> RawHttp.get(s.port(), "/livez").status == 200);
            } finally {
                s.close();
            }
        } finally {
            capture.remove();
        }
        assertThat(capture.bytes()).as("log bytes after %d %s connections (%s); loggers: %s", CONNECTIONS, shape, transport,
                capture.byLogger()).isLessThan(LOG_BOUND);
    }
}
