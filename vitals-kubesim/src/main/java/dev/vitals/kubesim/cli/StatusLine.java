package dev.vitals.kubesim.cli;

import java.io.PrintWriter;

/**
 * One status line on stderr while a command runs: on a terminal it is redrawn in place (carriage
 * return and erase-line), elsewhere each update is a line of its own so that a log keeps them all.
 * Thread-safe: updates come from the run's threads.
 */
final class StatusLine {
    private static final String CLEAR_LINE = "\r\033[K";

    private final PrintWriter err;
    private final boolean tty;

    /**
     * @param err where the line goes
     * @param tty whether {@code err} is a terminal (redraw in place)
     */
    StatusLine(PrintWriter err, boolean tty) {
        this.err = err;
        this.tty = tty;
    }

    /** @param line the new status, replacing the last one on a terminal */
    synchronized void show(String line) {
        if (tty) {
            err.print(CLEAR_LINE + line);
        } else {
            err.println(line);
        }
        err.flush();
    }

    /** Erases the status on a terminal, before other output or at the end; nothing elsewhere. */
    synchronized void clear() {
        if (tty) {
            err.print(CLEAR_LINE);
            err.flush();
        }
    }
}
