package dev.vitals.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vitals.Check;
import dev.vitals.Groups;
import dev.vitals.Health;
import dev.vitals.HealthRegistry;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Issue 30 (soak warm-up): fresh gRPC health probes, a new connection each as kubelet's grpc probe
 * makes, while connection floods hit the port, as {@code tools/soak} does at each cycle's start:
 * idle TCP connections (no HTTP/2 preface) from eight addresses at full speed, held 3 s, closed.
 * The server is fresh in this JVM, so the first flood meets cold code, as the soak's first minute did.
 */
@Tag("flood")
class ProbeDuringFloodTest {
    private static final int FLOOD = Integer.getInteger("vitals.probeFlood.connections", 600);
    private static final int ROUNDS = Integer.getInteger("vitals.probeFlood.rounds", 3);

    private HealthRegistry registry;
    private GrpcHealthServer server;

    @BeforeEach
    void start() {
        registry = HealthRegistry.builder()
                .register(Check.builder("loop", Health::up).groups(Groups.LIVENESS, Groups.READINESS).build()).build();
        registry.start();
        server = GrpcHealthServer.builder(registry).port(0).bindAddress(InetAddress.getLoopbackAddress()).build().start();
    }

    @AfterEach
    void stop() {
        server.stop(Duration.ZERO);
        registry.close();
    }

    @Test
    void freshProbesDuringConnectionFloods() throws Exception {
        int port = server.port();
        Clients.probe(port, "liveness"); // the client's classes, loaded before the clock starts
        List<double[]> probes = Collections.synchronizedList(new ArrayList<>());
        long t0 = System.nanoTime();
        volatile_stop = false;
        Thread prober = new Thread(() -> {
            while (!volatile_stop) {
                long s = System.nanoTime();
                String r = Clients.probe(port, "liveness");
                double ms = (System.nanoTime() - s) / 1e6;
                probes.add(new double[] {(s - t0) / 1e9, ms, r.equals("SERVING") ? 1 : 0});
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "probe-during-flood");
        prober.setDaemon(true);
        prober.start();
        List<double[]> floods = new ArrayList<>();
        try {
            for (int round = 0; round < ROUNDS; round++) {
                Thread.sleep(1000);
                double start = (System.nanoTime() - t0) / 1e9;
                List<Socket> held = new ArrayList<>();
                try {
                    for (int i = 0; i < FLOOD; i++) {
                        Socket s = new Socket();
                        s.bind(new InetSocketAddress(InetAddress.getByAddress(new byte[] {127, 0, 0, (byte) (2 + i % 8)}), 0));
                        s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5000);
                        s.setSoLinger(true, 0);
                        held.add(s);
                    }
                    double opened = (System.nanoTime() - t0) / 1e9;
                    Thread.sleep(3000);
                    floods.add(new double[] {start, opened});
                } finally {
                    for (Socket s : held) {
                        try {
                            s.close();
                        } catch (IOException e) {
                            // closing anyway
                        }
                    }
                }
            }
            Thread.sleep(1500);
        } finally {
            volatile_stop = true;
            prober.join(15_000);
        }
        List<double[]> copy;
        synchronized (probes) {
            copy = new ArrayList<>(probes);
        }
        StringBuilder out = new StringBuilder();
        for (double[] f : floods) {
            out.append(String.format(Locale.ROOT, "flood of %d at %.2f s, all open at %.2f s%n", FLOOD, f[0], f[1]));
        }
        double worst = 0;
        List<Double> sorted = new ArrayList<>();
        for (double[] p : copy) {
            out.append(String.format(Locale.ROOT, "  probe at %6.2f s: %7.1f ms %s%n", p[0], p[1], p[2] == 1 ? "" : "FAILED"));
            worst = Math.max(worst, p[1]);
            sorted.add(p[1]);
        }
        Collections.sort(sorted);
        out.append(String.format(Locale.ROOT, "probes %d, p50 %.1f ms, p99 %.1f ms, worst %.1f ms%n", sorted.size(),
                sorted.get(sorted.size() / 2), sorted.get((int) Math.min(sorted.size() - 1, Math.ceil(sorted.size() * 0.99) - 1)), worst));
        System.out.print("ProbeDuringFloodTest:\n" + out);
        assertThat(copy).isNotEmpty();
    }

    private static volatile boolean volatile_stop;
}
