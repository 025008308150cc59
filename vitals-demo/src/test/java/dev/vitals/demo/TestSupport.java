package dev.vitals.demo;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/** Helpers shared by the demo tests. */
final class TestSupport {
    private static final AtomicInteger DB_NAMES = new AtomicInteger();

    private TestSupport() {
    }

    /** A database name unique within this test JVM, so in-process demos never share one. */
    static String uniqueDbName() {
        return "t" + ProcessHandle.current().pid() + "_" + DB_NAMES.incrementAndGet();
    }

    /** A port that was free a moment ago (for servers that must be told their port in advance). */
    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** Starts an in-process demo on ephemeral ports with the given extra flags. */
    static DemoApp startInProcess(String... flags) throws Exception {
        List<String> given = List.of(flags);
        List<String> args = new ArrayList<>(given);
        String[][] defaults = {{"--port", "0"}, {"--probe-port", "0"}, {"--db-port", "0"}, {"--db-name", uniqueDbName()}};
        for (String[] d : defaults) {
            if (!given.contains(d[0])) {
                args.add(d[0]);
                args.add(d[1]);
            }
        }
        return DemoApp.start(DemoOptions.parse(args.toArray(new String[0])), new PrintStream(new ByteArrayOutputStream(), true,
                StandardCharsets.UTF_8));
    }
}
