package dev.vitals.kubesim;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Launch commands for the scripted HTTP target ({@link ScriptedTarget}) in a child JVM. */
public final class Targets {
    private Targets() {
    }

    public static int freePort() throws IOException {
        // A target binds the port later (and again after each restart): an ephemeral port could be
        // taken in between by any connection on this busy machine, so take one below that range.
        return freeFixedPort();
    }

    /**
     * A free port below Linux's ephemeral range (32768+), so that once its listener closes no
     * ephemeral bind elsewhere on the machine takes it and no connect to it can self-connect.
     */
    public static int freeFixedPort() throws IOException {
        java.util.Random random = new java.util.Random();
        for (int i = 0; i < 200; i++) {
            int port = 20000 + random.nextInt(10000);
            try (ServerSocket s = new ServerSocket()) {
                s.setReuseAddress(true);
                s.bind(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), port));
                return port;
            } catch (IOException busy) {
                // try another
            }
        }
        throw new IOException("no free port in 20000-29999");
    }

    public static String classes() {
        try {
            return Path.of(ScriptedTarget.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    public static List<String> command(int port, String plan, String... more) {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx64m", "-cp", classes(),
                ScriptedTarget.class.getName(), "--port", Integer.toString(port), "--plan", plan));
        cmd.addAll(List.of(more));
        return cmd;
    }
}
