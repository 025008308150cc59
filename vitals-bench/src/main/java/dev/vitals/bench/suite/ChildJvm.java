package dev.vitals.bench.suite;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A server under test in its own JVM: started with the same JVM options as every other target,
 * output (standard output and error merged) to a log file, killed by PID on {@link #close()} and,
 * for any still alive, by a shutdown hook when the suite ends or is interrupted (Ctrl-C).
 * Linux only for {@link #threads()} and {@link #rssKiB()} (read from {@code /proc/<pid>/status}).
 */
final class ChildJvm implements AutoCloseable {
    /** Heap cap of every target, so that heap and RSS figures compare and the shared machine is spared. */
    static final List<String> JVM_OPTIONS = List.of("-Xmx256m", "-XX:+UseG1GC", "-Djava.net.preferIPv4Stack=true");

    private static final Set<ChildJvm> LIVE = ConcurrentHashMap.newKeySet();
    /** Set by the shutdown hook: from then on no child starts (the suite's thread may still be running). */
    private static volatile boolean shuttingDown;

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            synchronized (LIVE) {
                shuttingDown = true;
            }
            for (ChildJvm c : LIVE) {
                c.kill();
            }
        }, "vitals-bench-kill-children"));
    }

    final String name;
    final Process process;
    final Path log;
    final long startNanos;

    private ChildJvm(String name, Process process, Path log, long startNanos) {
        this.name = name;
        this.process = process;
        this.log = log;
        this.startNanos = startNanos;
    }

    /**
     * @param name    name of the target, also the log file's name
     * @param logDir  where {@code <name>.log} goes
     * @param command what follows {@code java} and {@link #JVM_OPTIONS}, such as {@code -jar app.jar --x}
     */
    static ChildJvm start(String name, Path logDir, List<String> command) throws IOException {
        Files.createDirectories(logDir);
        Path log = logDir.resolve(name + ".log");
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(JVM_OPTIONS);
        cmd.addAll(command);
        Files.writeString(log, String.join(" ", cmd) + "\n", StandardCharsets.UTF_8);
        synchronized (LIVE) { // against the shutdown hook: a child is either refused or killed by it
            if (shuttingDown) {
                throw new IllegalStateException("shutting down: " + name + " not started");
            }
            long t0 = System.nanoTime();
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
            ChildJvm c = new ChildJvm(name, p, log, t0);
            LIVE.add(c);
            return c;
        }
    }

    /** @return time since the process was started, ms */
    double sinceStartMs() {
        return (System.nanoTime() - startNanos) / 1e6;
    }

    long pid() {
        return process.pid();
    }

    /** Fails with the log's tail when the process has exited. */
    void requireAlive() {
        if (!process.isAlive()) {
            throw new IllegalStateException(name + " exited with " + process.exitValue() + "; log " + log + ":\n" + tail());
        }
    }

    /**
     * Waits for a line of the log matching {@code pattern}.
     *
     * @return the match
     * @throws IllegalStateException when the process exits or {@code timeout} passes first
     */
    Matcher awaitLine(Pattern pattern, Duration timeout) throws IOException, InterruptedException {
        long end = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() - end < 0) {
            for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
                Matcher m = pattern.matcher(line);
                if (m.find()) {
                    return m;
                }
            }
            requireAlive();
            Thread.sleep(50);
        }
        throw new IllegalStateException(name + ": no line matching " + pattern + " within " + timeout + "; log " + log + ":\n" + tail());
    }

    /** @return the number of threads of the JVM now ({@code Threads:} in /proc) */
    int threads() throws IOException {
        return (int) procStatus("Threads:");
    }

    /**
     * @return the names of the JVM's threads now ({@code /proc/<pid>/task/<tid>/comm}: the OS
     *     names, cut to 15 characters), a multiset as a sorted list
     */
    List<String> threadNames() throws IOException {
        requireAlive();
        List<String> names = new ArrayList<>();
        try (java.util.stream.Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid()), "task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                try {
                    names.add(Files.readString(task.resolve("comm")).trim());
                } catch (IOException e) {
                    // the thread ended between the listing and the read
                }
            }
        }
        java.util.Collections.sort(names);
        return names;
    }

    /** @return the number of open file descriptors of the JVM now (entries of {@code /proc/<pid>/fd}) */
    int fds() throws IOException {
        requireAlive();
        try (java.util.stream.Stream<Path> fds = Files.list(Path.of("/proc", Long.toString(pid()), "fd"))) {
            return (int) fds.count();
        }
    }

    /** @return the resident set size now, KiB ({@code VmRSS:} in /proc) */
    long rssKiB() throws IOException {
        return procStatus("VmRSS:");
    }

    private long procStatus(String field) throws IOException {
        requireAlive();
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid()), "status"))) {
            if (line.startsWith(field)) {
                return Long.parseLong(line.substring(field.length()).trim().split("\\s+")[0]);
            }
        }
        throw new IllegalStateException("no " + field + " in /proc/" + pid() + "/status");
    }

    /**
     * Runs a full GC in the target ({@code jcmd <pid> GC.run}) and reads the heap in use after it
     * ({@code GC.heap_info}, G1's "used" figure).
     *
     * @return live heap, KiB
     */
    long liveHeapKiB() throws IOException, InterruptedException {
        jcmd("GC.run");
        String info = jcmd("GC.heap_info");
        Matcher m = Pattern.compile("used (\\d+)K").matcher(info);
        if (!m.find()) {
            throw new IllegalStateException("no heap figure in jcmd GC.heap_info output:\n" + info);
        }
        return Long.parseLong(m.group(1));
    }

    /**
     * Reads the target's native memory summary ({@code jcmd <pid> VM.native_memory summary}); the
     * target must run with {@code -XX:NativeMemoryTracking=summary}.
     *
     * @return committed KiB per NMT category ({@code Java Heap}, {@code Class}, {@code Thread},
     *     {@code Code}, ...), and {@code Total}, in the summary's order
     * @throws IllegalStateException when the summary has no figures (NMT not enabled)
     */
    Map<String, Long> nativeMemoryKiB() throws IOException, InterruptedException {
        String text = jcmd("VM.native_memory summary");
        Map<String, Long> committed = parseNativeMemory(text);
        if (committed.isEmpty()) {
            throw new IllegalStateException(name + ": no native memory summary from jcmd (run with -XX:NativeMemoryTracking=summary): "
                    + text.strip().lines().reduce((a, b) -> b).orElse("no output"));
        }
        return committed;
    }

    /**
     * Asks the target's C library to give its free heap memory back to the OS ({@code jcmd <pid>
     * System.trim_native_heap}, glibc only; JDK 17.0.9 and later).
     *
     * @return whether the JVM ran it (false: this JDK or C library has no such command)
     */
    boolean trimNativeHeap() throws IOException, InterruptedException {
        return jcmd("System.trim_native_heap").contains("Trim native heap: RSS");
    }

    private static final Pattern NMT_TOTAL = Pattern.compile("^Total: reserved=\\d+KB, committed=(\\d+)KB", Pattern.MULTILINE);
    private static final Pattern NMT_CATEGORY = Pattern.compile("^-\\s+(\\S.*?) \\(reserved=\\d+KB, committed=(\\d+)KB\\)",
            Pattern.MULTILINE);

    /** @return committed KiB per category of an NMT summary, then {@code Total}; empty when there are none */
    static Map<String, Long> parseNativeMemory(String summary) {
        Map<String, Long> committed = new LinkedHashMap<>();
        Matcher m = NMT_CATEGORY.matcher(summary);
        while (m.find()) {
            committed.put(m.group(1), Long.parseLong(m.group(2)));
        }
        Matcher total = NMT_TOTAL.matcher(summary);
        if (total.find()) {
            committed.put("Total", Long.parseLong(total.group(1)));
        }
        return committed;
    }

    private String jcmd(String command) throws IOException, InterruptedException {
        requireAlive();
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                Long.toString(pid())));
        cmd.addAll(List.of(command.split(" ")));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException("jcmd " + command + " did not finish");
        }
        return new String(out, StandardCharsets.UTF_8);
    }

    String tail() {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException e) {
            return "(log unreadable: " + e + ")";
        }
    }

    /** Kills the process by PID (SIGTERM, then SIGKILL after 10 s) and waits for it. */
    @Override
    public void close() {
        kill();
        LIVE.remove(this);
    }

    private void kill() {
        if (!process.isAlive()) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    /**
     * @return a port free on 127.0.0.1 right now (bound to 0 and released; a target started next
     *     takes it, the tiny race with other processes is accepted)
     */
    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        }
    }
}
