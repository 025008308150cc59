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
 * <p>A throwable is written as its one-line {@code toString()}, its stack trace only at
 * {@code DEBUG} (option {@code log=debug}). Thread-safe: each line is one {@code println}.
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
        StringBuilder line = prefix(level).append(msg);
        if (thrown != null) {
            line.append(": ").append(thrown);
        }
        out.println(line);
        if (thrown != null && level == Level.DEBUG) {
            thrown.printStackTrace(out);
        }
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String format, Object... params) {
        if (!isLoggable(level)) {
            return;
        }
        String msg = params == null || params.length == 0 ? format : java.text.MessageFormat.format(format, params);
        out.println(prefix(level).append(msg));
    }

    private static StringBuilder prefix(Level level) {
        StringBuilder b = new StringBuilder(128).append("vitals-agent: ");
        if (level != Level.INFO) {
            b.append(level.getName()).append(": ");
        }
        return b;
    }
}
