package dev.vitals.demo;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The demo's main class started as a real child JVM (same classpath as the tests), with its
 * standard output collected line by line. {@link #close()} ends it by PID with SIGKILL.
 */
final class DemoProcess implements AutoCloseable {
    private static final Pattern KV = Pattern.compile("([a-z-]+)=(\\S+)");

    private final Process process;
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final Path stderr;

    private DemoProcess(Process process, Path stderr) {
        this.process = process;
        this.stderr = stderr;
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    lines.add(line);
                }
            } catch (IOException e) {
                // the process ended
            }
        }, "test-demo-stdout");
        reader.setDaemon(true);
        reader.start();
    }

    static DemoProcess start(String... args) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = new ArrayList<>(List.of(java, "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"), DemoMain.class.getName()));
        cmd.addAll(List.of(args));
        Path err = Files.createTempFile("vitals-demo-test", ".err");
        Process p = new ProcessBuilder(cmd).redirectError(err.toFile()).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .start();
        return new DemoProcess(p, err);
    }

    long pid() {
        return process.pid();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    List<String> lines() {
        return List.copyOf(lines);
    }

    /** Waits for a line starting with {@code prefix}; fails with the output so far if none comes. */
    String awaitLine(String prefix, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            for (String l : lines) {
                if (l.startsWith(prefix)) {
                    return l;
                }
            }
            if (!process.isAlive()) {
                Thread.sleep(100); // let the reader catch the last lines
                for (String l : lines) {
                    if (l.startsWith(prefix)) {
                        return l;
                    }
                }
                throw new AssertionError("demo exited (" + process.exitValue() + ") before '" + prefix + "'; stdout "
                        + lines + "; stderr " + stderrText());
            }
            Thread.sleep(20);
        }
        throw new AssertionError("no '" + prefix + "' within " + timeout + "; stdout " + lines + "; stderr " + stderrText());
    }

    /** @return the ready line's value of {@code key}, e.g. "port" */
    static int intField(String line, String key) {
        Matcher m = KV.matcher(line);
        while (m.find()) {
            if (m.group(1).equals(key)) {
                return Integer.parseInt(m.group(2));
            }
        }
        throw new AssertionError("no " + key + "= in: " + line);
    }

    String stderrText() {
        try {
            return Files.readString(stderr);
        } catch (IOException e) {
            return "(unreadable: " + e + ")";
        }
    }

    /**
     * Sends SIGTERM through the process handle. ({@link Process#destroy()} would also close our
     * end of the child's output pipes, so its shutdown lines would be lost.)
     */
    void sigterm() {
        process.toHandle().destroy();
    }

    Optional<Integer> awaitExit(Duration timeout) throws InterruptedException {
        return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) ? Optional.of(process.exitValue()) : Optional.empty();
    }

    /** Thread count of the child, from /proc (Linux). */
    int threadCount() throws IOException {
        for (String l : Files.readAllLines(Path.of("/proc", Long.toString(pid()), "status"))) {
            if (l.startsWith("Threads:")) {
                return Integer.parseInt(l.substring("Threads:".length()).trim());
            }
        }
        throw new IOException("no Threads: line for pid " + pid());
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            // SIGKILL at once: a SIGTERM would run the drain (seconds) for nothing; the SIGTERM
            // path has its own test
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
        try {
            Files.deleteIfExists(stderr);
        } catch (IOException e) {
            // a temp file
        }
    }
}
