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
 * <p>And the four faults of issue 24: idle (UP), saturated with completing work (UP, in the
 * scenario above), every worker wedged on a blackholed dependency (liveness DOWN, a restart
 * cures it), the dependency down at boot (startup passes, readiness DOWN); each example's
 * readiness check also connects to {@code faults.dependency}, and {@code GET /test/dependency}
 * calls it with no read timeout.
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

    /**
     * Whether the agent watches the example's request pool (or its requests on virtual threads,
     * Helidon SE 4). An example that overrides this to false skips the stalled and wedged steps,
     * loudly.
     *
     * @return true unless overridden
     */
    protected boolean hasWatchedRequestPool() {
        return true;
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
            if (hasHealthCheck()) {
                slowAndHungChecks(app, probes);
            }
            // Issue 37: the agent's own threads are the floor, its probe loop and the scheduler (which
            // runs the readiness poll with non-blocking sockets, a hung call included): no check thread.
            if (java.nio.file.Files.isDirectory(java.nio.file.Paths.get("/proc/self/task"))) {
                await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(p.threadNames("vitals-"))
                        .as("the agent's threads").containsExactly("vitals-probe-1", "vitals-schedule"));
            }

            // Saturated but completing: twice as many clients as the pool has threads, for more
            // than twice stall-after; liveness stays UP throughout.
            assertSaturatedButCompletingStaysUp(app, probes);
            String saturated = get(probes, "/health/liveness").body;
            if (hasWatchedRequestPool()) {
                assertThat(saturated).as("the request pool's figures are measured in the pool").contains("\":\"UP measured threads=");
            }
            System.out.println("liveness while saturated (" + name + "): " + saturated);

            // A deadlock in application threads.
            get(app, "/test/deadlock");
            await().atMost(Duration.ofSeconds(60)).until(() -> get(probes, "/livez?verbose").body.contains("[-]jvm failed: deadlock: 2 threads"));

            if (!hasWatchedRequestPool()) {
                System.out.println("SKIPPED (" + name + "): the stalled-pool step; no request pool is watched");
                return;
            }
            // A stalled worker pool with waiting work.
            for (int i = 0; i < blockingRequests(); i++) {
                AgentProcess.fireAndForget(app, "GET", "/test/block");
            }
            await().atMost(Duration.ofSeconds(60)).until(() -> get(probes, "/livez?verbose").body.contains("stalled: no task completed for"));
            assertThat(get(probes, "/livez?verbose").body).contains("[-]jvm failed: deadlock: 2 threads; pool '");
            System.out.println("liveness when stalled (" + name + "): " + get(probes, "/health/liveness").body);
        }
    }

    private static void slowAndHungChecks(int app, int probes) {
        // A slow framework check: the agent's call times out, /readyz answers from memory.
        assertThat(get(app, "/test/readiness/slow").status).isEqualTo(200);
        await().atMost(Duration.ofSeconds(60)).until(() -> get(probes, "/readyz?verbose").body.contains("timed out"));
        assertAnsweredFromMemory(probes);

        // A hung framework check: the same, and one connection in flight.
        assertThat(get(app, "/test/readiness/hang").status).isEqualTo(200);
        await().atMost(Duration.ofSeconds(60)).until(() -> get(probes, "/readyz?verbose").body.contains("one call in flight"));
        assertAnsweredFromMemory(probes);
        assertThat(get(probes, "/livez").status).as("liveness never follows readiness").isEqualTo(200);
    }

    /** stall-after for the fault tests: short, so "idle for several times stall-after" is seconds, not 10 minutes. */
    static final Duration STALL_AFTER = Duration.ofSeconds(3);

    /**
     * Whether the example has a readiness check of its own (with the gate and the dependency);
     * without one (Quarkus without a health extension) readiness follows the listener.
     *
     * @return true unless overridden
     */
    protected boolean hasHealthCheck() {
        return true;
    }

    private AgentProcess startWithDependency(String label, int[] ports, int dependencyPort) throws IOException {
        List<String> jvm = new ArrayList<>(jvmArgs(ports[0], ports[1]));
        jvm.add("-Dfaults.dependency=127.0.0.1:" + dependencyPort);
        return AgentProcess.start(name + "-" + label,
                "port=0,details=always,readiness-timeout=1s,readiness-interval=1s,stall-after=" + STALL_AFTER.toSeconds()
                        + "s,deadlock-interval=1s,drain-delay=1s",
                jvm, jar(), appArgs(ports[0], ports[1]).toArray(new String[0]));
    }

    /**
     * Faults 1 and 3 of issue 24 in one process. Idle: no request for five times
     * {@code stall-after} (the agent's own readiness polls only): every {@code /livez} sampled is
     * 200. Wedged: every worker stuck on a blackholed dependency (a real socket that accepts and
     * never answers): {@code /livez} turns 503 "stalled" (the time it took is printed, against
     * {@code stall-after}). A restart (a fresh process, the dependency still blackholed) is live
     * and ready again.
     */
    @Test
    void idleStaysUpAndAWedgedServiceFailsLivenessUntilRestarted() throws Exception {
        try (Blackhole dependency = new Blackhole()) {
            int[] ports = freePorts(2);
            int app = ports[0];
            try (AgentProcess p = startWithDependency("wedged", ports, dependency.port())) {
                int probes = p.probePort();
                await("ready").atMost(BOOT).pollInterval(Duration.ofMillis(250)).until(() -> get(probes, "/readyz").status == 200);
                assertThat(get(probes, "/startupz").status).isEqualTo(200);

                // Idle for 5 x stall-after.
                List<String> notUp = new ArrayList<>();
                long idleUntil = System.nanoTime() + STALL_AFTER.multipliedBy(5).toNanos();
                int samples = 0;
                while (System.nanoTime() < idleUntil) {
                    AgentProcess.Answer a = get(probes, "/livez?verbose");
                    samples++;
                    if (a.status != 200) {
                        notUp.add(a.toString());
                    }
                    Thread.sleep(250);
                }
                assertThat(notUp).as("/livez while idle for " + STALL_AFTER.multipliedBy(5) + " (" + samples + " samples)").isEmpty();

                if (!hasWatchedRequestPool()) {
                    System.out.println("SKIPPED (" + name + "): the wedged step; no request pool is watched");
                    return;
                }
                // Wedge every worker on the blackholed dependency.
                long t0 = System.nanoTime();
                for (int i = 0; i < blockingRequests(); i++) {
                    AgentProcess.fireAndForget(app, "GET", "/test/dependency");
                }
                await("liveness DOWN when wedged").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(250))
                        .until(() -> get(probes, "/livez").status == 503);
                long tookMs = (System.nanoTime() - t0) / 1_000_000;
                String why = get(probes, "/livez?verbose").body;
                System.out.println("wedged (" + name + "): /livez 503 after " + tookMs + " ms (stall-after "
                        + STALL_AFTER.toMillis() + " ms): " + why);
                assertThat(why).contains("stalled");
            }
            // Restart: a fresh process, the dependency still blackholed, no traffic: live and ready.
            try (AgentProcess p = startWithDependency("restarted", freePorts(2), dependency.port())) {
                int probes = p.probePort();
                await("ready after restart").atMost(BOOT).pollInterval(Duration.ofMillis(250)).until(() -> get(probes, "/readyz").status == 200);
                assertThat(get(probes, "/livez").status).isEqualTo(200);
            }
        }
    }

    /**
     * Fault 4 of issue 24: the dependency refuses connections from boot on. Startup passes (the
     * application started), readiness stays DOWN, liveness UP.
     */
    @Test
    void dependencyDownAtBootPassesStartupNotReadiness() throws Exception {
        int down;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            down = s.getLocalPort(); // closed: refuses
        }
        try (AgentProcess p = startWithDependency("dependency-down", freePorts(2), down)) {
            int probes = p.probePort();
            await("startup passes with the dependency down").atMost(BOOT).pollInterval(Duration.ofMillis(250))
                    .until(() -> get(probes, "/startupz").status == 200);
            // Several readiness periods: readiness stays DOWN from the application's own check
            // (without one, the application has nothing to tell: readiness follows the listener).
            int want = hasHealthCheck() ? 503 : 200;
            for (int i = 0; i < 8; i++) {
                AgentProcess.Answer r = get(probes, "/readyz?verbose");
                assertThat(r.status).as(r.toString()).isEqualTo(want);
                Thread.sleep(500);
            }
            if (hasHealthCheck()) {
                assertThat(get(probes, "/readyz?verbose").body).contains("[-]app failed");
            }
            assertThat(get(probes, "/livez").status).isEqualTo(200);
            assertThat(get(probes, "/startupz").status).isEqualTo(200);
        }
    }

    /**
     * Whether {@link #readinessFollowsTheApplicationWhileTheProbePortIsFlooded} runs on this
     * example (one or two examples are enough: the agent's side is the same everywhere).
     *
     * @return false unless overridden
     */
    protected boolean floodTheProbePort() {
        return false;
    }

    /**
     * Issue 30: the agent's readiness poll of the application has its own connection and deadline,
     * apart from the probe port's load. The dependency refuses at boot (readiness DOWN); while 4
     * hostile clients flood the agent's probe port (garbage and half-open connections, until the
     * end of the test, at most 50,000, at most 90 s), the dependency comes up: {@code /readyz} must
     * turn 200 within 30 s and then never read 503 for 10 s of the flood, which must still be
     * running then (a probe the flood itself made fail, status -1, is counted apart: that is the
     * probe path's own figure).
     */
    @Test
    void readinessFollowsTheApplicationWhileTheProbePortIsFlooded() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(floodTheProbePort(), "flood test not enabled for " + name);
        int dependencyPort;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            dependencyPort = s.getLocalPort(); // closed: refuses until opened below
        }
        java.util.concurrent.ExecutorService flood = java.util.concurrent.Executors.newFixedThreadPool(4);
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.atomic.AtomicInteger sent = new java.util.concurrent.atomic.AtomicInteger();
        try (AgentProcess p = startWithDependency("flood", freePorts(2), dependencyPort)) {
            int probes = p.probePort();
            await("startup").atMost(BOOT).pollInterval(Duration.ofMillis(250)).until(() -> get(probes, "/startupz").status == 200);
            await("readiness DOWN: dependency refuses").atMost(Duration.ofSeconds(30)).until(() -> get(probes, "/readyz").status == 503);
            long floodEnd = System.nanoTime() + Duration.ofSeconds(90).toNanos();
            for (int t = 0; t < 4; t++) {
                int k = t;
                flood.execute(() -> {
                    byte[] garbage = dev.vitals.testing.HostileClient.garbage();
                    for (int i = 0; !stop.get() && System.nanoTime() < floodEnd && sent.incrementAndGet() <= 50_000; i++) {
                        try {
                            dev.vitals.testing.HostileClient.send(probes, (i + k) % 2 == 0 ? garbage : new byte[0], (i + k) % 2 == 1);
                        } catch (IOException e) {
                            // refused or timed out under the flood: go on
                        }
                    }
                });
            }
            Thread.sleep(2000); // the flood is on
            try (ServerSocket dependency = new ServerSocket()) {
                dependency.setReuseAddress(true);
                dependency.bind(new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), dependencyPort), 512);
                long t0 = System.nanoTime();
                await("readiness UP while the probe port is flooded").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250))
                        .until(() -> get(probes, "/readyz").status == 200);
                long followedMs = (System.nanoTime() - t0) / 1_000_000;
                List<String> down = new ArrayList<>();
                int failed = 0;
                int samples = 0;
                int sentBefore = sent.get();
                long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
                while (System.nanoTime() < until) {
                    AgentProcess.Answer a = get(probes, "/readyz?verbose");
                    samples++;
                    if (a.status == 503) {
                        down.add(a.toString());
                    } else if (a.status != 200) {
                        failed++;
                    }
                    Thread.sleep(250);
                }
                int during = sent.get() - sentBefore;
                System.out.println("flood (" + name + "): readiness followed the dependency in " + followedMs + " ms; "
                        + sent.get() + " hostile connections, " + during + " of them in the 10 s window; /readyz 503 on "
                        + down.size() + " and no answer on " + failed + " of " + samples + " samples");
                assertThat(during).as("the flood ran through the window").isGreaterThan(100);
                assertThat(down).as("/readyz while flooded, the application ready").isEmpty();
            }
        } finally {
            stop.set(true);
            flood.shutdown();
            flood.awaitTermination(60, java.util.concurrent.TimeUnit.SECONDS);
        }
    }

    /**
     * Issue 24's figures: the example with and without the agent, alternating pairs
     * ({@code -Dvitals.agent.bench.pairs=N}, default 3): start-up (launch until {@code /test/hello}
     * answers), then 10 s later (the agent's readiness and start-up polls running, every 1 s)
     * threads and RSS from {@code /proc/<pid>/status}; medians and the median of the pairwise
     * differences to standard output and {@code target/agent-cost-NAME.txt}. Not a bound: the
     * thread delta is what the application pays, the agent's two threads included.
     */
    @Test
    @org.junit.jupiter.api.Tag("benchmark")
    void costWithAndWithoutTheAgent() throws Exception {
        int pairs = Integer.getInteger("vitals.agent.bench.pairs", 3);
        List<double[]> without = new ArrayList<>();
        List<double[]> with = new ArrayList<>();
        for (int i = 0; i < pairs; i++) {
            without.add(measure(false, i));
            with.add(measure(true, i));
        }
        String[] names = {"start-up to first answer (ms)", "RSS (MiB)", "threads"};
        StringBuilder sb = new StringBuilder("vitals-agent cost on " + name + " (" + pairs + " alternating pairs, medians; java "
                + System.getProperty("java.version") + ")\n");
        sb.append(String.format(java.util.Locale.ROOT, "%-32s %10s %10s %10s%n", "", "without", "with", "delta"));
        for (int k = 0; k < names.length; k++) {
            List<Double> a = new ArrayList<>();
            List<Double> b = new ArrayList<>();
            List<Double> d = new ArrayList<>();
            for (int i = 0; i < pairs; i++) {
                a.add(without.get(i)[k]);
                b.add(with.get(i)[k]);
                d.add(with.get(i)[k] - without.get(i)[k]);
            }
            sb.append(String.format(java.util.Locale.ROOT, "%-32s %10.1f %10.1f %+10.1f%n", names[k], median(a), median(b), median(d)));
        }
        for (int i = 0; i < pairs; i++) {
            sb.append("pair ").append(i).append(": without ").append(java.util.Arrays.toString(without.get(i)))
                    .append(" with ").append(java.util.Arrays.toString(with.get(i))).append('\n');
        }
        System.out.println(sb);
        java.nio.file.Files.writeString(Path.of("target", "agent-cost-" + name + ".txt"), sb.toString());
        assertThat(with).hasSize(pairs);
    }

    private double[] measure(boolean agent, int i) throws Exception {
        int[] ports = freePorts(2);
        long t0 = System.nanoTime();
        try (AgentProcess p = AgentProcess.start(name + "-cost-" + (agent ? "with" : "without") + "-" + i,
                agent ? "port=0,readiness-interval=1s" : null, jvmArgs(ports[0], ports[1]), jar(),
                appArgs(ports[0], ports[1]).toArray(new String[0]))) {
            await("first answer").atMost(BOOT).pollInterval(Duration.ofMillis(20)).until(() -> {
                if (!p.process.isAlive()) {
                    throw new AssertionError("exited: " + p.output());
                }
                return get(ports[0], "/test/hello").status == 200;
            });
            double startMs = (System.nanoTime() - t0) / 1e6;
            Thread.sleep(10_000);
            return new double[] {startMs, p.status("VmRSS:") / 1024.0, p.status("Threads:")};
        }
    }

    private static double median(List<Double> v) {
        List<Double> s = new ArrayList<>(v);
        Collections.sort(s);
        int n = s.size();
        return n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
    }

    /** A dependency that accepts connections and never answers (nor reads). At most 512 held. */
    static final class Blackhole implements AutoCloseable {
        private final ServerSocket server;
        private final List<java.net.Socket> held = new java.util.concurrent.CopyOnWriteArrayList<>();
        private final Thread acceptor;

        Blackhole() throws IOException {
            server = new ServerSocket(0, 512, java.net.InetAddress.getLoopbackAddress());
            acceptor = new Thread(() -> {
                while (!server.isClosed() && held.size() < 512) {
                    try {
                        held.add(server.accept());
                    } catch (IOException e) {
                        return;
                    }
                }
            }, "blackhole-accept");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        int port() {
            return server.getLocalPort();
        }

        @Override
        public void close() throws IOException {
            server.close();
            for (java.net.Socket s : held) {
                s.close();
            }
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
