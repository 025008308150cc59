package dev.vitals.server;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The two transports side by side in one run (issue 15): each in its own child JVM
 * ({@link FloodTarget}: {@code -Xmx64m -XX:+UseSerialGC -XX:TieredStopAtLevel=1}), rounds in
 * alternating order so load drifts hit both alike. Per round and transport: keep-alive throughput
 * of {@code GET /livez} over {@link #CONNECTIONS} connections, one blocking client thread each, for
 * {@link #SECONDS} s after a warm-up, with the latency of every request; then {@link #PROBES}
 * kubelet-style probes (fresh connection, {@code Connection: close}) 5 ms apart; then the target's
 * RSS and threads. Not part of {@code mvn verify}:
 *
 * <pre>{@code
 * mvn -B -pl vitals-server -am test -Dvitals.excludedTestGroups= -Dgroups=benchmark \
 *     -Dtest=TransportBenchmark -Dsurefire.failIfNoSpecifiedTests=false
 * }</pre>
 */
@Tag("benchmark")
class TransportBenchmark {
    static final int CONNECTIONS = 16;
    static final int SECONDS = Integer.getInteger("vitals.bench.seconds", 10);
    static final int ROUNDS = Integer.getInteger("vitals.bench.rounds", 2);
    static final int PROBES = 500;
    private static final byte[] REQUEST = "GET /livez HTTP/1.1\r\nHost: probe\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    @Test
    void jdkTransportAgainstNettyTransport() throws Exception {
        List<String> rows = new ArrayList<>();
        rows.add("load before: " + loadAverage());
        for (int round = 0; round < ROUNDS; round++) {
            ProbeServer.Transport[] order = round % 2 == 0
                    ? new ProbeServer.Transport[] {ProbeServer.Transport.NETTY, ProbeServer.Transport.JDK}
                    : new ProbeServer.Transport[] {ProbeServer.Transport.JDK, ProbeServer.Transport.NETTY};
            for (ProbeServer.Transport t : order) {
                try (FloodHarness target = FloodHarness.start(t)) {
                    Map<String, Long> idle = target.stats();
                    keepAlive(target.port, 3); // warm-up
                    long[] lat = keepAlive(target.port, SECONDS);
                    long[] fresh = probes(target.port);
                    Map<String, Long> after = target.stats();
                    rows.add(String.format(Locale.ROOT,
                            "round %d %-6s %9.0f req/s  keep-alive p50 %6.3f p99 %6.3f ms  fresh p50 %6.3f p99 %6.3f max %7.3f ms"
                                    + " failed %d  rss idle %d KiB, after %d KiB  threads %d",
                            round + 1, t, lat.length / (double) SECONDS, pct(lat, 0.5), pct(lat, 0.99),
                            pct(fresh, 0.5), pct(fresh, 0.99), pct(fresh, 1.0),
                            Arrays.stream(fresh).filter(l -> l < 0).count(), idle.get("rssKb"), after.get("rssKb"),
                            after.get("threads")));
                }
            }
        }
        rows.add("load after: " + loadAverage());
        rows.forEach(System.out::println);
    }

    /** @return the latency in ns of every request answered in {@code seconds} s */
    private static long[] keepAlive(int port, int seconds) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(CONNECTIONS);
        try {
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            List<Future<long[]>> fs = new ArrayList<>();
            for (int i = 0; i < CONNECTIONS; i++) {
                fs.add(pool.submit(() -> oneConnection(port, end)));
            }
            List<long[]> all = new ArrayList<>();
            int n = 0;
            for (Future<long[]> f : fs) {
                long[] l = f.get(seconds + 30L, TimeUnit.SECONDS);
                all.add(l);
                n += l.length;
            }
            long[] lat = new long[n];
            int k = 0;
            for (long[] l : all) {
                System.arraycopy(l, 0, lat, k, l.length);
                k += l.length;
            }
            return lat;
        } finally {
            pool.shutdownNow();
        }
    }

    private static long[] oneConnection(int port, long end) throws IOException {
        long[] lat = new long[1 << 16];
        int n = 0;
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5000);
            s.setTcpNoDelay(true);
            s.setSoTimeout(5000);
            OutputStream out = s.getOutputStream();
            InputStream in = new BufferedInputStream(s.getInputStream(), 4096);
            while (System.nanoTime() - end < 0) {
                long t0 = System.nanoTime();
                out.write(REQUEST);
                readResponse(in);
                if (n == lat.length) {
                    lat = Arrays.copyOf(lat, n * 2);
                }
                lat[n++] = System.nanoTime() - t0;
            }
        }
        return Arrays.copyOf(lat, n);
    }

    /** Reads one response: head up to the blank line, then Content-Length bytes. */
    private static void readResponse(InputStream in) throws IOException {
        int length = 0;
        StringBuilder line = new StringBuilder();
        boolean first = true;
        while (true) {
            int c = in.read();
            if (c < 0) {
                throw new IOException("closed");
            }
            if (c == '\n') {
                String l = line.toString().trim();
                line.setLength(0);
                if (l.isEmpty()) {
                    break;
                }
                if (first && !l.startsWith("HTTP/1.1 200")) {
                    throw new IOException("unexpected " + l);
                }
                first = false;
                if (l.regionMatches(true, 0, "content-length:", 0, 15)) {
                    length = Integer.parseInt(l.substring(15).trim());
                }
            } else {
                line.append((char) c);
            }
        }
        for (int i = 0; i < length; i++) {
            if (in.read() < 0) {
                throw new IOException("body cut short");
            }
        }
    }

    /** @return fresh-connection probe latencies in ns, negative for a failed probe */
    private static long[] probes(int port) throws InterruptedException {
        long[] lat = new long[PROBES];
        for (int i = 0; i < PROBES; i++) {
            FloodHarness.Probe p = FloodHarness.probe(port, "/livez");
            lat[i] = (p.status == 200 ? 1 : -1) * Math.max(1, p.micros * 1000);
            Thread.sleep(5);
        }
        return lat;
    }

    private static double pct(long[] lat, double q) {
        long[] sorted = Arrays.stream(lat).map(Math::abs).sorted().toArray();
        int i = Math.max(0, (int) Math.ceil(sorted.length * q) - 1);
        return sorted[i] / 1e6;
    }

    private static String loadAverage() {
        try {
            return java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).trim();
        } catch (IOException e) {
            return "unknown";
        }
    }
}
