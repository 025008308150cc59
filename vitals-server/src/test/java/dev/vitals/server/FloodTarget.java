package dev.vitals.server;

import dev.vitals.Check;
import dev.vitals.Groups;
import dev.vitals.Health;
import dev.vitals.HealthRegistry;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

/**
 * The probe server under attack, as a child JVM, so the flood tests can count its own file
 * descriptors and memory: prints {@code port=N}, then answers {@code stats} on stdin with one line
 * of figures, and exits on {@code quit} or end of input. Argument: the transport, {@code NETTY}
 * (default) or {@code JDK}.
 */
public final class FloodTarget {
    private FloodTarget() {
    }

    public static void main(String[] args) throws Exception {
        HealthRegistry registry = HealthRegistry.builder()
                .register(Check.builder("alive", Health::up).groups(Groups.LIVENESS).interval(Duration.ofSeconds(1)).build())
                .build();
        registry.start();
        ProbeServer.Transport transport = args.length > 0 ? ProbeServer.Transport.valueOf(args[0]) : ProbeServer.Transport.NETTY;
        ProbeServer server = ProbeServer.builder(registry).transport(transport).bindAddress(InetAddress.getLoopbackAddress()).port(0).build().start();
        System.out.println("port=" + server.port());
        System.out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line = in.readLine(); line != null && !line.equals("quit"); line = in.readLine()) {
            if (line.equals("stats")) {
                long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
                System.out.println("open=" + server.openConnections() + " evicted=" + server.evictedConnections()
                        + " fds=" + fds() + " rssKb=" + rssKb() + " heapKb=" + heap / 1024
                        + " threads=" + Thread.activeCount());
                System.out.flush();
            }
        }
        server.stop(Duration.ZERO);
        registry.close();
    }

    private static long fds() throws Exception {
        try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
            return s.count();
        }
    }

    private static long rssKb() throws Exception {
        List<String> lines = Files.readAllLines(Path.of("/proc/self/status"));
        for (String l : lines) {
            if (l.startsWith("VmRSS:")) {
                return Long.parseLong(l.replaceAll("[^0-9]", ""));
            }
        }
        return -1;
    }
}
