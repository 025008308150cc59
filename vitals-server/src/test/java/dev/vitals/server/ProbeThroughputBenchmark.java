package dev.vitals.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vitals.Groups;
import dev.vitals.Health;
import dev.vitals.HealthRegistry;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Issue 3's benchmark: {@code /livez} requests/s and p50/p99 latency with keep-alive on loopback,
 * next to a minimal Netty handler answering a fixed 200 (the practical ceiling) in the same run,
 * both on one event-loop thread. Uses wrk when it is installed ({@code apt-get install wrk}), and
 * a bounded Java keep-alive load generator in any case. Excluded from the default build (tag
 * {@code benchmark}); run it with:
 *
 * <pre>{@code
 * mvn -B -q -pl vitals-server -am verify -Dvitals.excludedTestGroups= -Dgroups=benchmark \
 *     -Dtest=ProbeThroughputBenchmark -Dsurefire.failIfNoSpecifiedTests=false [-Dbench.seconds=10]
 * }</pre>
 *
 * Figures are printed and written to {@code vitals-server/target/probe-benchmark.txt}.
 */
@Tag("benchmark")
class ProbeThroughputBenchmark {
    static final int CONNECTIONS = 16;
    static final int SECONDS = Integer.getInteger("bench.seconds", 10);
    static final int WARMUP_SECONDS = 2;

    @Test
    void livezThroughputNextToAFixed200NettyHandler() throws Exception {
        HealthRegistry registry = HealthRegistry.builder()
                .register(Fixtures.scheduled("progress", Health::up, Groups.LIVENESS))
                .build();
        registry.start();
        ProbeServer probes = ProbeServer.builder(registry).bindAddress(InetAddress.getLoopbackAddress()).port(0)
                .eventLoopThreads(1).build().start();
        Fixed200 ceiling = new Fixed200();
        StringBuilder out = new StringBuilder();
        try {
            String probeUrl = "http://127.0.0.1:" + probes.port() + "/livez";
            String ceilingUrl = "http://127.0.0.1:" + ceiling.port + "/";
            out.append(String.format(Locale.ROOT, "JDK %s, %d cores, %d keep-alive connections, %d s per run, 1 event-loop thread each,"
                            + " load average %s at start%n", System.getProperty("java.version"),
                    Runtime.getRuntime().availableProcessors(), CONNECTIONS, SECONDS, loadAverage()));
            boolean wrk = wrkInstalled();
            List<Result> results = new ArrayList<>();
            // Warm both servers' JIT first, then alternate which goes first in each round, so
            // neither always runs on a warmer or a cooler (less loaded) machine.
            runJava(ceiling.port, "/", WARMUP_SECONDS * 2);
            runJava(probes.port(), "/livez", WARMUP_SECONDS * 2);
            for (int round = 1; round <= 2; round++) {
                boolean probeFirst = round % 2 == 0;
                for (int i = 0; i < 2; i++) {
                    boolean probe = (i == 0) == probeFirst;
                    if (wrk) {
                        results.add(probe ? wrk("wrk  vitals /livez          ", probeUrl, round)
                                : wrk("wrk  fixed-200 Netty handler", ceilingUrl, round));
                    }
                    results.add(probe ? java("java vitals /livez          ", probes.port(), "/livez", round)
                            : java("java fixed-200 Netty handler", ceiling.port, "/", round));
                }
            }
            for (Result r : results) {
                out.append(r).append('\n');
            }
            for (String tool : wrk ? new String[] {"wrk ", "java"} : new String[] {"java"}) {
                double ceil = results.stream().filter(r -> r.name.startsWith(tool + " fixed")).mapToDouble(r -> r.rps).average().orElse(0);
                double probe = results.stream().filter(r -> r.name.startsWith(tool + " vitals")).mapToDouble(r -> r.rps).average().orElse(0);
                out.append(String.format(Locale.ROOT, "%s: /livez %.0f req/s vs ceiling %.0f req/s: ratio %.2f%n",
                        tool.trim(), probe, ceil, probe / ceil));
            }
            System.out.print(out);
            Files.writeString(Path.of("target", "probe-benchmark.txt"), out.toString());
            assertThat(results).allSatisfy(r -> assertThat(r.rps).isPositive());
        } finally {
            ceiling.close();
            probes.stop(Duration.ZERO);
            registry.close();
        }
    }

    /** @return the 1-minute load average (other builds on the machine skew every figure) */
    static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        } catch (IOException | RuntimeException e) {
            return "n/a";
        }
    }

    // ------------------------------------------------------------------ wrk

    static boolean wrkInstalled() {
        try {
            Process p = new ProcessBuilder("wrk", "--version").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(10, TimeUnit.SECONDS);
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    static Result wrk(String name, String url, int round) throws Exception {
        runWrk(url, WARMUP_SECONDS);
        String text = runWrk(url, SECONDS);
        double rps = number(text, "Requests/sec:\\s+([0-9.]+)");
        double p50 = millis(text, "50%");
        double p99 = millis(text, "99%");
        return new Result(name + " #" + round, rps, p50, p99);
    }

    static String runWrk(String url, int seconds) throws Exception {
        Process p = new ProcessBuilder("wrk", "-t2", "-c" + CONNECTIONS, "-d" + seconds + "s", "--latency", url)
                .redirectErrorStream(true).start();
        StringBuilder sb = new StringBuilder();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                sb.append(line).append('\n');
            }
        }
        if (!p.waitFor(seconds + 30L, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException("wrk did not finish");
        }
        if (sb.indexOf("Non-2xx") >= 0 || sb.indexOf("Socket errors") >= 0) {
            throw new IllegalStateException("wrk saw errors:\n" + sb);
        }
        return sb.toString();
    }

    static double number(String text, String regex) {
        Matcher m = Pattern.compile(regex).matcher(text);
        if (!m.find()) {
            throw new IllegalStateException("no " + regex + " in wrk output:\n" + text);
        }
        return Double.parseDouble(m.group(1));
    }

    static double millis(String text, String percentile) {
        Matcher m = Pattern.compile("\\s" + Pattern.quote(percentile) + "\\s+([0-9.]+)(us|ms|s)").matcher(text);
        if (!m.find()) {
            throw new IllegalStateException("no " + percentile + " in wrk output:\n" + text);
        }
        double v = Double.parseDouble(m.group(1));
        return m.group(2).equals("us") ? v / 1000 : m.group(2).equals("s") ? v * 1000 : v;
    }

    // ------------------------------------------------------------------ Java load generator

    /** {@link #CONNECTIONS} threads, each with one keep-alive connection, request after request. */
    static Result java(String name, int port, String path, int round) throws Exception {
        runJava(port, path, WARMUP_SECONDS);
        long[] latencies = runJava(port, path, SECONDS);
        Arrays.sort(latencies);
        double rps = latencies.length / (double) SECONDS;
        return new Result(name + " #" + round, rps, latencies[latencies.length / 2] / 1e6,
                latencies[(int) (latencies.length * 0.99)] / 1e6);
    }

    static long[] runJava(int port, String path, int seconds) throws Exception {
        byte[] request = ("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
        ExecutorService pool = Executors.newFixedThreadPool(CONNECTIONS);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        List<Future<long[]>> futures = new ArrayList<>();
        for (int i = 0; i < CONNECTIONS; i++) {
            futures.add(pool.submit(() -> {
                long[] lat = new long[1 << 16];
                int n = 0;
                byte[] buf = new byte[4096];
                try (Socket s = new Socket()) {
                    s.setTcpNoDelay(true);
                    s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5000);
                    s.setSoTimeout(5000);
                    OutputStream out = s.getOutputStream();
                    InputStream in = s.getInputStream();
                    long now;
                    while ((now = System.nanoTime()) - end < 0) {
                        out.write(request);
                        readResponse(in, buf);
                        if (n == lat.length) {
                            lat = Arrays.copyOf(lat, n * 2);
                        }
                        lat[n++] = System.nanoTime() - now;
                    }
                }
                return Arrays.copyOf(lat, n);
            }));
        }
        List<long[]> parts = new ArrayList<>();
        for (Future<long[]> f : futures) {
            parts.add(f.get(seconds + 30L, TimeUnit.SECONDS));
        }
        pool.shutdownNow();
        return parts.stream().flatMapToLong(Arrays::stream).toArray();
    }

    /** Reads one response with a Content-Length body; both servers send small ones. */
    static void readResponse(InputStream in, byte[] buf) throws IOException {
        int have = 0;
        int headerEnd = -1;
        int contentLength = -1;
        while (true) {
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
                Matcher m = Pattern.compile("(?i)content-length:\\s*(\\d+)").matcher(head.substring(0, i));
                contentLength = m.find() ? Integer.parseInt(m.group(1)) : 0;
            }
            if (have >= headerEnd + contentLength) {
                return;
            }
        }
    }

    static final class Result {
        final String name;
        final double rps;
        final double p50;
        final double p99;

        Result(String name, double rps, double p50, double p99) {
            this.name = name;
            this.rps = rps;
            this.p50 = p50;
            this.p99 = p99;
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "%s  %8.0f req/s  p50 %6.3f ms  p99 %6.3f ms", name, rps, p50, p99);
        }
    }

    // ------------------------------------------------------------------ the ceiling

    /** The practical ceiling: Netty's standard HTTP codec and a handler writing a fixed 200 "ok". */
    static final class Fixed200 implements AutoCloseable {
        @SuppressWarnings("deprecation") // the API Netty 4.1 and 4.2 share
        final EventLoopGroup group = new NioEventLoopGroup(1);
        final Channel channel;
        final int port;

        Fixed200() throws InterruptedException {
            channel = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            ch.pipeline().addLast(new HttpServerCodec()).addLast(new ChannelInboundHandlerAdapter() {
                                @Override
                                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                    if (msg instanceof HttpRequest) {
                                        boolean keepAlive = HttpUtil.isKeepAlive((HttpRequest) msg);
                                        ByteBuf body = Unpooled.wrappedBuffer(new byte[] {'o', 'k'});
                                        FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK, body);
                                        r.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.TEXT_PLAIN)
                                                .setInt(HttpHeaderNames.CONTENT_LENGTH, 2);
                                        if (keepAlive) {
                                            ctx.write(r);
                                        } else {
                                            ctx.writeAndFlush(r).addListener(ChannelFutureListener.CLOSE);
                                        }
                                    }
                                    ReferenceCountUtil.release(msg);
                                }

                                @Override
                                public void channelReadComplete(ChannelHandlerContext ctx) {
                                    ctx.flush();
                                }
                            });
                        }
                    })
                    .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
            port = ((InetSocketAddress) channel.localAddress()).getPort();
        }

        @Override
        public void close() {
            channel.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(10, TimeUnit.SECONDS);
        }
    }
}
