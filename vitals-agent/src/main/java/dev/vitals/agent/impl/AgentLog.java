package dev.vitals.agent.impl;

import java.io.PrintStream;
import java.util.ResourceBundle;

/**
 * The agent's own log lines, and those of the Vitals core and probe server inside it: one line each
 * on standard error, {@code vitals-agent: message} (a level other than INFO before the message),
 * never through the JDK's logging. Starting {@code java.util.logging} from the agent cost a cold JVM
 * about ninety classes and a sixth of the agent's start-up CPU (its formatter's dates, locales and
 * caller lookup: issue 37), and, before the application's {@code main}, fixed the JDK's
 * {@code LogManager} before the application could choose its own ({@code java.util.logging.manager}
 * set in {@code main}, as Quarkus and JBoss do: docs/agent.md). A container's runtime stamps each
 * line with its time ({@code kubectl logs --timestamps}).
 *
 * <p>A throwable is written as its one-line {@code toString()}; with {@code log=debug}, at every
 * level, its stack trace follows. Every line of a record (a trace's, or a message's own line
 * breaks) carries the prefix, so none passes for the application's. Numbers are formatted in
 * {@code Locale.ROOT}. Thread-safe: a record is one {@code println}, so another thread's line
 * never lands inside it.
 */
final class AgentLog implements System.Logger {
    private final String name;
    private final Level least;
    private final PrintStream out;

    /**
     * @param name the logger's name (not printed)
     * @param least the least level written; {@code OFF} writes nothing
     * @param out where lines go (standard error)
     */
    AgentLog(String name, Level least, PrintStream out) {
        this.name = name;
        this.least = least;
        this.out = out;
    }

    @Override
    public String getName() {
        return name;
    }

    @Override
    public boolean isLoggable(Level level) {
        return level != Level.OFF && least != Level.OFF && level.getSeverity() >= least.getSeverity();
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String msg, Throwable thrown) {
        if (!isLoggable(level)) {
            return;
        }
        String text = thrown == null ? msg : msg + ": " + thrown;
        if (thrown != null && least == Level.DEBUG) {
            java.io.StringWriter trace = new java.io.StringWriter();
            thrown.printStackTrace(new java.io.PrintWriter(trace));
            String t = trace.toString();
            int firstLine = t.indexOf('\n');
            text = msg + ": " + (firstLine < 0 ? t : t.substring(0, firstLine) + t.substring(firstLine).stripTrailing());
        }
        write(level, text);
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String format, Object... params) {
        if (!isLoggable(level)) {
            return;
        }
        // Locale.ROOT: ASCII digits whatever the JVM's locale (12,345 as java.util.logging writes it in English, never ١٢٬٣٤٥).
        write(level, params == null || params.length == 0 ? format
                : new java.text.MessageFormat(format, java.util.Locale.ROOT).format(params));
    }

    /** One println for the whole record: every line of it prefixed, so no other line lands inside it. */
    private void write(Level level, String text) {
        String prefix = prefix(level);
        StringBuilder out = new StringBuilder(prefix.length() + text.length() + 16);
        int from = 0;
        while (true) {
            int nl = text.indexOf('\n', from);
            String line = nl < 0 ? text.substring(from) : text.substring(from, nl);
            if (line.endsWith("\r")) {
                line = line.substring(0, line.length() - 1);
            }
            if (from > 0) {
                out.append(System.lineSeparator());
            }
            out.append(prefix).append(line);
            if (nl < 0) {
                break;
            }
            from = nl + 1;
        }
        this.out.println(out);
    }

    private static String prefix(Level level) {
        return level == Level.INFO ? "vitals-agent: " : "vitals-agent: " + level.getName() + ": ";
    }
}
