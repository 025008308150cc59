package dev.vitals.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.vitals.Groups;
import dev.vitals.Health;
import dev.vitals.HealthRegistry;
import dev.vitals.Status;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 40, on both transports: a request with two {@code Host} headers is refused with 400 (RFC
 * 9112 §3.2), and no byte a client sends — CR, LF, a terminal's escape sequences — reaches the
 * server's log raw, at any level.
 */
@ParameterizedClass
@EnumSource(ProbeServer.Transport.class)
class HostileHeadersTest {
    @Parameter
    ProbeServer.Transport transport;

    private final Logger serverLog = Logger.getLogger("dev.vitals.server");
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final SimpleFormatter format = new SimpleFormatter();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord r) {
            lines.add(format.formatMessage(r) + (r.getThrown() == null ? "" : " " + r.getThrown()));
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };
    private Level before;
    private HealthRegistry registry;
    private ProbeServer server;

    @BeforeEach
    void setUp() {
        before = serverLog.getLevel();
        serverLog.setLevel(Level.ALL); // debug lines too: a connection error is logged at DEBUG
        serverLog.addHandler(capture);
        registry = HealthRegistry.builder().register(Fixtures.scheduled("alive", Health::up, Groups.LIVENESS)).build();
        registry.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> registry.report(Groups.LIVENESS).status() == Status.UP);
        server = ProbeServer.builder(registry).transport(transport).bindAddress(InetAddress.getLoopbackAddress()).port(0)
                .build().start();
    }

    @AfterEach
    void tearDown() {
        server.stop(Duration.ofSeconds(2));
        registry.close();
        serverLog.removeHandler(capture);
        serverLog.setLevel(before);
    }

    @Test
    void aRequestWithTwoHostHeadersIsRefusedWith400() throws Exception {
        RawHttp.Response twice = RawHttp.exchange(server.port(),
                "GET /livez HTTP/1.1\r\nHost: probe\r\nHOST: evil.example\r\nConnection: close\r\n\r\n", 5000);
        assertThat(twice.status).as(twice.toString()).isEqualTo(400);
        RawHttp.Response once = RawHttp.exchange(server.port(), "GET /livez HTTP/1.1\r\nHost: probe\r\nConnection: close\r\n\r\n", 5000);
        assertThat(once.status).isEqualTo(200);
    }

    @Test
    void anHttp11RequestWithoutHostIsRefusedWith400AndHttp10MayOmitIt() throws Exception {
        // RFC 9112 section 3.2: a server MUST answer 400 to an HTTP/1.1 request that lacks Host
        RawHttp.Response none = RawHttp.exchange(server.port(), "GET /livez HTTP/1.1\r\nConnection: close\r\n\r\n", 5000);
        assertThat(none.status).as(none.toString()).isEqualTo(400);
        assertThat(none.toString()).contains("missing Host header");
        RawHttp.Response old = RawHttp.exchange(server.port(), "GET /livez HTTP/1.0\r\n\r\n", 5000);
        assertThat(old.status).as(old.toString()).isEqualTo(200);
        // the kubelet's request as its prober writes it (Go net/http: Host from the URL, kube-probe User-Agent, Accept */*)
        RawHttp.Response kubelet = RawHttp.exchange(server.port(), "GET /livez HTTP/1.1\r\nHost: 10.1.2.3:" + server.port()
                + "\r\nUser-Agent: kube-probe/1.35\r\nAccept: */*\r\nConnection: close\r\n\r\n", 5000);
        assertThat(kubelet.status).isEqualTo(200);
        // the JDK's own client sends Host (HttpURLConnection here; java.net.http's HttpClient, which kubesim's load uses, too)
        java.net.HttpURLConnection jdk = (java.net.HttpURLConnection) new java.net.URL("http://127.0.0.1:" + server.port() + "/livez")
                .openConnection();
        try {
            assertThat(jdk.getResponseCode()).isEqualTo(200);
        } finally {
            jdk.disconnect();
        }
    }

    @Test
    void crLfAndAnsiEscapesFromTheHttpPortNeverReachTheLogRaw() throws Exception {
        List<String> evil = List.of(
                "GET /livez\u001b[2J\u001b[31mowned HTTP/1.1\r\nHost: probe\r\n\r\n",
                "GET /livez\rINFO: forged line HTTP/1.1\r\nHost: probe\r\n\r\n",
                "GET /livez HTTP/1.1\r\nHost: probe\u001b]0;title\u0007\r\n\r\n",
                "GET /livez HTTP/1.1\r\nHost: x\r\nX-Note: a\rINFO: forged\r\n\r\n",
                "GET /livez HTTP/1.\u001b\r\nHost: probe\r\n\r\n",
                "\u001b[31mGET /livez HTTP/1.1\r\nHost: x\r\n\r\n");
        for (String request : evil) {
            RawHttp.Response r = RawHttp.exchange(server.port(), request, 5000);
            assertThat(r.status).as(request).isEqualTo(400);
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> lines.stream().filter(l -> l.contains("bad request")).count()
                >= evil.size());
        for (String line : lines) {
            assertThat(line).as("a logged line").doesNotContain("\u001b").doesNotContain("\r").doesNotContain("\n")
                    .doesNotContain("\u0007");
        }
    }
}
