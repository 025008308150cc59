package dev.vitals.kubesim.model;

import dev.vitals.kubesim.input.InvalidInputException;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses and formats the duration syntax of flags and scenarios: {@code 500ms}, {@code 2s}, {@code 1.5s}, {@code 1m}, {@code 90} (seconds). */
public final class Durations {
    private static final Pattern P = Pattern.compile("\\s*(\\d+(?:\\.\\d+)?)\\s*(ms|s|m|h)?\\s*");

    private Durations() {
    }

    /**
     * @param text e.g. {@code 2s}
     * @return the duration
     * @throws InvalidInputException when the text is not a non-negative duration
     */
    public static Duration parse(String text) {
        Matcher m = P.matcher(text == null ? "" : text);
        if (!m.matches()) {
            throw new InvalidInputException("not a duration: '" + text + "' (use e.g. 500ms, 2s, 1.5s, 1m)");
        }
        double v = Double.parseDouble(m.group(1));
        String unit = m.group(2) == null ? "s" : m.group(2);
        double ms;
        switch (unit) {
            case "ms":
                ms = v;
                break;
            case "m":
                ms = v * 60_000;
                break;
            case "h":
                ms = v * 3_600_000;
                break;
            default:
                ms = v * 1000;
        }
        if (!(ms * 1_000_000 < Long.MAX_VALUE)) {
            throw new InvalidInputException("duration too large: '" + text + "' (at most about 292 years)");
        }
        return Duration.ofNanos(Math.round(ms * 1_000_000));
    }

    /**
     * Converts a duration to seconds with its nanoseconds.
     *
     * @param d the duration
     * @return seconds as a double
     */
    public static double seconds(Duration d) {
        return d.toNanos() / 1e9;
    }
}
