package dev.vitals.bench.suite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The load tools against real sockets on 127.0.0.1 and against canned answers. */
class LoadToolsTest {

    @Test
    void probeAndKeepAliveLoadWorkAgainstTheFixed200Ceiling() throws Exception {
        try (Fixed200Server server = new Fixed200Server()) {
            HttpProbe.Result r = HttpProbe.get(server.port(), "/", Duration.ofSeconds(30)); // generous: the first request loads Netty's classes
            assertThat(r.ok()).as(r.toString()).isTrue();
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.latencyMs()).isPositive();
            long[] latencies = KeepAliveLoad.run(server.port(), "/", 2, 1);
            assertThat(latencies).isNotEmpty();
            assertThat(java.util.Arrays.stream(latencies).min().getAsLong()).isPositive();
        }
    }

    @Test
    void probeReportsATimeoutWhenTheServerNeverAnswers() throws Exception {
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            HttpProbe.Result r = HttpProbe.get(silent.getLocalPort(), "/livez", Duration.ofMillis(300));
            assertThat(r.ok()).isFalse();
            assertThat(r.error()).isEqualTo("timeout");
            assertThat(r.status()).isEqualTo(-1);
            assertThat(r.latencyMs()).isGreaterThanOrEqualTo(250);
        }
    }

    @Test
    void probeFailsOnA503AndOnARefusedConnection() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread t = new Thread(() -> {
                try (Socket s = server.accept()) {
                    s.getInputStream().read(new byte[1024]);
                    s.getOutputStream().write("HTTP/1.1 503 Service Unavailable\r\nContent-Length: 4\r\n\r\nfail"
                            .getBytes(StandardCharsets.US_ASCII));
                } catch (IOException e) {
                    // the assertion below reports it
                }
            }, "vitals-test-503");
            t.setDaemon(true);
            t.start();
            HttpProbe.Result r = HttpProbe.get(server.getLocalPort(), "/readyz", Duration.ofSeconds(5));
            assertThat(r.status()).isEqualTo(503);
            assertThat(r.error()).isEqualTo("status 503");
        }
        int closed;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = s.getLocalPort();
        }
        HttpProbe.Result refused = HttpProbe.get(closed, "/livez", Duration.ofSeconds(2));
        assertThat(refused.ok()).isFalse();
        assertThat(refused.error()).startsWith("ConnectException");
    }

    @Test
    void readResponseHandlesContentLengthChunkedAndConnectionClose() throws IOException {
        byte[] buf = new byte[4096];
        assertThat(KeepAliveLoad.readResponse(in("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"), buf)).isTrue();
        assertThat(KeepAliveLoad.readResponse(in("HTTP/1.1 200 \r\nTransfer-Encoding: chunked\r\n\r\nf\r\n{\"status\":\"UP\"}\r\n0\r\n\r\n"), buf))
                .isTrue();
        assertThat(KeepAliveLoad.readResponse(in("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"), buf)).isFalse();
        assertThatThrownBy(() -> KeepAliveLoad.readResponse(in("HTTP/1.1 503 X\r\nContent-Length: 0\r\n\r\n"), buf))
                .hasMessageStartingWith("unexpected response: HTTP/1.1 503");
        assertThatThrownBy(() -> KeepAliveLoad.readResponse(in("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nok"), buf))
                .hasMessage("closed mid-response");
        assertThatThrownBy(() -> KeepAliveLoad.readResponse(in("HTTP/1.1 200 OK\r\n\r\nok"), buf))
                .hasMessageStartingWith("neither Content-Length nor chunked");
    }

    private static InputStream in(String s) {
        return new ByteArrayInputStream(s.getBytes(StandardCharsets.ISO_8859_1));
    }
}
