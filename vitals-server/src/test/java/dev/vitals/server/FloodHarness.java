package dev.vitals.server;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Shared by the flood test and the flood benchmark: the probe server in a child JVM
 * ({@link FloodTarget}) and a kubelet-style probe (fresh connection, {@code Connection: close},
 * one 1 s deadline over connect and exchange, status from the first line).
 */
final class FloodHarness implements AutoCloseable {
    static final int KUBELET_TIMEOUT_MILLIS = 1000;

    final Process process;
    final int port;
    private final BufferedReader out;
    private final OutputStream in;

    private FloodHarness(Process process) throws IOException {
        this.process = process;
        this.out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        this.in = process.getOutputStream();
        String first = readLine();
        if (first == null || !first.startsWith("port=")) {
            process.destroyForcibly();
            throw new IOException("flood target did not start: " + first);
        }
        this.port = Integer.parseInt(first.substring("port=".length()));
    }

    static FloodHarness start() throws IOException {
        return start(ProbeServer.Transport.NETTY);
    }

    static FloodHarness start(ProbeServer.Transport transport) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Set<String> cp = new LinkedHashSet<>();
        cp.add(Path.of(System.getProperty("user.dir"), "target", "test-classes").toString());
        for (String p : new String[] {System.getProperty("jdk.module.path", ""), System.getProperty("java.class.path", "")}) {
            for (String e : p.split(File.pathSeparator)) {
                if (!e.isBlank()) {
                    cp.add(e);
                }
            }
        }
        Process p = new ProcessBuilder(List.of(java, "-XX:+MaxFDLimit", "-Xmx64m", "-XX:MaxDirectMemorySize=32m", "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1", "-Dio.netty.allocator.type=unpooled",
                "-cp", String.join(File.pathSeparator, cp), FloodTarget.class.getName(), transport.name()))
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        Thread watchdog = new Thread(() -> {
            try {
                if (!p.waitFor(10, TimeUnit.MINUTES)) {
                    p.destroyForcibly();
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
            }
        }, "flood-target-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
        return new FloodHarness(p);
    }

    /** @return this JVM's soft limit of open files, from /proc/self/limits; Long.MAX_VALUE if unlimited or unknown */
    static long openFileLimit() throws IOException {
        for (String l : java.nio.file.Files.readAllLines(Path.of("/proc/self/limits"))) {
            if (l.startsWith("Max open files")) {
                String soft = l.substring("Max open files".length()).trim().split("\\s+")[0];
                return soft.equals("unlimited") ? Long.MAX_VALUE : Long.parseLong(soft);
            }
        }
        return Long.MAX_VALUE;
    }

    InetSocketAddress address() {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
    }

    /** @return the target's figures: open, evicted, fds, rssKb, heapKb, threads */
    java.util.Map<String, Long> stats() throws IOException {
        in.write("stats\n".getBytes(StandardCharsets.US_ASCII));
        in.flush();
        String line = readLine();
        java.util.Map<String, Long> m = new java.util.LinkedHashMap<>();
        for (String kv : line.split(" ")) {
            int eq = kv.indexOf('=');
            m.put(kv.substring(0, eq), Long.parseLong(kv.substring(eq + 1)));
        }
        return m;
    }

    private String readLine() throws IOException {
        return out.readLine();
    }

    /** One kubelet-style probe from 127.0.0.1. */
    static Probe probe(int port, String path) {
        long t0 = System.nanoTime();
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), KUBELET_TIMEOUT_MILLIS);
            int left = (int) Math.max(1, KUBELET_TIMEOUT_MILLIS - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
            s.setSoTimeout(left);
            s.setTcpNoDelay(true);
            s.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: 10.0.0.1:" + port
                    + "\r\nUser-Agent: kube-probe/1.33\r\nAccept: */*\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            InputStream in = s.getInputStream();
            StringBuilder line = new StringBuilder();
            for (int c = in.read(); c >= 0 && c != '\n'; c = in.read()) {
                line.append((char) c);
            }
            long micros = TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - t0);
            String[] parts = line.toString().split(" ");
            int status = parts.length > 1 ? Integer.parseInt(parts[1]) : -1;
            return new Probe(micros > KUBELET_TIMEOUT_MILLIS * 1000L ? -1 : status, micros, line.toString().trim());
        } catch (IOException | RuntimeException e) {
            return new Probe(-1, TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - t0), e.toString());
        }
    }

    static final class Probe {
        final int status;
        final long micros;
        final String what;

        Probe(int status, long micros, String what) {
            this.status = status;
            this.micros = micros;
            this.what = what;
        }

        @Override
        public String toString() {
            return status + " in " + micros / 1000.0 + " ms" + (status == 200 ? "" : " (" + what + ")");
        }
    }

    static List<InetAddress> loopbacks(int from, int to) throws IOException {
        List<InetAddress> l = new ArrayList<>();
        for (int i = from; i <= to; i++) {
            l.add(InetAddress.getByAddress(new byte[] {127, 0, 0, (byte) i}));
        }
        return l;
    }

    @Override
    public void close() {
        try {
            in.write("quit\n".getBytes(StandardCharsets.US_ASCII));
            in.flush();
        } catch (IOException e) {
            // gone already
        }
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
