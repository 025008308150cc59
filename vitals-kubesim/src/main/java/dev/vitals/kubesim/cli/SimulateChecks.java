package dev.vitals.kubesim.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.vitals.kubesim.input.InvalidInputException;
import dev.vitals.kubesim.model.Durations;
import dev.vitals.kubesim.model.ProbeHandler;
import dev.vitals.kubesim.model.ProbeSpec;
import dev.vitals.kubesim.report.Headroom;
import dev.vitals.kubesim.result.Expectation;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * {@code vitals simulate}'s checks of its input before the run starts (each bad value is one
 * line and exit 2, found before a minute of simulation, not after), and the additions to its
 * JSON report (effective command, {@code --expect} and default expectations, headroom).
 */
final class SimulateChecks {
    private static final Pattern IPV4 = Pattern.compile("(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)(\\.(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)){3}");
    private static final Pattern IPV6 = Pattern.compile("[0-9A-Fa-f:.]+");
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private SimulateChecks() {
    }

    /** An IP literal (v4 dotted quad, or v6), no host name: kubelet probes the pod's IP. */
    static void checkPodIp(String ip) {
        boolean ok = IPV4.matcher(ip).matches() || ip.contains(":") && IPV6.matcher(ip).matches() && v6(ip);
        if (!ok) {
            throw new InvalidInputException("--pod-ip must be an IP address such as 127.0.0.1 or ::1, was '" + ip + "'");
        }
    }

    private static boolean v6(String ip) {
        try {
            return java.net.InetAddress.getByName(ip) instanceof java.net.Inet6Address;
        } catch (java.net.UnknownHostException e) {
            return false;
        }
    }

    /** @return the duration, when it is more than 0 and at most {@code max} */
    static Duration positive(String option, String text, Duration max) {
        Duration d = Durations.parse(text);
        if (d.isZero() || d.isNegative()) {
            throw new InvalidInputException(option + " must be more than 0, was " + text);
        }
        if (d.compareTo(max) > 0) {
            throw new InvalidInputException(option + " must be at most " + max.toHours() + "h, was " + text);
        }
        return d;
    }

    /** The target must exist: a path that is an executable file, or a name found on PATH. */
    static void checkExecutable(String program) {
        if (program.contains("/") || program.contains(File.separator)) {
            Path p = Path.of(program);
            if (!Files.isRegularFile(p)) {
                throw new InvalidInputException("cannot start the target: " + program + ": no such file");
            }
            if (!Files.isExecutable(p)) {
                throw new InvalidInputException("cannot start the target: " + program + ": not executable");
            }
            checkFormat(program, p);
            return;
        }
        String path = System.getenv("PATH");
        if (path != null) {
            for (String dir : path.split(File.pathSeparator)) {
                if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, program)) && !Files.isDirectory(Path.of(dir, program))) {
                    checkFormat(program, Path.of(dir, program));
                    return;
                }
            }
        }
        throw new InvalidInputException("cannot start the target: '" + program + "' is not on PATH");
    }

    /**
     * A container runtime execs the command with execve(2), which takes a binary (ELF; Mach-O on a
     * Mac) or a script starting {@code #!}; anything else is "exec format error" and the container
     * never starts. Java's process launcher would run such a file through {@code /bin/sh} instead,
     * so {@code -- /etc/hostname} became a crash loop (issue 40): refused here, before any probe.
     */
    private static void checkFormat(String program, Path p) {
        byte[] head = new byte[4];
        int n;
        try (java.io.InputStream in = Files.newInputStream(p)) {
            n = in.readNBytes(head, 0, 4);
        } catch (IOException e) {
            throw new InvalidInputException("cannot start the target: " + program + ": " + InvalidInputException.reason(e));
        }
        int magic = n < 4 ? 0 : (head[0] & 0xff) << 24 | (head[1] & 0xff) << 16 | (head[2] & 0xff) << 8 | (head[3] & 0xff);
        boolean elf = magic == 0x7f454c46;
        boolean machO = magic == 0xfeedface || magic == 0xfeedfacf || magic == 0xcefaedfe || magic == 0xcffaedfe || magic == 0xcafebabe;
        boolean script = n >= 2 && head[0] == '#' && head[1] == '!';
        if (!elf && !machO && !script) {
            throw new InvalidInputException("cannot start the target: " + program + ": exec format error (neither a binary"
                    + " nor a script starting with #!; a container runtime cannot run it)");
        }
    }

    /**
     * The one check of a run's output files before anything is opened for writing or run (issue 30):
     * no empty path; no output that is one of the run's inputs (the same file, also through a symlink,
     * {@code ./} or a hard link: writing it would destroy the input); no two outputs naming the same
     * file (one would overwrite the other); then each one {@linkplain #checkWritable writable}. A
     * device or pipe ({@code /dev/null}) is exempt from the same-file checks: writing it destroys nothing.
     *
     * @param inputs the files the run reads (manifest, scenario, model...); null entries, {@code -}
     *        (standard input) and directories are skipped
     * @param outputs option name (e.g. {@code --json}) to the file it names, in order; null values skipped
     * @throws InvalidInputException (one line, exit 2) on the first bad output
     */
    static void checkOutputs(List<Path> inputs, Map<String, Path> outputs) {
        checkAll(inputs, outputs, () -> { });
    }

    /**
     * As {@link #checkOutputs(List, Map)}, with {@code --html}: its directory made when missing
     * ({@link HtmlOutput#prepare}) and its index checked as every other output.
     *
     * @param html the {@code --html} target, or null
     */
    static void checkOutputs(List<Path> inputs, Map<String, Path> outputs, HtmlOutput html) {
        Map<String, Path> all = new java.util.LinkedHashMap<>(outputs);
        if (html != null) {
            if (html.toString().isBlank()) {
                throw new InvalidInputException(HtmlOutput.OPTION + ": empty path");
            }
            all.put(HtmlOutput.OPTION, html.index());
        }
        // the same-file checks first (they need no directory), then each output opened, --html last: its directory
        // is made just before its index is checked
        checkAll(inputs, all, html == null ? () -> { } : html::prepare);
    }

    private static void checkAll(List<Path> inputs, Map<String, Path> outputs, Runnable beforeWritable) {
        List<Map.Entry<String, Path>> seen = new java.util.ArrayList<>();
        for (Map.Entry<String, Path> o : outputs.entrySet()) {
            Path file = o.getValue();
            if (file == null) {
                continue;
            }
            if (file.toString().isBlank()) {
                throw new InvalidInputException(o.getKey() + ": empty path");
            }
            if (Files.exists(file) && !Files.isRegularFile(file) && !Files.isDirectory(file)) {
                // a device or pipe (/dev/null, /dev/stdout): writing it destroys nothing, but a FIFO
                // nobody reads would hang the run's end: it must open now, within the wait (issue 40)
                try (java.io.OutputStream probe = open(file)) {
                    // opened
                } catch (java.io.InterruptedIOException e) {
                    throw new InvalidInputException(o.getKey() + " " + file + ": interrupted while opening it");
                } catch (IOException e) {
                    throw new InvalidInputException(o.getKey() + " " + file + ": " + InvalidInputException.reason(e));
                }
                continue;
            }
            for (Path in : inputs) {
                if (in != null && !in.toString().equals("-") && !Files.isDirectory(in) && sameFile(file, in)) {
                    throw new InvalidInputException(o.getKey() + " " + file + ": is the input " + in
                            + "; writing the report there would destroy it, write it elsewhere");
                }
            }
            for (Map.Entry<String, Path> before : seen) {
                if (sameFile(file, before.getValue())) {
                    throw new InvalidInputException(o.getKey() + " " + file + ": the same file as " + before.getKey() + " "
                            + before.getValue() + "; give each output its own file");
                }
            }
            seen.add(o);
        }
        for (Map.Entry<String, Path> o : seen) {
            if (o.getKey().equals(HtmlOutput.OPTION)) {
                beforeWritable.run(); // --html DIR made only once every other output was found writable
            }
            checkWritable(o.getKey(), o.getValue());
        }
    }

    /** @return whether two paths name one file: {@link Files#isSameFile} when both exist, else the resolved paths */
    static boolean sameFile(Path a, Path b) {
        try {
            if (Files.exists(a) && Files.exists(b)) {
                return Files.isSameFile(a, b);
            }
        } catch (IOException | SecurityException e) {
            // fall through to the paths
        }
        return resolved(a).equals(resolved(b));
    }

    /** @return the real path of the longest existing prefix, with the rest appended (symlinked directories resolved) */
    private static Path resolved(Path p) {
        Path abs = p.toAbsolutePath().normalize();
        Path existing = abs;
        while (existing != null && !Files.exists(existing)) {
            existing = existing.getParent();
        }
        if (existing == null) {
            return abs;
        }
        try {
            return existing.toRealPath().resolve(existing.relativize(abs));
        } catch (IOException | SecurityException e) {
            return abs;
        }
    }

    /**
     * Writes an output file; a failure (a full disk, {@code /dev/full}, a vanished directory) is one
     * line naming the file and the OS's reason, exit 2, as every other bad output.
     *
     * @throws InvalidInputException when the file cannot be written
     */
    static void write(Path file, String text) {
        try {
            try (java.io.OutputStream o = open(file)) {
                o.write(text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            throw writeFailure(file, e);
        }
    }

    /** How long opening a pipe or device for writing may wait for the other end (issue 40). */
    static final java.time.Duration OPEN_WAIT = java.time.Duration.ofSeconds(2);

    /**
     * Opens an output without hanging (issue 40): a regular file (or a new one) at once; a FIFO,
     * whose open(2) blocks until a reader comes, or another special file, on a daemon thread
     * waited for at most {@link #OPEN_WAIT} (the wait ends early on an interrupt: a signal). A
     * thread still blocked after that is left to end with the JVM, or to close what it opens.
     *
     * @param file the output
     * @return the open stream, truncating a regular file
     * @throws IOException when it cannot be opened, "a pipe with no reader" after the wait, or
     *         {@link java.io.InterruptedIOException} on an interrupt
     */
    static java.io.OutputStream open(Path file) throws IOException {
        if (!Files.exists(file) || Files.isRegularFile(file)) {
            return Files.newOutputStream(file);
        }
        java.util.concurrent.CompletableFuture<java.io.OutputStream> opened = new java.util.concurrent.CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                java.io.OutputStream o = Files.newOutputStream(file);
                if (!opened.complete(o)) {
                    o.close(); // given up on meanwhile
                }
            } catch (IOException | RuntimeException e) {
                opened.completeExceptionally(e);
            }
        }, "vitals-open-output");
        t.setDaemon(true);
        t.start();
        try {
            return opened.get(OPEN_WAIT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            opened.cancel(false);
            throw new IOException("a pipe or device with no reader (waited " + OPEN_WAIT.toSeconds() + " s to open it)");
        } catch (InterruptedException e) {
            opened.cancel(false);
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted while opening " + file);
        } catch (java.util.concurrent.ExecutionException e) {
            throw e.getCause() instanceof IOException ? (IOException) e.getCause() : new IOException(e.getCause().getMessage(), e.getCause());
        }
    }

    /** @return the one-line error for an output that could not be written, e.g. {@code /dev/full: No space left on device} */
    static InvalidInputException writeFailure(Path file, IOException e) {
        String reason = e instanceof java.nio.file.FileSystemException && ((java.nio.file.FileSystemException) e).getReason() != null
                ? ((java.nio.file.FileSystemException) e).getReason() : InvalidInputException.reason(e);
        return new InvalidInputException(file + ": " + reason);
    }

    /** A report or output file must be creatable: its directory exists (it is never made: exit 2 instead) and is writable. */
    static void checkWritable(String option, Path file) {
        if (file == null) {
            return;
        }
        Path abs = file.toAbsolutePath();
        if (Files.isDirectory(abs)) {
            throw new InvalidInputException(option + " " + file + ": is a directory");
        }
        Path dir = abs.getParent();
        if (dir != null && !Files.exists(dir)) {
            // like -o of most tools: a report's directory is not made for it (a typo in it would
            // otherwise become a new tree); --html DIR is the one directory vitals makes (HtmlOutput)
            throw new InvalidInputException(option + " " + file + ": no such directory " + (file.getParent() != null ? file.getParent() : dir)
                    + " (make it first)");
        }
        if (dir == null || !Files.isDirectory(dir)) {
            throw new InvalidInputException(option + " " + file + ": " + (dir == null ? "no such directory" : dir + " is not a directory"));
        }
        if (!Files.isWritable(dir) || Files.exists(abs) && !Files.isWritable(abs)) {
            throw new InvalidInputException(option + " " + file + ": not writable");
        }
        // root passes every access() check: open the file for writing (without truncating it), so
        // that /sys/x.json or a read-only mount is refused now, not after the run (issue 30)
        boolean existed = Files.exists(abs);
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(abs,
                java.nio.file.StandardOpenOption.WRITE, java.nio.file.StandardOpenOption.CREATE)) {
            // opened: writable
        } catch (java.io.IOException | SecurityException e) {
            throw new InvalidInputException(option + " " + file + ": not writable ("
                    + (e instanceof java.io.IOException ? InvalidInputException.reason((java.io.IOException) e) : "denied") + ")");
        }
        if (!existed) {
            try {
                Files.deleteIfExists(abs);
            } catch (java.io.IOException e) {
                // an empty file stays; the run overwrites it
            }
        }
    }

    /** @return a probe's kubelet description with named ports resolved, e.g. {@code httpGet http://:http(8080)/livez} */
    static String describe(ProbeSpec p, Map<String, Integer> ports) {
        String d = p.describe();
        ProbeHandler h = p.handler();
        ProbeHandler.PortRef ref = h.portRef().orElse(null);
        if (ref != null && ref.isNamed() && ports.containsKey(ref.name().get())) {
            String name = ref.name().get();
            d = d.replaceFirst(":" + Pattern.quote(name) + "(?=[/ ]|$)", ":" + ports.get(name) + " (" + name + ")");
        }
        return d;
    }

    /** @return a short reason for an exception, without its class name when it has a message */
    static String reason(Exception e) {
        String m = e.getMessage();
        Throwable c = e.getCause();
        if (c instanceof java.net.BindException) {
            return (m == null ? "" : m + ": ") + "address already in use";
        }
        return m == null ? e.getClass().getSimpleName() : m;
    }

    /** @return the JSON report with the effective command, the expectations and the headroom added */
    static String json(String report, List<Expectation.Check> extra, List<Expectation.Check> defaults, Headroom h,
            boolean passed, List<String> command) throws IOException {
        ObjectNode root = (ObjectNode) JSON.readTree(report);
        ArrayNode cmd = root.putArray("command");
        command.forEach(cmd::add);
        ArrayNode ex = (ArrayNode) root.withArray("expectations");
        for (Expectation.Check c : extra) {
            ex.addObject().put("expect", c.expectation()).put("passed", c.passed()).put("actual", c.actual())
                    .put("source", "--expect");
        }
        for (Expectation.Check c : defaults) {
            ex.addObject().put("expect", c.expectation()).put("passed", c.passed()).put("actual", c.actual())
                    .put("source", "default");
        }
        ArrayNode hr = root.putArray("headroom");
        for (Headroom.Probe p : h.probes()) {
            ObjectNode o = hr.addObject();
            o.put("probe", p.type().label()).put("count", p.count()).put("p50Ms", p.p50Ms()).put("p99Ms", p.p99Ms())
                    .put("maxMs", p.maxMs()).put("timeoutSeconds", p.timeoutSeconds())
                    .put("successes", p.successes()).put("failures", p.failures()).put("neverSucceeded", p.neverSucceeded())
                    .put("longestFailureRun", p.longestFailureRun()).put("failureThreshold", p.failureThreshold());
            ArrayNode w = o.putArray("warnings");
            p.warnings().forEach(w::add);
        }
        h.boot().ifPresent(b -> {
            ObjectNode o = root.putObject("boot");
            o.put("seconds", Math.round(b.seconds() * 1000) / 1000.0).put("budgetSeconds", b.budgetSeconds())
                    .put("budgetProbe", b.budgetProbe().label()).put("headroom", Math.round(b.headroom() * 100) / 100.0)
                    .put("text", b.text());
            b.cpuLimit().ifPresent(c -> o.put("cpuLimit", c));
        });
        ArrayNode more = root.putArray("headroomWarnings");
        h.warnings().forEach(more::add);
        ArrayNode idle = root.putArray("headroomNotRun");
        h.notRun().forEach(line -> idle.add(line.strip()));
        root.put("passed", passed);
        return JSON.writeValueAsString(root) + "\n";
    }
}
