package dev.vitals.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

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
 * Issue 30, the soak's first minute: gRPC health probes answered 3.2–3.5 s late while the demo's
 * gRPC port took its first floods of idle connections, because grpc-java set up HTTP/2 (codec,
 * timers, the server's SETTINGS) for every accepted connection on the one event-loop thread and a
 * probe's new connection queued behind that work. Here a fresh server (cold code, as in the
 * soak's first minute) takes {@value #ROUNDS} floods of {@value #FLOOD} idle connections from
 * eight addresses (127.0.0.2–9, other pods; more than the per-address share, so the cap closes
 * some), each opened at full speed, held 3 s and closed with a reset, while a kubelet-like client
 * on 127.0.0.1 probes {@code liveness} on a new connection every 100 ms.
 *
 * <p>The bound: the probe budget (800 ms) plus the soak's margin (200 ms) plus 1000 ms for a
 * loaded CI machine (the flooding client runs in this JVM and competes for the same cores):
 * {@value #LIMIT_MS} ms. Measured on a 2-core machine at load average 10–25 (other builds): before
 * the gate the worst probe took 3.4–4.6 s (two runs, each with several over 2 s), with it 0.2–1.0 s.
 * Tag {@code flood}: ~25 s and thousands of sockets, run by .ci/run's end-to-end leg.
 */
@Tag("flood")
class ProbeDuringFloodTest {
    static final int FLOOD = 3000;
    static final int ROUNDS = 3;
    static final long LIMIT_MS = 800 + 200 + 1000;

    private HealthRegistry registry;
    private GrpcHealthServer server;
    private volatile boolean stopped;

    @BeforeEach
    void start() {
        registry = HealthRegistry.builder()
                .register(Check.builder("loop", Health::up).groups(Groups.LIVENESS, Groups.READINESS).build()).build();
        registry.start();
        server = GrpcHealthServer.builder(registry).port(0).bindAddress(InetAddress.getLoopbackAddress()).build().start();
    }

    @AfterEach
    void stop() {
        stopped = true;
        server.stop(Duration.ZERO);
        registry.close();
    }

    /** One probe: when it started (s since the first flood's round began), how long it took, its answer. */
    private record Probe(double at, double ms, String answer) {
    }

    @Test
    void freshProbesDuringConnectionFloodsAnswerWithinBudgetAndMargin() throws Exception {
        int port = server.port();
        // the client's own classes load before the clock: a kubelet's Go client has no such cost
        assertThat(Clients.probe(port, "liveness")).isEqualTo("SERVING");
        List<Probe> probes = Collections.synchronizedList(new ArrayList<>());
        long t0 = System.nanoTime();
        Thread prober = new Thread(() -> {
            while (!stopped) {
                long s = System.nanoTime();
                String answer = Clients.probe(port, "liveness");
                probes.add(new Probe((s - t0) / 1e9, (System.nanoTime() - s) / 1e6, answer));
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "probe-during-flood");
        prober.setDaemon(true);
        prober.start();
        StringBuilder floods = new StringBuilder();
        try {
            for (int round = 0; round < ROUNDS; round++) {
                Thread.sleep(1000);
                double began = (System.nanoTime() - t0) / 1e9;
                List<Socket> held = new ArrayList<>(FLOOD);
                try {
                    for (int i = 0; i < FLOOD; i++) {
                        held.add(idle(InetAddress.getByAddress(new byte[] {127, 0, 0, (byte) (2 + i % 8)}), port));
                    }
                    floods.append(String.format(Locale.ROOT, "flood of %d from %.2f s to %.2f s; ", FLOOD, began,
                            (System.nanoTime() - t0) / 1e9));
                    Thread.sleep(3000);
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
            stopped = true;
            prober.join(15_000);
        }
        List<Probe> all;
        synchronized (probes) {
            all = new ArrayList<>(probes);
        }
        double worst = all.stream().mapToDouble(Probe::ms).max().orElse(0);
        List<Probe> late = all.stream().filter(p -> p.ms() > 200).toList();
        System.out.printf(Locale.ROOT, "ProbeDuringFloodTest: %s%d probes, worst %.1f ms; over 200 ms: %s%n", floods, all.size(),
                worst, late.stream().map(p -> String.format(Locale.ROOT, "%.0f ms at %.2f s", p.ms(), p.at())).toList());

        assertThat(all).as("probes made").hasSizeGreaterThan(20);
        assertThat(all).as("every probe answered SERVING").allSatisfy(p -> assertThat(p.answer()).isEqualTo("SERVING"));
        assertThat(worst).as("worst probe, ms (budget 800 + margin 200 + 1000 for a loaded machine)").isLessThan(LIMIT_MS);
        // the silent connections never reached grpc-java: each was closed at the gate or by the cap
        await().atMost(Duration.ofSeconds(30)).until(() -> server.openConnections() == 0);
        CappedServerChannel listening = server.listeningChannel();
        assertThat(listening.silentClosed() + server.evictedConnections()).isGreaterThanOrEqualTo((long) FLOOD * ROUNDS);
        assertThat(listening.setUps()).as("connections handed to grpc-java: the probes' own").isLessThanOrEqualTo(all.size() + 1);
    }

    /** An idle connection from {@code from}: connects and sends nothing; closed with a reset. */
    private static Socket idle(InetAddress from, int port) throws IOException {
        Socket s = new Socket();
        try {
            s.bind(new InetSocketAddress(from, 0));
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5000);
            s.setSoLinger(true, 0);
            return s;
        } catch (IOException e) {
            s.close();
            throw e;
        }
    }
}
