package dev.vitals.kubesim.replay;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Free loopback ports picked at run time. Ports come from below the kernel's ephemeral range
 * ({@code /proc/sys/net/ipv4/ip_local_port_range}) when it is known: a restarted demo must bind
 * the same port again, and a port from the ephemeral range could meanwhile be taken as the
 * local port of one of the load's many outgoing connections. A port is handed out once per
 * JVM. Thread-safe.
 */
final class Ports {
    private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();
    private static final int LOWEST = 10_000;

    private Ports() {
    }

    /**
     * @param n how many ports, 1–16
     * @return {@code n} distinct ports that were free on 127.0.0.1 a moment ago
     * @throws IllegalStateException when no free port is found
     */
    static int[] pick(int n) {
        if (n < 1 || n > 16) {
            throw new IllegalArgumentException("n must be 1-16, was " + n);
        }
        int[] out = new int[n];
        int ephemeralLow = ephemeralLow(Path.of("/proc/sys/net/ipv4/ip_local_port_range"));
        for (int i = 0; i < n; i++) {
            out[i] = ephemeralLow > LOWEST + 1000 ? belowEphemeral(ephemeralLow) : anyFree();
        }
        return out;
    }

    /**
     * The file is read with one {@code read} of a buffer larger than it: a sysctl file under
     * {@code /proc/sys} answers only a read at offset 0 and returns end-of-file at any other
     * offset, and it reports a size of 0, so {@code Files.readString} (which then reads one byte
     * first, and the rest at offset 1) got {@code "3"} from {@code "32768\t60999"}: the range was
     * taken as unknown and every port came from binding port 0, inside the ephemeral range.
     *
     * @return the first port of the ephemeral range, or -1 when unknown
     */
    static int ephemeralLow(Path procFile) {
        try (java.io.InputStream in = Files.newInputStream(procFile)) {
            byte[] buf = new byte[256];
            int n = in.read(buf);
            if (n <= 0) {
                return -1;
            }
            String[] parts = new String(buf, 0, n, StandardCharsets.US_ASCII).trim().split("\\s+");
            int low = Integer.parseInt(parts[0]);
            return low >= 1024 && low <= 65535 ? low : -1;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    private static int belowEphemeral(int ephemeralLow) {
        int span = ephemeralLow - LOWEST;
        int start = ThreadLocalRandom.current().nextInt(span);
        for (int k = 0; k < span; k++) {
            int p = LOWEST + (start + k) % span;
            if (!HANDED_OUT.contains(p) && free(p) && HANDED_OUT.add(p)) {
                return p;
            }
        }
        throw new IllegalStateException("no free port on 127.0.0.1 between " + LOWEST + " and " + (ephemeralLow - 1));
    }

    private static int anyFree() {
        for (int k = 0; k < 100; k++) {
            try (ServerSocket s = new ServerSocket()) {
                s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                int p = s.getLocalPort();
                if (HANDED_OUT.add(p)) {
                    return p;
                }
            } catch (IOException e) {
                throw new IllegalStateException("cannot bind a loopback port: " + e.getMessage(), e);
            }
        }
        throw new IllegalStateException("no free port on 127.0.0.1");
    }

    static boolean free(int port) {
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(true);
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
