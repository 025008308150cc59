package dev.vitals.agent;

import static dev.vitals.agent.AgentProcess.get;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * One framework example, unmodified, with the agent attached, in a child JVM: readiness found
 * on its own, a slow and a hung framework check leave {@code /readyz} answering from memory with
 * the check DOWN "timed out", a deadlock in application threads and a stalled worker pool make
 * {@code /livez} DOWN. Each example serves the same test routes on its application port:
 * {@code GET /test/readiness/slow|hang} (its readiness check sleeps 3 s / blocks forever from then
 * on), {@code GET /test/deadlock} (two threads deadlock), {@code GET /test/block} (the request
 * blocks forever on a worker), {@code GET /test/work?ms=N} (the request holds a worker N ms) and
 * {@code GET /test/hello}: the fault logic of {@code examples/agent-faults}.
 *
 * <p>A subclass names the example and says how to give it its ports.
 */
public abstract class FrameworkAgentScenario {
    private static final Duration BOOT = Duration.ofSeconds(150);
    private final String name;
    private final String defaultJar;
    private final String readinessPath;

    /**
     * @param name a short name for the log file
     * @param defaultJar the application jar, run with {@code -jar}, when the system property
     *     {@code example.jar} is not set
     * @param readinessPath the readiness path the agent must find on its own
     */
    protected FrameworkAgentScenario(String name, String defaultJar, String readinessPath) {
        this.name = name;
        this.defaultJar = defaultJar;
        this.readinessPath = readinessPath;
    }

    private Path jar() {
        return Path.of(System.getProperty("example.jar", defaultJar));
    }

    /** @return JVM flags (ports as system properties, say) */
    protected abstract List<String> jvmArgs(int appPort, int adminPort);

    /** @return arguments after the jar */
    protected List<String> appArgs(int appPort, int adminPort) {
        return List.of();
    }


    /** @return how many blocking requests saturate the worker pool */
    protected int blockingRequests() {
        return 12;
    }

    @Test
    void agentGivesTheUnmodifiedServiceBoundedProbes() throws Exception {
        int[] ports = freePorts(2);
        int app = ports[0];
        try (AgentProcess p = AgentProcess.start(name,
                "port=0,details=always,readiness-timeout=1s,readiness-interval=1s,stall-after=4s,deadlock-interval=1s,drain-delay=1s",
                jvmArgs(app, ports[1]), jar(), appArgs(app, ports[1]).toArray(new String[0]))) {
            int probes = p.probePort();
            await("readiness from " + readinessPath).atMost(BOOT).pollInterval(Duration.ofMillis(250))
                    .until(() -> get(probes, "/readyz").status == 200);
            assertThat(get(probes, "/health/readiness").body).as(p.output()).contains(readinessPath);
            assertThat(get(probes, "/startupz").status).isEqualTo(200);
            assertThat(get(probes, "/livez").status).isEqualTo(200);
            assertThat(get(app, "/test/hello").status).isEqualTo(200);

            // A slow framework check: the agent's call times out, /readyz answers from memory.
            assertThat(get(app, "/test/readiness/slow").status).isEqualTo(200);
            await().atMost(Duration.ofSeconds(60)).until(() -> get(probes, "/readyz?verbose").body.contains("timed out"));
            assertAnsweredFromMemory(probes);

            // A hung framework check: the same, and one connection in flight.
            assertThat(get(app, "/test/readiness/hang").status).isEqualTo(200);
            await().atMost(Duration.ofSeconds(60)).until(() -> get(probes, "/readyz?verbose").body.contains("one call in flight"));
            assertAnsweredFromMemory(probes);
            assertThat(get(probes, "/livez").status).as("liveness never follows readiness").isEqualTo(200);

            // Saturated but completing: twice as many clients as the pool has threads, for more
            // than twice stall-after; liveness stays UP throughout.
            assertSaturatedButCompletingStaysUp(app, probes);
            String saturated = get(probes, "/health/liveness").body;
            assertThat(saturated).as("the request pool's figures are measured in the pool").contains("\":\"UP measured threads=");
            System.out.println("liveness while saturated (" + name + "): " + saturated);

            // A deadlock in application threads.
            get(app, "/test/deadlock");
            await().atMost(Duration.ofSeconds(60)).until(() -> get(probes, "/livez?verbose").body.contains("[-]jvm failed: deadlock: 2 threads"));

            // A stalled worker pool with waiting work.
            for (int i = 0; i < blockingRequests(); i++) {
                AgentProcess.fireAndForget(app, "GET", "/test/block");
            }
            await().atMost(Duration.ofSeconds(60)).until(() -> get(probes, "/livez?verbose").body.contains("stalled: no task completed for"));
            assertThat(get(probes, "/livez?verbose").body).contains("[-]jvm failed: deadlock: 2 threads; pool '");
            String stalled = get(probes, "/health/liveness").body;
            assertThat(stalled).as("the stalled pool is measured").contains("\":\"DOWN measured threads=");
            System.out.println("liveness when stalled (" + name + "): " + stalled);
        }
    }

    /**
     * 16 clients call {@code /test/work?ms=200} in a loop for 10 s (at most 400 calls each): the
     * pool is saturated and completing; every {@code /livez} sampled meanwhile must be 200.
     */
    private static void assertSaturatedButCompletingStaysUp(int app, int probes) throws Exception {
        java.util.concurrent.ExecutorService clients = java.util.concurrent.Executors.newFixedThreadPool(16);
        java.util.concurrent.atomic.AtomicInteger done = new java.util.concurrent.atomic.AtomicInteger();
        long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        try {
            for (int c = 0; c < 16; c++) {
                clients.execute(() -> {
                    for (int i = 0; i < 400 && System.nanoTime() < until; i++) {
                        if (get(app, "/test/work?ms=200").status == 200) {
                            done.incrementAndGet();
                        }
                    }
                });
            }
            List<String> notUp = new ArrayList<>();
            int samples = 0;
            while (System.nanoTime() < until) {
                AgentProcess.Answer a = get(probes, "/livez?verbose");
                samples++;
                if (a.status != 200) {
                    notUp.add(a.toString());
                }
                Thread.sleep(250);
            }
            assertThat(notUp).as("/livez while saturated but completing (" + samples + " samples)").isEmpty();
            assertThat(done.get()).as("requests completed").isGreaterThan(16);
        } finally {
            clients.shutdownNow();
            clients.awaitTermination(30, java.util.concurrent.TimeUnit.SECONDS);
        }
    }

    /** 21 probes in a row: every one far under the framework's hang, the median under 50 ms. */
    static void assertAnsweredFromMemory(int port) {
        List<Long> times = new ArrayList<>();
        for (int i = 0; i < 21; i++) {
            AgentProcess.Answer a = get(port, "/readyz?verbose");
            assertThat(a.status).as(a.toString()).isEqualTo(503);
            assertThat(a.body).contains("[-]app failed: timed out");
            times.add(a.millis);
        }
        Collections.sort(times);
        System.out.println("/readyz answer times (ms, sorted): " + times);
        assertThat(times.get(10)).as("median of " + times).isLessThan(50);
        assertThat(times.get(20)).as("slowest of " + times).isLessThan(2000);
    }

    /**
     * Ports that were free a moment ago, below the kernel's ephemeral range (10000-32767): the
     * agent's own {@code port=0}, and every client connection on the machine, take ephemeral
     * ports, so a port picked by binding 0 could be taken again before the application binds it.
     */
    static int[] freePorts(int n) throws IOException {
        int[] out = new int[n];
        java.util.concurrent.ThreadLocalRandom r = java.util.concurrent.ThreadLocalRandom.current();
        for (int i = 0; i < n; i++) {
            for (int attempt = 0; ; attempt++) {
                int p = 10_000 + r.nextInt(22_000);
                boolean taken = false;
                for (int j = 0; j < i; j++) {
                    taken |= out[j] == p;
                }
                if (!taken && free(p)) {
                    out[i] = p;
                    break;
                }
                if (attempt > 1000) {
                    throw new IOException("no free port between 10000 and 32000");
                }
            }
        }
        return out;
    }

    private static boolean free(int port) {
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(true);
            s.bind(new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
