package dev.vitals.agent.impl;

import java.io.BufferedReader;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The TCP ports this JVM listens on, found without code on Linux: listening sockets in
 * {@code /proc/self/net/tcp} and {@code tcp6} whose inode is one of this process's file
 * descriptors ({@code /proc/self/fd}); those tables list the whole network namespace, so the
 * inode match is what keeps other processes' ports out. Costs two small file reads and one
 * {@code readlink} per open descriptor, CPU only (no wait): called on Vitals' scheduler thread by
 * the readiness check's first step of a run, at most once a second while starting, once every 10 s after.
 * Elsewhere (no {@code /proc}) it finds nothing and the {@code app-port} option is needed.
 */
final class AppPorts {
    /** Port → the address to call it on, from the latest scan (absent: loopback). */
    private static final Map<Integer, InetAddress> ADDRESSES = new ConcurrentHashMap<>();

    private AppPorts() {
    }

    /**
     * The address to call an application port on: the loopback address when the port listens on
     * a wildcard or on it, else the one address it listens on (an application bound to
     * {@code ::1} or to its pod IP alone refuses 127.0.0.1). Thread-safe.
     *
     * @param port a port found by {@link #listening}
     * @return the address; loopback for a port never seen in a scan (the {@code app-port} option)
     */
    static InetAddress address(int port) {
        return ADDRESSES.getOrDefault(port, InetAddress.getLoopbackAddress());
    }

    /** @return {@code http://ADDRESS:PORT} as {@link #address} calls it, for messages */
    static String origin(int port) {
        InetAddress a = address(port);
        return "http://" + (a instanceof java.net.Inet6Address ? "[" + a.getHostAddress() + "]" : a.getHostAddress()) + ":" + port;
    }

    /**
     * @param hex the address half of a {@code /proc/net/tcp*} local address: 8 hex digits
     *     (IPv4) or 32 (IPv6), each 32-bit word in host (little-endian) order
     * @return that address when it is a specific one (127.0.0.1 and ::1 included), the
     *     loopback address for a wildcard or anything unreadable
     */
    static InetAddress connectAddress(String hex) {
        if (hex.length() != 8 && hex.length() != 32) {
            return InetAddress.getLoopbackAddress();
        }
        byte[] b = new byte[hex.length() / 2];
        try {
            for (int word = 0; word < b.length / 4; word++) {
                for (int k = 0; k < 4; k++) {
                    int at = (word * 4 + 3 - k) * 2; // little-endian word
                    b[word * 4 + k] = (byte) Integer.parseInt(hex.substring(at, at + 2), 16);
                }
            }
            InetAddress a = InetAddress.getByAddress(b); // a v4-mapped IPv6 address comes back as IPv4
            return a.isAnyLocalAddress() ? InetAddress.getLoopbackAddress() : a;
        } catch (NumberFormatException | UnknownHostException e) {
            return InetAddress.getLoopbackAddress();
        }
    }

    /** @return whether this platform has the tables read here */
    static boolean supported() {
        return Files.isReadable(Paths.get("/proc/self/net/tcp"));
    }

    /**
     * @param exclude ports to leave out (the probe port)
     * @return listening ports owned by this process, ascending; empty when none or unsupported
     */
    static List<Integer> listening(Set<Integer> exclude) {
        Set<Long> inodes = socketInodes();
        if (inodes.isEmpty()) {
            return List.of();
        }
        TreeSet<Integer> ports = new TreeSet<>();
        read(Paths.get("/proc/self/net/tcp"), inodes, ports);
        read(Paths.get("/proc/self/net/tcp6"), inodes, ports);
        ports.removeAll(exclude);
        return List.copyOf(ports);
    }

    /**
     * Every port in state LISTEN in this network namespace's tables, without matching this
     * process's descriptors (cheap enough for once a second: the listener check, {@link ListenerWatch}).
     *
     * @return listening local ports; empty when none or unsupported
     */
    static Set<Integer> listeningInTable() {
        Set<Integer> ports = new HashSet<>();
        read(Paths.get("/proc/self/net/tcp"), null, ports);
        read(Paths.get("/proc/self/net/tcp6"), null, ports);
        return ports;
    }

    /** What the application has done with one connection to it, read from the kernel's tables. */
    enum ServerSide {
        /** No row for it (closed meanwhile, or no {@code /proc}). */
        UNKNOWN,
        /** In the listening socket's accept queue: the application has not called {@code accept} (its row's inode is 0). */
        NOT_ACCEPTED,
        /** Accepted, with bytes the application has not read (its row's receive queue is not empty). */
        UNREAD,
        /** Accepted and everything sent to it read. */
        READ
    }

    /**
     * The application's side of a loopback connection the agent opened: the row whose local port
     * is {@code appPort} and remote port {@code clientPort}, in state ESTABLISHED. A connection
     * still in the accept queue has no socket inode yet (0 in the table; Linux:
     * {@code sock_i_ino} of a child socket not yet accepted); {@code rx_queue} counts the bytes
     * received and not yet read. Costs two small file reads; any thread.
     *
     * @param appPort the application's port
     * @param clientPort the agent's local port of that connection
     * @return what the application did with it; {@link ServerSide#UNKNOWN} when unsupported or not found
     */
    static ServerSide serverSide(int appPort, int clientPort) {
        String local = ":" + hex4(appPort);
        String remote = ":" + hex4(clientPort);
        for (String table : new String[] {"/proc/self/net/tcp", "/proc/self/net/tcp6"}) {
            try (BufferedReader in = Files.newBufferedReader(Paths.get(table), StandardCharsets.US_ASCII)) {
                in.readLine(); // header
                String line;
                while ((line = in.readLine()) != null) {
                    ServerSide s = serverSide(line, local, remote);
                    if (s != null) {
                        return s;
                    }
                }
            } catch (IOException e) {
                // table gone or unreadable
            }
        }
        return ServerSide.UNKNOWN;
    }

    private static String hex4(int port) {
        String h = Integer.toHexString(port).toUpperCase(java.util.Locale.ROOT);
        return "0000".substring(h.length()) + h;
    }

    /**
     * @param line a {@code /proc/net/tcp*} row
     * @param local {@code :PPPP}, the application port in the table's hex
     * @param remote {@code :PPPP}, the agent's port
     * @return the row's answer when it is that connection's application side, else null
     */
    static ServerSide serverSide(String line, String local, String remote) {
        Fields f = new Fields(line);
        int queueStart = -1;
        int queueEnd = -1;
        for (int field = 0; f.next(); field++) {
            switch (field) {
                case 1:
                    if (!f.endsWith(local)) {
                        return null;
                    }
                    break;
                case 2:
                    if (!f.endsWith(remote)) {
                        return null;
                    }
                    break;
                case 3:
                    if (!f.is("01")) { // 01 = ESTABLISHED
                        return null;
                    }
                    break;
                case 4:
                    queueStart = f.start;
                    queueEnd = f.end;
                    break;
                case 9:
                    if (f.is("0")) {
                        return ServerSide.NOT_ACCEPTED;
                    }
                    int colon = line.indexOf(':', queueStart);
                    try {
                        return colon > queueStart && colon < queueEnd && Long.parseLong(line, colon + 1, queueEnd, 16) > 0
                                ? ServerSide.UNREAD
                                : ServerSide.READ;
                    } catch (NumberFormatException e) {
                        return ServerSide.UNKNOWN;
                    }
                default:
                    break;
            }
        }
        return null; // fewer than 10 fields
    }

    private static Set<Long> socketInodes() {
        Set<Long> out = new HashSet<>();
        Path fds = Paths.get("/proc/self/fd");
        if (!Files.isDirectory(fds)) {
            return out;
        }
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(fds)) {
            for (Path fd : ds) {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("socket:[") && target.endsWith("]")) {
                        out.add(Long.parseLong(target.substring(8, target.length() - 1)));
                    }
                } catch (IOException | NumberFormatException | UnsupportedOperationException e) {
                    // closed meanwhile, or not a link
                }
            }
        } catch (IOException e) {
            return out;
        }
        return out;
    }

    private static void read(Path table, Set<Long> inodes, Set<Integer> ports) {
        try (BufferedReader in = Files.newBufferedReader(table, StandardCharsets.US_ASCII)) {
            in.readLine(); // header
            String line;
            while ((line = in.readLine()) != null) {
                int port = listeningPort(line, inodes);
                if (port >= 0 && inodes == null) {
                    ports.add(port);
                } else if (port >= 0) {
                    ports.add(port);
                    InetAddress a = connectAddress(localAddress(line));
                    // bound on several addresses (0.0.0.0 and ::1, say): loopback when one allows it
                    ADDRESSES.merge(port, a, (was, now) -> was.equals(InetAddress.getLoopbackAddress()) ? was : now);
                }
            }
        } catch (IOException e) {
            // table gone or unreadable: nothing found
        }
    }

    /** @return the address half of a {@code /proc/net/tcp*} line's local address, or "" */
    static String localAddress(String line) {
        Fields f = new Fields(line);
        if (!f.next() || !f.next()) {
            return "";
        }
        int colon = line.indexOf(':', f.start);
        return colon > f.start && colon < f.end ? line.substring(f.start, colon) : "";
    }

    /**
     * @return the local port of a {@code /proc/net/tcp*} line in state LISTEN whose inode is in
     *     {@code inodes} (any inode when null); -1 otherwise or when the line is malformed
     */
    static int listeningPort(String line, Set<Long> inodes) {
        Fields f = new Fields(line);
        int localStart = -1;
        int localEnd = -1;
        for (int field = 0; f.next(); field++) {
            if (field == 1) {
                localStart = f.start;
                localEnd = f.end;
            } else if (field == 3 && !f.is("0A")) { // 0A = LISTEN
                return -1;
            } else if (field == 9) {
                int colon = line.indexOf(':', localStart);
                try {
                    if (colon < 0 || colon >= localEnd || inodes != null && !inodes.contains(Long.parseLong(line, f.start, f.end, 10))) {
                        return -1;
                    }
                    return Integer.parseInt(line, colon + 1, localEnd, 16);
                } catch (NumberFormatException e) {
                    return -1;
                }
            }
        }
        return -1;
    }

    /**
     * The space-separated fields of one {@code /proc/net/tcp*} row, walked in place: no regular
     * expression and no string per field (this runs every few seconds inside the application's
     * JVM). Columns: {@code sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt
     * uid timeout inode ...}. Not thread-safe; one per row.
     */
    static final class Fields {
        private final String line;
        private int at;
        /** The current field's first character. */
        int start;
        /** One past the current field's last character. */
        int end;

        Fields(String line) {
            this.line = line;
        }

        /** @return whether there is a next field; when there is, {@link #start}/{@link #end} bound it */
        boolean next() {
            int n = line.length();
            while (at < n && line.charAt(at) == ' ') {
                at++;
            }
            start = at;
            while (at < n && line.charAt(at) != ' ') {
                at++;
            }
            end = at;
            return start < end;
        }

        boolean is(String text) {
            return end - start == text.length() && line.startsWith(text, start);
        }

        boolean endsWith(String text) {
            return end - start >= text.length() && line.startsWith(text, end - text.length());
        }
    }
}
