package dev.vitals.bench.suite;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * nginx answering {@code return 200;} on 127.0.0.1 with one worker process (issue 37: the real
 * ceiling for probe throughput; Debian's {@code nginx-light}: {@code apt-get install -y
 * nginx-light}). Runs in the foreground ({@code daemon off}) as this JVM's child, its prefix, config,
 * logs and temporary files in a directory of its own under the run's logs; no access log. Killed by
 * PID (the master, then what is left of its descendants) on {@link #close()}.
 */
final class Nginx implements AutoCloseable {
    private static final List<Path> BINARIES = List.of(Path.of("/usr/sbin/nginx"), Path.of("/usr/local/sbin/nginx"),
            Path.of("/usr/local/nginx/sbin/nginx"));

    private final Process process;
    private final int port;

    private Nginx(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    /** @return the nginx binary, if one is installed */
    static Optional<Path> binary() {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, "nginx"))) {
                return Optional.of(Path.of(dir, "nginx"));
            }
        }
        return BINARIES.stream().filter(Files::isExecutable).findFirst();
    }

    /**
     * Starts nginx and waits until it answers 200.
     *
     * @param logs the run's log directory (nginx gets {@code logs/<name>/})
     * @param name the target's name
     * @return the running server, or empty when nginx is not installed
     * @throws IllegalStateException when nginx is installed but does not start within 30 s
     */
    static Optional<Nginx> start(Path logs, String name) throws IOException, InterruptedException {
        Optional<Path> bin = binary();
        if (bin.isEmpty()) {
            return Optional.empty();
        }
        Path dir = Files.createDirectories(logs.resolve(name).toAbsolutePath());
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        Files.writeString(dir.resolve("nginx.conf"), String.join("\n",
                "daemon off;",
                "worker_processes 1;",
                "pid " + dir.resolve("nginx.pid") + ";",
                "error_log " + dir.resolve("error.log") + " warn;",
                "events { worker_connections 1024; }",
                "http {",
                "  access_log off;",
                "  client_body_temp_path " + dir.resolve("body") + ";",
                "  proxy_temp_path " + dir.resolve("proxy") + ";",
                "  fastcgi_temp_path " + dir.resolve("fastcgi") + ";",
                "  uwsgi_temp_path " + dir.resolve("uwsgi") + ";",
                "  scgi_temp_path " + dir.resolve("scgi") + ";",
                "  keepalive_requests 1000000;",
                "  server {",
                "    listen 127.0.0.1:" + port + ";",
                "    location / { return 200; }",
                "  }",
                "}", ""));
        Process p = new ProcessBuilder(bin.get().toString(), "-p", dir + "/", "-c", dir.resolve("nginx.conf").toString(),
                "-e", dir.resolve("error.log").toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("out.log").toFile()).start();
        Nginx n = new Nginx(p, port);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            if (!p.isAlive()) {
                throw new IllegalStateException("nginx exited with " + p.exitValue() + " at start: see " + dir.resolve("out.log")
                        + " and error.log");
            }
            if (HttpProbe.get(port, "/", Duration.ofSeconds(1)).status() == 200) {
                return Optional.of(n);
            }
            Thread.sleep(50);
        }
        n.close();
        throw new IllegalStateException("nginx did not answer 200 on port " + port + " within 30 s: see " + dir);
    }

    /** @return its port on 127.0.0.1 */
    int port() {
        return port;
    }

    @Override
    public void close() {
        List<ProcessHandle> workers = process.descendants().toList();
        process.destroy(); // SIGTERM: nginx's fast shutdown, workers included
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        workers.forEach(ProcessHandle::destroyForcibly);
    }
}
