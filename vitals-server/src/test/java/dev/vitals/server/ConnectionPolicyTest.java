package dev.vitals.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.vitals.Groups;
import dev.vitals.Health;
import dev.vitals.HealthRegistry;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/** The connection policy of DESIGN.md 6b: who is closed to make room, per-address shares, read deadlines. */
@ParameterizedClass
@EnumSource(ProbeServer.Transport.class)
class ConnectionPolicyTest {
    @Parameter
    ProbeServer.Transport transport;

    private final List<AutoCloseable> closeables = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
    }

    // the table alone: vitals-core's ConnectionTableTest (the same policy serves the gRPC port)

    // ---------------------------------------------------------------- on a real server

    @Test
    void aFloodFromOneAddressPushesOutNeitherOtherClientsNorTheProbe() throws Exception {
        ProbeServer server = start(ProbeServer.builder(registry()).maxConnections(16).maxConnectionsPerAddress(4));
        // A client on another address keeps a connection alive, answered once.
        Socket scraper = connect(server, 3);
        scraper.getOutputStream().write(request("/livez", false));
        assertThat(readStatus(scraper)).isEqualTo(200);
        // 40 idle connections from one address: it may hold 4 of them.
        List<Socket> hostile = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            hostile.add(connect(server, 2));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> server.openConnections() <= 5 && server.evictedConnections() >= 36);

        assertThat(RawHttp.get(server.port(), "/livez").status).as("a fresh probe").isEqualTo(200);
        scraper.getOutputStream().write(request("/livez", false));
        assertThat(readStatus(scraper)).as("the kept-alive client on another address").isEqualTo(200);
        int closed = 0;
        for (Socket s : hostile) {
            s.setSoTimeout(200);
            try {
                if (s.getInputStream().read() < 0) {
                    closed++;
                }
            } catch (java.net.SocketTimeoutException stillOpen) {
                // one of the 4 the address may hold
            } catch (IOException reset) {
                closed++;
            }
        }
        assertThat(closed).as("the flooder's oldest connections were closed").isEqualTo(36);
    }

    @Test
    void connectionsOnOtherEventLoopsAreClosedToMakeRoomToo() throws Exception {
        // Two loops: connections alternate between them, so a victim is often on the other loop.
        ProbeServer server = start(ProbeServer.builder(registry()).eventLoopThreads(2).maxConnections(5)
                .maxConnectionsPerAddress(5));
        List<Socket> idle = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            idle.add(connect(server, 1));
            int open = i + 1;
            await().atMost(Duration.ofSeconds(10)).until(() -> server.openConnections() == open);
        }
        for (int i = 0; i < 4; i++) { // four new kept-alive clients, each answered and kept open
            Socket kept = connect(server, 2);
            kept.getOutputStream().write(request("/livez", false));
            assertThat(readStatus(kept)).as("client " + i).isEqualTo(200);
        }
        assertThat(server.evictedConnections()).isEqualTo(4);
        for (Socket s : idle.subList(0, 4)) {
            s.setSoTimeout(5000);
            int r;
            try {
                r = s.getInputStream().read();
            } catch (IOException reset) {
                r = -1;
            }
            assertThat(r).as("an idle connection closed to make room").isEqualTo(-1);
        }
        assertThat(server.openConnections()).isEqualTo(5);
    }

    @Test
    void builderRejectsAShareAboveTheLimitAndUnrepresentableTimeouts() {
        HealthRegistry r = registry();
        assertThatThrownBy(() -> ProbeServer.builder(r).maxConnections(10).maxConnectionsPerAddress(11).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxConnectionsPerAddress must be at most maxConnections (10), was 11");
        assertThatThrownBy(() -> ProbeServer.builder(r).maxConnectionsPerAddress(0))
                .hasMessage("maxConnectionsPerAddress must be in 1..1000000, was 0");
        assertThatThrownBy(() -> ProbeServer.builder(r).readTimeout(Duration.ofSeconds(Long.MAX_VALUE)))
                .hasMessage("readTimeout must be at most 1 day (PT24H), was PT2562047788015215H30M7S");
        assertThatThrownBy(() -> ProbeServer.builder(r).idleTimeout(Duration.ofDays(2)))
                .hasMessage("idleTimeout must be at most 1 day (PT24H), was PT48H");
        assertThatThrownBy(() -> ProbeServer.builder(r).probeBudget(Duration.ZERO))
                .hasMessage("probeBudget must be in 1 ms..60 s, was PT0S");
        assertThatThrownBy(() -> ProbeServer.builder(r).probeBudget(Duration.ofMinutes(2)))
                .hasMessage("probeBudget must be in 1 ms..60 s, was PT2M");
        ProbeServer defaults = ProbeServer.builder(r).build();
        assertThat(defaults.maxConnections()).isEqualTo(1024);
        assertThat(defaults.maxConnectionsPerAddress()).isEqualTo(256);
        assertThat(defaults.probeBudget()).isEqualTo(Duration.ofMillis(800));
    }

    // ---------------------------------------------------------------- helpers

    private HealthRegistry registry() {
        HealthRegistry r = HealthRegistry.builder()
                .register(Fixtures.scheduled("alive", Health::up, Groups.LIVENESS)).build();
        r.start();
        closeables.add(r);
        // The check's first run is asynchronous: until it completes liveness reads UNKNOWN (503).
        await().atMost(Duration.ofSeconds(10)).until(() -> r.report(Groups.LIVENESS).status() == dev.vitals.Status.UP);
        return r;
    }

    private ProbeServer start(ProbeServer.Builder b) {
        ProbeServer s = b.transport(transport).bindAddress(InetAddress.getLoopbackAddress()).port(0).build().start();
        closeables.add(s);
        return s;
    }

    private Socket connect(ProbeServer server, int lastOctet) throws IOException {
        Socket s = new Socket();
        closeables.add(s);
        s.bind(new InetSocketAddress(InetAddress.getByAddress(new byte[] {127, 0, 0, (byte) lastOctet}), 0));
        s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.port()), 5000);
        s.setSoTimeout(5000);
        return s;
    }

    private static byte[] request(String path, boolean close) {
        return ("GET " + path + " HTTP/1.1\r\nHost: probe\r\n" + (close ? "Connection: close\r\n" : "") + "\r\n")
                .getBytes(StandardCharsets.US_ASCII);
    }

    /** Reads one response (status line, headers, Content-Length body) and returns its status. */
    private static int readStatus(Socket s) throws IOException {
        java.io.InputStream in = s.getInputStream();
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int c = in.read();
            if (c < 0) {
                throw new IOException("closed before a response: " + head);
            }
            head.append((char) c);
        }
        String h = head.toString();
        int i = h.toLowerCase(java.util.Locale.ROOT).indexOf("content-length:");
        int length = Integer.parseInt(h.substring(i + 15, h.indexOf('\r', i)).trim());
        in.readNBytes(length);
        return Integer.parseInt(h.split(" ")[1]);
    }
}
