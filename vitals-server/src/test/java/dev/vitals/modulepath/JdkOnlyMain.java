package dev.vitals.modulepath;

import dev.vitals.Check;
import dev.vitals.Groups;
import dev.vitals.Health;
import dev.vitals.HealthRegistry;
import dev.vitals.server.ProbeServer;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * A tiny application on the module path with no Netty module: run by
 * {@code JdkTransportModulePathTest} in a child JVM whose module path holds vitals-server,
 * vitals-core and jackson-core only (this class on the class path, in a package of its own). It
 * starts the probe server on the default transport, asks it for {@code /livez}, tries
 * {@code Transport.NETTY}, and prints what it saw, one fact a line.
 */
public final class JdkOnlyMain {
    private JdkOnlyMain() {
    }

    public static void main(String[] args) throws Exception {
        System.out.println("module: " + ProbeServer.class.getModule().getName());
        System.out.println("netty module: " + (ModuleLayer.boot().findModule("io.netty.transport").isPresent() ? "present" : "absent"));
        HealthRegistry registry = HealthRegistry.builder()
                .register(Check.builder("alive", Health::up).groups(Groups.LIVENESS).build())
                .build();
        registry.start();
        try (ProbeServer server = ProbeServer.builder(registry).bindAddress(InetAddress.getLoopbackAddress()).port(0)
                .build().start()) {
            System.out.println("transport: " + server.transport());
            System.out.println("livez: " + status(server.port(), "/livez"));
        }
        try {
            ProbeServer.builder(registry).transport(ProbeServer.Transport.NETTY)
                    .bindAddress(InetAddress.getLoopbackAddress()).port(0).build().start().stop(Duration.ZERO);
            System.out.println("NETTY: started");
        } catch (IllegalStateException e) {
            System.out.println("NETTY: " + e.getMessage());
        }
        registry.close();
    }

    private static int status(int port, String path) throws Exception {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 10_000);
            s.setSoTimeout(10_000);
            s.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            InputStream in = s.getInputStream();
            StringBuilder line = new StringBuilder();
            for (int c = in.read(); c >= 0 && c != '\n'; c = in.read()) {
                line.append((char) c);
            }
            String[] parts = line.toString().split(" ");
            return parts.length > 1 ? Integer.parseInt(parts[1]) : -1;
        }
    }
}
