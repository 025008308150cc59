package dev.vitals.agent;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A child JVM running an application jar with {@code target/vitals-agent.jar} attached; its
 * standard output and error go to a file under {@code target/agent-it/}. Stopped by PID
 * ({@link ProcessHandle#destroy()}, SIGTERM) and then forcibly.
 */
public final class AgentProcess implements AutoCloseable {
    public static final Path AGENT = Paths.get(System.getProperty("vitals.agent.jar", "target/vitals-agent.jar")).toAbsolutePath();
    static final Path DEMO = Paths.get(System.getProperty("vitals.demo.jar", "../vitals-demo/target/vitals-demo.jar")).toAbsolutePath();
    private static final Pattern PROBES = Pattern.compile("vitals-agent: probes on port (\\d+)");
    private static final Pattern DEMO_READY = Pattern.compile("vitals-demo ready: .* port=(\\d+) ");

    public final Process process;
    final Path log;

    private AgentProcess(Process process, Path log) {
        this.process = process;
        this.log = log;
    }

    /** Starts {@code java [jvmArgs] -javaagent:vitals-agent.jar=agentArgs -jar jar appArgs}; no agent when {@code agentArgs} is null. */
    public static AgentProcess start(String name, String agentArgs, List<String> jvmArgs, Path jar, String... appArgs) throws IOException {
        Path dir = Paths.get("target", "agent-it");
        Files.createDirectories(dir);
        Path log = dir.resolve(name + ".log");
        List<String> cmd = new ArrayList<>();
        cmd.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-XX:TieredStopAtLevel=1");
        cmd.add("-XX:CICompilerCount=1");
        cmd.add("-Xshare:auto");
        cmd.addAll(jvmArgs);
        if (agentArgs != null) {
            cmd.add("-javaagent:" + AGENT + (agentArgs.isEmpty() ? "" : "=" + agentArgs));
        }
        cmd.add("-jar");
        cmd.add(jar.toString());
        cmd.addAll(List.of(appArgs));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        return new AgentProcess(p, log);
    }

    /** The naive demo (probe-less wiring, JDK HttpServer on a 40-thread pool) with the agent. */
    static AgentProcess demo(String name, String agentArgs, String... demoArgs) throws IOException {
        List<String> args = new ArrayList<>(List.of("--wiring", "naive", "--port", "0"));
        args.addAll(List.of(demoArgs));
        return start(name, "port=0,workers=demo-worker-," + agentArgs, List.of(), DEMO, args.toArray(new String[0]));
    }

    public String output() {
        try {
            return Files.readString(log, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    private int awaitGroup(Pattern p, Duration within) {
        int[] port = new int[1];
        await("'" + p.pattern() + "' in " + log).atMost(within).pollInterval(Duration.ofMillis(100)).until(() -> {
            if (!process.isAlive()) {
                throw new AssertionError("process exited with " + process.exitValue() + ":\n" + output());
            }
            Matcher m = p.matcher(output());
            if (m.find()) {
                port[0] = Integer.parseInt(m.group(1));
                return true;
            }
            return false;
        });
        return port[0];
    }

    /** @return the value of a {@code /proc/<pid>/status} line ({@code VmRSS:} in KiB, {@code Threads:}), -1 if absent */
    public long status(String key) throws IOException {
        for (String line : Files.readAllLines(Paths.get("/proc", Long.toString(process.pid()), "status"))) {
            if (line.startsWith(key)) {
                return Long.parseLong(line.substring(key.length()).trim().split("\\s+")[0]);
            }
        }
        return -1;
    }

    /**
     * @return the names of the process's live threads that start with {@code prefix}, sorted, from
     *     {@code /proc/<pid>/task/&#42;/comm} (Linux; at most 15 characters each, as the kernel keeps them)
     */
    public List<String> threadNames(String prefix) throws IOException {
        List<String> names = new java.util.ArrayList<>();
        try (java.util.stream.Stream<Path> tasks = Files.list(Paths.get("/proc", Long.toString(process.pid()), "task"))) {
            for (Path t : (Iterable<Path>) tasks::iterator) {
                try {
                    String name = Files.readString(t.resolve("comm")).strip();
                    if (name.startsWith(prefix)) {
                        names.add(name);
                    }
                } catch (IOException e) {
                    // the thread ended meanwhile
                }
            }
        }
        java.util.Collections.sort(names);
        return names;
    }

    public int probePort() {
        return awaitGroup(PROBES, Duration.ofSeconds(90));
    }

    int demoPort() {
        return awaitGroup(DEMO_READY, Duration.ofSeconds(90));
    }

    /** A GET answer: status, body and time taken. */
    public static final class Answer {
        public final int status;
        public final String body;
        public final long millis;

        Answer(int status, String body, long millis) {
            this.status = status;
            this.body = body;
            this.millis = millis;
        }

        @Override
        public String toString() {
            return status + " in " + millis + " ms: " + body;
        }
    }

    public static Answer get(int port, String path) {
        long t0 = System.nanoTime();
        try {
            HttpURLConnection c = (HttpURLConnection) new URL("http://127.0.0.1:" + port + path).openConnection();
            c.setConnectTimeout(5_000);
            c.setReadTimeout(10_000);
            c.setRequestProperty("Connection", "close");
            int status = c.getResponseCode();
            InputStream in = status >= 400 ? c.getErrorStream() : c.getInputStream();
            String body = in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
            c.disconnect();
            return new Answer(status, body, (System.nanoTime() - t0) / 1_000_000);
        } catch (IOException e) {
            return new Answer(-1, e.toString(), (System.nanoTime() - t0) / 1_000_000);
        }
    }

    /** Sends {@code method path} and does not wait for the answer (a request left running). */
    public static void fireAndForget(int port, String method, String path) throws IOException {
        java.net.Socket s = new java.net.Socket("127.0.0.1", port);
        s.getOutputStream().write((method + " " + path + " HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
                .getBytes(StandardCharsets.ISO_8859_1));
        s.getOutputStream().flush();
        LEFT_OPEN.add(s);
    }

    private static final List<java.net.Socket> LEFT_OPEN = new java.util.concurrent.CopyOnWriteArrayList<>();

    @Override
    public void close() {
        for (java.net.Socket s : LEFT_OPEN) {
            try {
                s.close();
            } catch (IOException e) {
                // closing
            }
        }
        LEFT_OPEN.clear();
        ProcessHandle h = process.toHandle();
        h.destroy();
        try {
            h.onExit().get(15, java.util.concurrent.TimeUnit.SECONDS);
        } catch (Exception e) {
            h.destroyForcibly();
        }
    }
}
