package dev.vitals.server;

import dev.vitals.Check;
import dev.vitals.Groups;
import dev.vitals.Health;
import dev.vitals.HealthRegistry;
import dev.vitals.Mode;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * Run by {@code JdkTransportLoadsNoNettyTest} in a child JVM whose class path holds no Netty jar:
 * starts the probe server on the JDK transport, sends it a scheduled probe, an on-demand probe,
 * a JSON report, a HEAD and a malformed request, stops it gracefully, and prints
 * {@code answers: <statuses>}. Exits 1 if a status is not the expected one.
 */
public final class NoNettyTarget {
    private NoNettyTarget() {
    }

    public static void main(String[] args) throws Exception {
        HealthRegistry registry = HealthRegistry.builder()
                .register(Check.builder("alive", Health::up).groups(Groups.LIVENESS).build())
                .register(Check.builder("db", () -> Health.down("no db")).groups(Groups.READINESS).mode(Mode.ON_DEMAND).build())
                .build();
        registry.start();
        registry.availability().markStartupComplete();
        ProbeServer server = ProbeServer.builder(registry).transport(ProbeServer.Transport.JDK)
                .bindAddress(InetAddress.getLoopbackAddress()).port(0).build().start();
        StringBuilder answers = new StringBuilder();
        int[] expected = {200, 503, 200, 200, 400};
        String[] requests = {
                "GET /livez HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                "GET /readyz?verbose HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                "GET /health/liveness HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                "HEAD /startupz HTTP/1.0\r\n\r\n",
                "GARBAGE\r\n\r\n"};
        boolean ok = true;
        for (int i = 0; i < requests.length; i++) {
            int status = exchange(server.port(), requests[i]);
            answers.append(status).append(' ');
            ok &= status == expected[i];
        }
        server.stop(Duration.ofSeconds(1));
        registry.close();
        System.out.println("answers: " + answers.toString().trim());
        System.exit(ok ? 0 : 1);
    }

    private static int exchange(int port, String request) throws Exception {
        long until = System.nanoTime() + 10_000_000_000L;
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 10_000);
            s.setSoTimeout(10_000);
            s.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
            InputStream in = s.getInputStream();
            StringBuilder line = new StringBuilder();
            for (int c = in.read(); c >= 0 && c != '\n' && System.nanoTime() < until; c = in.read()) {
                line.append((char) c);
            }
            String[] parts = line.toString().split(" ");
            return parts.length > 1 ? Integer.parseInt(parts[1]) : -1;
        }
    }
}
