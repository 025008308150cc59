package dev.vitals.internal;

import java.util.ResourceBundle;
import java.util.function.Function;

/**
 * Not API: where Vitals' own log lines go. By default each logger is the JDK's
 * {@link System#getLogger} (java.util.logging, or the application's {@code LoggerFinder}), looked
 * up at the first line it writes or asks about, not when the class holding it loads. An embedder
 * that must not start the JDK's logging, the agent (loading {@code LogManager} and its formatter
 * costs a cold JVM about a hundred classes, and starting it before the application's {@code main}
 * fixes {@code java.util.logging.manager} too early: DESIGN.md section 7d), sets its own
 * {@link #sink} before the first line.
 *
 * <p>Thread-safe. The sink is read once per logger, at its first use.
 */
public final class Logs {
    private static volatile Function<String, System.Logger> sink;

    private Logs() {
    }

    /**
     * @param name the logger's name, e.g. {@code dev.vitals}
     * @return a logger that resolves to the sink's (or {@link System#getLogger}'s) at its first use
     */
    public static System.Logger get(String name) {
        return new Deferred(name);
    }

    /**
     * Sends the lines of every logger not used yet to {@code loggers} instead of
     * {@link System#getLogger}.
     *
     * @param loggers a logger per name; called once per logger, at its first use
     */
    public static void sink(Function<String, System.Logger> loggers) {
        sink = loggers;
    }

    private static final class Deferred implements System.Logger {
        private final String name;
        private volatile System.Logger target;

        Deferred(String name) {
            this.name = name;
        }

        private System.Logger target() {
            System.Logger t = target;
            if (t == null) {
                Function<String, System.Logger> s = sink;
                t = s != null ? s.apply(name) : System.getLogger(name);
                target = t;
            }
            return t;
        }

        @Override
        public String getName() {
            return name;
        }

        @Override
        public boolean isLoggable(Level level) {
            return target().isLoggable(level);
        }

        @Override
        public void log(Level level, ResourceBundle bundle, String msg, Throwable thrown) {
            target().log(level, bundle, msg, thrown);
        }

        @Override
        public void log(Level level, ResourceBundle bundle, String format, Object... params) {
            target().log(level, bundle, format, params);
        }
    }
}
