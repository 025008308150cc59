package dev.vitals.kubesim.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** The Service tells which endpoint answered and how: what the live rollout counts per version. */
class ServiceProxyTest {

    /** An endpoint that answers each connection with {@code reply} (nothing: it closes at once), then closes. */
    private static ServerSocket endpoint(String reply) throws Exception {
        ServerSocket s = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread t = new Thread(() -> {
            while (!s.isClosed()) {
                try (Socket c = s.accept()) {
                    c.getInputStream().read(new byte[1024]);
                    OutputStream out = c.getOutputStream();
                    out.write(reply.getBytes(StandardCharsets.ISO_8859_1));
                    out.flush();
                } catch (Exception e) {
                    return;
                }
            }
        }, "test-endpoint");
        t.setDaemon(true);
        t.start();
        return s;
    }

    private static String get(int port) throws Exception {
        try (Socket c = new Socket(InetAddress.getLoopbackAddress(), port)) {
            c.setSoTimeout(5000);
            try {
                c.getOutputStream().write("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
                InputStream in = c.getInputStream();
                return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
            } catch (java.net.SocketException reset) {
                // reset by the Service: on the read, or already on the write when it reset first
                return "";
            }
        }
    }

    record Seen(int port, boolean ok) {
    }

    @Test
    void eachRelayedAnswerIsReportedForItsEndpoint() throws Exception {
        List<Seen> seen = new CopyOnWriteArrayList<>();
        for (String reply : List.of("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", "HTTP/1.1 302 Found\r\nContent-Length: 0\r\n\r\n",
                "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n", "")) {
            try (ServerSocket ep = endpoint(reply); ServiceProxy service = new ServiceProxy(0)) {
                service.observe((port, ok, seconds) -> {
                    assertThat(seconds).isNotNegative();
                    seen.add(new Seen(port, ok));
                });
                service.set(ep.getLocalPort(), true);
                int expected = seen.size() + 1;
                assertThat(get(service.port())).isEqualTo(reply);
                await().atMost(Duration.ofSeconds(10)).until(() -> seen.size() >= expected);
                assertThat(seen.get(seen.size() - 1).port()).isEqualTo(ep.getLocalPort());
            }
        }
        // 2xx and 3xx answered (kubelet's success range); a 503 or nothing at all failed
        assertThat(seen).extracting(Seen::ok).containsExactly(true, true, false, false);
    }

    @Test
    void anEndpointWhoseProcessIsGoneIsAFailureForIt() throws Exception {
        List<Seen> seen = new CopyOnWriteArrayList<>();
        int gone = LiveFleet.freePort(); // nothing listens there
        try (ServiceProxy service = new ServiceProxy(0)) {
            service.observe((port, ok, seconds) -> seen.add(new Seen(port, ok)));
            service.set(gone, true);
            assertThat(get(service.port())).isEmpty(); // reset: the client sees no answer
            await().atMost(Duration.ofSeconds(10)).until(() -> !seen.isEmpty());
        }
        assertThat(seen).containsExactly(new Seen(gone, false));
    }
}
