package dev.vitals.bench.suite;

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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Java keep-alive load generator (moved here from vitals-server's former
 * {@code ProbeThroughputBenchmark}): {@code connections} threads, each with one keep-alive
 * connection on 127.0.0.1 (reopened when the server closes it), sending {@code GET path} request after request for a fixed time and
 * recording each latency. Bounded in time (the run's seconds, plus 30 s to collect); fails on any
 * answer other than 200. Stateless; thread-safe.
 */
final class KeepAliveLoad {
    private KeepAliveLoad() {
    }

    /**
     * @return every request's latency, ns, unsorted; {@code length / seconds} is the rate
     * @throws IOException when a connection fails or an answer is not 200
     */
    static long[] run(int port, String path, int connections, int seconds) throws Exception {
        byte[] request = ("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
        ExecutorService pool = Executors.newFixedThreadPool(connections, r -> {
            Thread t = new Thread(r, "vitals-bench-load");
            t.setDaemon(true);
            return t;
        });
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        try {
            List<Future<long[]>> futures = new ArrayList<>();
            for (int i = 0; i < connections; i++) {
                futures.add(pool.submit(() -> {
                    long[] lat = new long[1 << 16];
                    int n = 0;
                    byte[] buf = new byte[4096];
                    long now;
                    while ((now = System.nanoTime()) - end < 0) {
                        // One connection for as long as the server keeps it open (Tomcat closes
                        // one after 100 requests by default, saying Connection: close).
                        try (Socket s = new Socket()) {
                            s.setTcpNoDelay(true);
                            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5000);
                            s.setSoTimeout(5000);
                            OutputStream out = s.getOutputStream();
                            InputStream in = s.getInputStream();
                            boolean open = true;
                            while (open && (now = System.nanoTime()) - end < 0) {
                                out.write(request);
                                open = readResponse(in, buf);
                                if (n == lat.length) {
                                    lat = Arrays.copyOf(lat, n * 2);
                                }
                                lat[n++] = System.nanoTime() - now;
                            }
                        }
                    }
                    return Arrays.copyOf(lat, n);
                }));
            }
            List<long[]> parts = new ArrayList<>();
            for (Future<long[]> f : futures) {
                parts.add(f.get(seconds + 30L, TimeUnit.SECONDS));
            }
            return parts.stream().flatMapToLong(Arrays::stream).toArray();
        } finally {
            pool.shutdownNow();
        }
    }

    private static final Pattern CONTENT_LENGTH = Pattern.compile("(?i)content-length:\\s*(\\d+)");
    private static final Pattern CLOSE = Pattern.compile("(?i)connection:\\s*close");
    private static final Pattern CHUNKED = Pattern.compile("(?i)transfer-encoding:\\s*chunked");
    private static final byte[] LAST_CHUNK = "0\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    /**
     * Reads one 200 response with a Content-Length body, or a chunked body (Spring's Actuator
     * sends one) whose chunks all arrive in the buffer (every target sends small ones).
     *
     * @return false when the server said {@code Connection: close} (it closes the connection next)
     */
    static boolean readResponse(InputStream in, byte[] buf) throws IOException {
        int have = 0;
        int headerEnd = -1;
        int contentLength = -1;
        boolean chunked = false;
        boolean open = true;
        while (true) {
            if (have == buf.length) {
                throw new IOException("response larger than " + buf.length + " bytes");
            }
            int r = in.read(buf, have, buf.length - have);
            if (r < 0) {
                throw new IOException("closed mid-response");
            }
            have += r;
            if (headerEnd < 0) {
                String head = new String(buf, 0, have, StandardCharsets.ISO_8859_1);
                int i = head.indexOf("\r\n\r\n");
                if (i < 0) {
                    continue;
                }
                if (!head.startsWith("HTTP/1.1 200")) {
                    throw new IOException("unexpected response: " + head);
                }
                headerEnd = i + 4;
                String headers = head.substring(0, i);
                open = !CLOSE.matcher(headers).find();
                Matcher m = CONTENT_LENGTH.matcher(headers);
                if (m.find()) {
                    contentLength = Integer.parseInt(m.group(1));
                } else if (CHUNKED.matcher(headers).find()) {
                    chunked = true;
                } else {
                    throw new IOException("neither Content-Length nor chunked: " + head);
                }
            }
            if (chunked ? endsWithLastChunk(buf, headerEnd, have) : have >= headerEnd + contentLength) {
                return open;
            }
        }
    }

    /** True when {@code buf[from, to)} ends with the last chunk and no trailers: {@code 0\r\n\r\n}. */
    private static boolean endsWithLastChunk(byte[] buf, int from, int to) {
        if (to - from < LAST_CHUNK.length) {
            return false;
        }
        for (int i = 0; i < LAST_CHUNK.length; i++) {
            if (buf[to - LAST_CHUNK.length + i] != LAST_CHUNK[i]) {
                return false;
            }
        }
        // "0\r\n\r\n" must start a line: the body so far is exactly the terminator, or follows a chunk's CRLF
        int start = to - LAST_CHUNK.length;
        return start == from || (start - from >= 2 && buf[start - 2] == '\r' && buf[start - 1] == '\n');
    }
}
