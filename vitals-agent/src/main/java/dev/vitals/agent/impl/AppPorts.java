package dev.vitals.agent.impl;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The TCP ports this JVM listens on, found without code on Linux: listening sockets in
 * {@code /proc/self/net/tcp} and {@code tcp6} whose inode is one of this process's file
 * descriptors ({@code /proc/self/fd}); those tables list the whole network namespace, so the
 * inode match is what keeps other processes' ports out. Costs two small file reads and one
 * {@code readlink} per open descriptor; called on a check thread, never on the scheduler.
 * Elsewhere (no {@code /proc}) it finds nothing and the {@code app-port} option is needed.
 */
final class AppPorts {
    private AppPorts() {
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
        List<String> lines;
        try {
            lines = Files.readAllLines(table);
        } catch (IOException e) {
            return;
        }
        // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode ...
        for (int i = 1; i < lines.size(); i++) {
            String[] f = lines.get(i).trim().split("\\s+");
            if (f.length < 10 || !f[3].equals("0A")) { // 0A = LISTEN
                continue;
            }
            try {
                long inode = Long.parseLong(f[9]);
                if (!inodes.contains(inode)) {
                    continue;
                }
                String local = f[1];
                ports.add(Integer.parseInt(local.substring(local.indexOf(':') + 1), 16));
            } catch (NumberFormatException | StringIndexOutOfBoundsException e) {
                // malformed line: skip
            }
        }
    }
}
