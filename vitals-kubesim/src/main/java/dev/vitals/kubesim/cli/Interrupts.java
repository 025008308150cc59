package dev.vitals.kubesim.cli;

import dev.vitals.kubesim.runtime.ProcessReaper;
import java.time.Duration;
import java.util.Locale;

/**
 * SIGINT and SIGTERM for the {@code vitals} command line (issue 30). The first signal interrupts
 * the command's thread: {@code simulate} stops its run as at its end and writes the reports asked
 * for with what was measured, marked interrupted; {@code fleet} and {@code replay} stop; every
 * process the run started is reaped with its descendants ({@link ProcessReaper}); the tool says so
 * on stderr and exits 128 + the signal's number (130 for SIGINT, 143 for SIGTERM), as a shell
 * reports a process a signal ended. A second signal does not wait: it reaps and exits at once.
 * Installed only by {@link VitalsCommand#main}, never when the CLI runs inside another program
 * (tests, embedding).
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
        for (String n : new String[] {"INT", "TERM"}) {
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
        // Whatever ends the JVM (SIGHUP, an exit path that forgot): no process outlives the tool.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> ProcessReaper.reapAll(REAP_GRACE), "vitals-reaper"));
    }

    /** @return the number of the signal received (2, 15), or 0 */
    static int signal() {
        return signal;
    }

    /** @return "SIGINT" or "SIGTERM"; null when none was received */
    static String signalName() {
        return name;
    }

    /** @return the exit code for the signal received: 128 + its number */
    static int exitCode() {
        return 128 + signal;
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
