package dev.vitals.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.vitals.Check;
import dev.vitals.Groups;
import dev.vitals.Health;
import dev.vitals.HealthRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;
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
                + "0\r\n\r\nGET /readyz HTTP/1.1\r\n\r\n").getBytes(StandardCharsets.US_ASCII)),
        TLS_CLIENT_HELLO(tlsClientHello()),
        GARBAGE(garbage()),
        HALF_OPEN(new byte[0]),
        OVERSIZED_HEADER(("GET /livez HTTP/1.1\r\nX: " + "a".repeat(64 * 1024) + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));

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
        Capture capture = Capture.install();
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

    /** Connects, writes {@code bytes}, half-closes or not, drains what the server sends, closes. */
    static void send(int port, byte[] bytes, boolean halfOpen) throws IOException {
        try (Socket c = new Socket()) {
            c.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5_000);
            c.setSoTimeout(halfOpen ? 1 : 2_000);
            OutputStream out = c.getOutputStream();
            if (bytes.length > 0) {
                out.write(bytes);
                out.flush();
            }
            if (halfOpen) {
                return; // a connect, nothing sent, then gone
            }
            c.shutdownOutput();
            InputStream in = c.getInputStream();
            byte[] buf = new byte[4096];
            try {
                while (in.read(buf) >= 0) {
                    // drain until the server closes
                }
            } catch (IOException e) {
                // a reset or the read timeout: the server may answer either way
            }
        }
    }

    private static byte[] garbage() {
        byte[] b = new byte[512];
        new Random(30).nextBytes(b);
        return b;
    }

    /** A minimal TLS 1.2 ClientHello record (what a TLS prober sends first). */
    private static byte[] tlsClientHello() {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.write(0x03);
        body.write(0x03); // client_version TLS 1.2
        body.writeBytes(new byte[32]); // random
        body.write(0); // session id length
        body.writeBytes(new byte[] {0, 2, (byte) 0xc0, 0x2f}); // one cipher suite
        body.writeBytes(new byte[] {1, 0}); // compression: null
        body.writeBytes(new byte[] {0, 0}); // no extensions
        byte[] b = body.toByteArray();
        ByteArrayOutputStream rec = new ByteArrayOutputStream();
        rec.writeBytes(new byte[] {0x16, 0x03, 0x01, (byte) ((b.length + 4) >> 8), (byte) (b.length + 4)});
        rec.writeBytes(new byte[] {0x01, 0, (byte) (b.length >> 8), (byte) b.length});
        rec.writeBytes(b);
        return rec.toByteArray();
    }

    /** Everything logged at INFO and above, formatted with stack traces as a file would hold it. */
    static final class Capture extends Handler {
        private final Logger root = Logger.getLogger("");
        private final Level oldLevel = root.getLevel();
        private final SimpleFormatter format = new SimpleFormatter();
        private final List<LogRecord> records = new ArrayList<>();

        static Capture install() {
            Capture c = new Capture();
            c.setLevel(Level.INFO);
            c.root.setLevel(Level.INFO);
            c.root.addHandler(c);
            return c;
        }

        void remove() {
            root.removeHandler(this);
            root.setLevel(oldLevel);
        }

        @Override
        public synchronized void publish(LogRecord r) {
            if (isLoggable(r)) {
                records.add(r);
            }
        }

        synchronized long bytes() {
            long n = 0;
            for (LogRecord r : records) {
                n += format.format(r).getBytes(StandardCharsets.UTF_8).length;
            }
            return n;
        }

        synchronized Map<String, Integer> byLogger() {
            Map<String, Integer> m = new TreeMap<>();
            for (LogRecord r : records) {
                m.merge(r.getLoggerName() + " " + r.getLevel() + " " + r.getMessage(), 1, Integer::sum);
            }
            return m;
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    }
}
