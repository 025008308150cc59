package dev.vitals.kubesim.cli;

import dev.vitals.kubesim.model.SimEvent;
import dev.vitals.kubesim.report.Reports;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * What {@code vitals simulate} shows while it runs: each event's line on stdout (none with
 * {@code --quiet}) and, on a terminal, a progress bar on stderr redrawn every 500 ms with the time
 * run, the Ready condition and the restarts so far (the bar is cleared before an event's line).
 * Thread-safe: events arrive on the simulation's threads and the bar is drawn on its own daemon
 * thread ({@code vitals-kubesim-progress}); one lock keeps their output apart.
 */
final class SimulateProgress implements Consumer<SimEvent> {
    private static final int WIDTH = 30;

    private final PrintWriter out;
    private final StatusLine status;
    private final boolean quiet;
    private final boolean tty;
    private final Object lock = new Object();
    private long startNanos = System.nanoTime();
    private boolean ready;
    private int restarts;
    private ScheduledExecutorService bar;

    /**
     * @param out where event lines go
     * @param err where the bar goes
     * @param quiet no event lines
     * @param tty draw the bar (stdout is a terminal and not quiet)
     */
    SimulateProgress(PrintWriter out, PrintWriter err, boolean quiet, boolean tty) {
        this.out = out;
        this.status = new StatusLine(err, tty);
        this.quiet = quiet;
        this.tty = tty;
    }

    @Override
    public void accept(SimEvent e) {
        synchronized (lock) {
            if (e.type() == SimEvent.Type.READY || e.type() == SimEvent.Type.NOT_READY) {
                ready = e.type() == SimEvent.Type.READY;
            }
            if (e.type() == SimEvent.Type.START && e.instance() > 1) {
                restarts++;
            }
            if (!quiet) {
                status.clear();
                out.println(Reports.line(e));
                out.flush();
            }
        }
    }

    /**
     * Starts the clock and, on a terminal, the bar.
     *
     * @param totalSeconds the run's length, the bar's full width
     */
    void start(double totalSeconds) {
        synchronized (lock) {
            startNanos = System.nanoTime();
        }
        if (!tty) {
            return;
        }
        bar = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "vitals-kubesim-progress");
            t.setDaemon(true);
            return t;
        });
        bar.scheduleAtFixedRate(() -> draw(totalSeconds), 500, 500, TimeUnit.MILLISECONDS);
    }

    /** Stops the bar and clears its line; nothing without a terminal. */
    void stop() {
        if (bar == null) {
            return;
        }
        bar.shutdownNow();
        synchronized (lock) {
            status.clear();
        }
    }

    private void draw(double total) {
        synchronized (lock) {
            double t = (System.nanoTime() - startNanos) / 1e9;
            int done = (int) Math.min(WIDTH, t / total * WIDTH);
            status.show(String.format(Locale.ROOT, "[%s%s] %5.1fs/%.0fs  %s  restarts %d", "=".repeat(done),
                    " ".repeat(WIDTH - done), Math.min(t, total), total, ready ? "READY" : "not ready", restarts));
        }
    }
}
