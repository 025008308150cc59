package dev.vitals.kubesim;

import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.TreeMap;

/**
 * A target for {@code simulate}'s container-spec tests: serves 200 on the path named by the
 * environment variable {@code LIVE_PATH} (404 elsewhere), {@code /slow} after 400 ms, on the
 * port given by {@code --port}; writes its environment and arguments to the file named by
 * {@code DUMP} when set. Run as a child process.
 */
public final class EnvTarget {
    private EnvTarget() {
    }

    /** @param args {@code --port N [more...]} */
    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[1]);
        String live = System.getenv().getOrDefault("LIVE_PATH", "/not-configured");
        String dump = System.getenv("DUMP");
        if (dump != null) {
            StringBuilder b = new StringBuilder();
            new TreeMap<>(System.getenv()).forEach((k, v) -> b.append(k).append('=').append(v).append('\n'));
            b.append("ARGS=").append(String.join(" ", args)).append('\n');
            Files.writeString(Path.of(dump), b.toString(), StandardCharsets.UTF_8);
        }
        HttpServer s = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 50);
        s.setExecutor(java.util.concurrent.Executors.newFixedThreadPool(4, r -> {
            Thread t = new Thread(r, "env-target");
            t.setDaemon(true);
            return t;
        }));
        s.createContext("/", x -> {
            String p = x.getRequestURI().getPath();
            int code = p.equals(live) ? 200 : 404;
            if (p.equals("/slow")) {
                try {
                    Thread.sleep(400);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                code = 200;
            }
            x.sendResponseHeaders(code, -1);
            x.close();
        });
        s.start();
        Thread.currentThread().join();
    }
}
