package dev.vitals.testing;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

/**
 * Everything logged through {@code java.util.logging} at INFO and above while installed, measured
 * as a log file would hold it (formatted, stack traces included): the bound a log-flood test
 * asserts. Install on the root logger with {@link #install()}, {@link #remove()} when done.
 * Thread-safe.
 */
public final class LogCapture extends Handler {
    private final Logger root = Logger.getLogger("");
    private final Level oldLevel = root.getLevel();
    private final SimpleFormatter format = new SimpleFormatter();
    private final List<LogRecord> records = new ArrayList<>();

    /** @return a capture installed on the root logger (whose level it sets to INFO until removed) */
    public static LogCapture install() {
        LogCapture c = new LogCapture();
        c.setLevel(Level.INFO);
        c.root.setLevel(Level.INFO);
        c.root.addHandler(c);
        return c;
    }

    /** Removes the capture and restores the root logger's level. */
    public void remove() {
        root.removeHandler(this);
        root.setLevel(oldLevel);
    }

    @Override
    public synchronized void publish(LogRecord r) {
        if (isLoggable(r)) {
            records.add(r);
        }
    }

    /** @return the bytes captured records take formatted, stack traces included */
    public synchronized long bytes() {
        long n = 0;
        for (LogRecord r : records) {
            n += format.format(r).getBytes(StandardCharsets.UTF_8).length;
        }
        return n;
    }

    /** @return how many records each logger, level and message gave, for a failure message */
    public synchronized Map<String, Integer> byLogger() {
        Map<String, Integer> m = new TreeMap<>();
        for (LogRecord r : records) {
            m.merge(r.getLoggerName() + " " + r.getLevel() + " " + r.getMessage(), 1, Integer::sum);
        }
        return m;
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
    }
}
