package dev.vitals.kubesim.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.vitals.kubesim.runtime.ProcessReaper;
import java.io.IOException;
import java.time.Duration;
import java.util.Locale;

/**
 * SIGINT, SIGTERM and SIGHUP (a closed terminal or SSH session, issue 40) for the {@code vitals}
 * command line (issue 30); a signal the tool was started ignoring ({@code nohup}) stays ignored. The first signal interrupts
 * the command's thread: {@code simulate} and the live {@code fleet} stop their run as at its end and
 * write the reports asked for with what was measured, {@code replay} with the runs it finished, all
 * marked interrupted ({@link #markJson}, {@link #markHtml}); every process the run started is reaped
 * with its descendants ({@link ProcessReaper}); the tool says so on stderr and exits 128 + the
 * signal's number (130 for SIGINT, 143 for SIGTERM), as a shell reports a process a signal ended.
 * A second signal does not wait: it reaps and exits at once. Installed only by
 * {@link VitalsCommand#main}, never when the CLI runs inside another program (tests, embedding).
 */
final class Interrupts {
    /** Grace between SIGTERM and SIGKILL when reaping the run's processes. */
    static final Duration REAP_GRACE = Duration.ofSeconds(5);
    private static volatile int signal;
    private static volatile String name;

    private Interrupts() {
    }

    /** @param worker the thread running the command */
    @SuppressWarnings("removal")
    static void install(Thread worker) {
        for (String n : new String[] {"INT", "TERM", "HUP"}) {
            if (ignoredAtStart(n)) {
                continue; // nohup, or a background job's SIGINT: the caller asked for it to be ignored
            }
            try {
                sun.misc.Signal.handle(new sun.misc.Signal(n), sig -> {
                    if (signal != 0) { // the second signal: do not wait for the reports
                        ProcessReaper.reapAll(Duration.ZERO);
                        Runtime.getRuntime().halt(128 + sig.getNumber());
                    }
                    ProcessReaper.noteDescendants(); // while the run's processes still hold their children
                    name = "SIG" + sig.getName();
                    signal = sig.getNumber();
                    worker.interrupt();
                });
            } catch (IllegalArgumentException | UnsupportedOperationException e) {
                // the signal is taken by the JVM (-Xrs) or unknown here: its default action stays
            }
        }
        // Whatever ends the JVM (an exit path that forgot): no process outlives the tool.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> ProcessReaper.reapAll(REAP_GRACE), "vitals-reaper"));
    }

    /**
     * @param name {@code INT}, {@code TERM} or {@code HUP}
     * @return whether this process was started with the signal ignored ({@code SigIgn} in
     *         {@code /proc/self/status}; false where that cannot be read)
     */
    static boolean ignoredAtStart(String name) {
        int number = name.equals("HUP") ? 1 : name.equals("INT") ? 2 : name.equals("TERM") ? 15 : 0;
        try {
            for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/self/status"))) {
                if (line.startsWith("SigIgn:")) {
                    long mask = Long.parseUnsignedLong(line.substring(7).trim(), 16);
                    return number > 0 && (mask & (1L << (number - 1))) != 0;
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux: handle it
        }
        return false;
    }

    /** @return the number of the signal received (1, 2, 15), or 0 */
    static int signal() {
        return signal;
    }

    /** @return the exit code for the signal received: 128 + its number */
    static int exitCode() {
        return 128 + signal;
    }

    /** @return "SIGINT"/"SIGTERM", or "an interrupt" when none was received (an embedding's interrupt) */
    static String what() {
        return name == null ? "an interrupt" : name;
    }

    /** @return the exit code for an interrupted run: 128 + the signal's number, 130 without one */
    static int interruptedExitCode() {
        return signal != 0 ? exitCode() : 130;
    }

    /**
     * @param json a JSON report object
     * @param ranSeconds how long the run had been going
     * @return the report with {@code "passed": false} (an interrupted run passed nothing, whatever
     *         its parts said: issue 40), {@code "interrupted": true}, {@code "interruption":
     *         {"signal", "afterSeconds"}} and {@code "verdict": "INTERRUPTED"}, indented
     * @throws IOException when {@code json} is not a JSON object
     */
    static String markJson(String json, double ranSeconds) throws IOException {
        ObjectMapper m = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        ObjectNode root = (ObjectNode) m.readTree(json);
        root.put("passed", false);
        root.put("interrupted", true);
        ObjectNode i = root.putObject("interruption");
        i.put("signal", what());
        i.put("afterSeconds", ranSeconds);
        root.put("verdict", "INTERRUPTED");
        return m.writeValueAsString(root);
    }

    /**
     * @param page an HTML page
     * @param ranSeconds how long the run had been going
     * @return the page with a banner after {@code <body>}: interrupted by what, after how long, no verdict
     */
    static String markHtml(String page, double ranSeconds) {
        String banner = "<p style=\"background:#fde2e1;padding:.5em\"><b>Interrupted</b> by " + what() + " after "
                + String.format(Locale.ROOT, "%.1f", ranSeconds) + " s: what was measured until then; no verdict.</p>";
        int body = page.indexOf("<body");
        int at = body < 0 ? -1 : page.indexOf('>', body) + 1;
        return at > 0 ? page.substring(0, at) + banner + page.substring(at) : banner + page;
    }

    /**
     * Reaps the run's processes and says so on stderr.
     *
     * @param err standard error
     * @param what what was interrupted and what was kept, e.g. "simulate after 4.2 s; reports written"
     */
    static void report(java.io.PrintWriter err, String what) {
        int reaped = ProcessReaper.reapAll(REAP_GRACE);
        err.println(String.format(Locale.ROOT, "vitals: interrupted by %s: %s%s", name, what,
                reaped == 0 ? "" : "; " + reaped + " process" + (reaped == 1 ? "" : "es") + " left by the run ended"));
        err.flush();
    }
}
