package dev.vitals.server;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Issue 19's benchmark: latency of fresh kubelet-style probes (new connection,
 * {@code Connection: close}, 1 s deadline) to the probe server in a child JVM, unflooded and
 * during 10,000-connection floods of each shape, in the same run, for each transport
 * ({@code -Dvitals.bench.transports=NETTY,JDK}, the default; one child JVM each, one after the
 * other). A failed probe counts at its elapsed time. Not part of {@code mvn verify}:
 *
 * <pre>{@code
 * mvn -B -pl vitals-server -am test -Dvitals.excludedTestGroups= -Dgroups=benchmark \
 *     -Dtest=FloodBenchmark -Dsurefire.failIfNoSpecifiedTests=false
 * }</pre>
 */
@Tag("benchmark")
class FloodBenchmark {
    static final int PROBES = 200;
    static final long SPACING_MILLIS = 20;

    @Test
    void probeLatencyDuringFloodsAgainstTheSameServerUnflooded() throws Exception {
        List<String> rows = new ArrayList<>();
        for (String t : System.getProperty("vitals.bench.transports", "NETTY,JDK").split(",")) {
            rows.add("transport " + t + ", load average " + java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).trim());
            run(ProbeServer.Transport.valueOf(t.trim()), rows);
        }
        System.out.println(String.format(Locale.ROOT, "%-44s %9s %9s %9s %6s  %s", "flood", "p50 ms", "p99 ms", "max ms",
                "failed", "target"));
        rows.forEach(System.out::println);
    }

    private static void run(ProbeServer.Transport transport, List<String> rows) throws Exception {
        try (FloodHarness target = FloodHarness.start(transport)) {
            probes(target, 100); // warm-up
            rows.add(row("unflooded (reference)", probes(target, PROBES), target.stats()));
            Object[][] floods = {
                    {Flood.Shape.IDLE, FloodHarness.loopbacks(1, 1), 0L},
                    {Flood.Shape.HALF_SENT, FloodHarness.loopbacks(2, 9), 0L},
                    {Flood.Shape.SLOW_DRIP, FloodHarness.loopbacks(1, 1), 0L},
                    {Flood.Shape.MIXED, FloodHarness.loopbacks(2, 9), 0L},
                    {Flood.Shape.MIXED, FloodHarness.loopbacks(2, 9), 2000L},
            };
            for (Object[] f : floods) {
                Flood.Shape shape = (Flood.Shape) f[0];
                @SuppressWarnings("unchecked")
                List<InetAddress> sources = (List<InetAddress>) f[1];
                long pace = (Long) f[2];
                try (Flood flood = new Flood(target.address(), sources, shape, FloodTest.HOSTILE, 400_000, pace).start()) {
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                    while (flood.established.get() < FloodTest.HOSTILE && System.nanoTime() < deadline) {
                        Thread.sleep(20);
                    }
                    long e0 = flood.established.get();
                    long t0 = System.nanoTime();
                    long[] lat = probes(target, PROBES);
                    double rate = (flood.established.get() - e0) / ((System.nanoTime() - t0) / 1e9);
                    rows.add(row(String.format(Locale.ROOT, "%s, %d addr, %s", shape, sources.size(),
                            pace == 0 ? String.format(Locale.ROOT, "full speed (%.0f opens/s)", rate) : pace + " opens/s"),
                            lat, target.stats()));
                }
                Thread.sleep(1000);
            }
            rows.add(row("unflooded (again)", probes(target, PROBES), target.stats()));
        }
    }

    private static long[] probes(FloodHarness target, int n) throws InterruptedException {
        long[] lat = new long[n];
        for (int i = 0; i < n; i++) {
            FloodHarness.Probe p = FloodHarness.probe(target.port, "/livez");
            lat[i] = p.status == 200 ? p.micros : -Math.max(1, p.micros);
            Thread.sleep(SPACING_MILLIS);
        }
        return lat;
    }

    private static String row(String name, long[] lat, Map<String, Long> stats) {
        long failed = Arrays.stream(lat).filter(l -> l < 0).count();
        long[] sorted = Arrays.stream(lat).map(Math::abs).sorted().toArray();
        return String.format(Locale.ROOT, "%-44s %9.1f %9.1f %9.1f %6d  open=%d fds=%d rssKb=%d", name,
                sorted[sorted.length / 2] / 1000.0, sorted[(int) Math.ceil(sorted.length * 0.99) - 1] / 1000.0,
                sorted[sorted.length - 1] / 1000.0, failed, stats.get("open"), stats.get("fds"), stats.get("rssKb"));
    }
}
