package dev.vitals.kubesim.report;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;

/**
 * The ticks of a chart's axis, shared by every SVG chart of the reports (simulate's timeline,
 * replay's run pages, fleet's charts and lanes): a round step, every multiple of it inside the
 * range, and always both ends, so the last value is labelled (an intermediate tick closer than
 * half a step to an end is dropped so that labels do not overlap). Stateless; thread-safe.
 */
public final class Axis {
    /** Round steps: 1-2-5 below a second, then seconds, minutes and hours a clock reads easily. */
    private static final double[] TIME_STEPS = {0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14400,
        28800, 86400};

    /**
     * A tick: where and what to print.
     *
     * @param value the axis value (seconds for a time axis)
     * @param label the text under or beside it, e.g. {@code 37s} or {@code 4}
     */
    public record Tick(double value, String label) {
    }

    private Axis() {
    }

    /**
     * Ticks of a time axis.
     *
     * @param from the first second shown
     * @param to the last second shown; greater than {@code from}
     * @param maxTicks the most ticks wanted (at least 2); a step is chosen so that the multiples fit
     * @return the ticks from {@code from} to {@code to}, both included, labelled in seconds ({@code 12.5s})
     * @throws IllegalArgumentException if {@code to <= from} or {@code maxTicks < 2}
     */
    public static List<Tick> time(double from, double to, int maxTicks) {
        return ticks(from, to, step(TIME_STEPS, (to - from) / Math.max(1, maxTicks - 1)), maxTicks, "s");
    }

    /**
     * Ticks of a count axis (endpoints, replicas) from 0.
     *
     * @param max the top of the axis; positive
     * @param maxTicks the most ticks wanted (at least 2)
     * @return 0, the round intermediate values, and {@code max}
     * @throws IllegalArgumentException if {@code max <= 0} or {@code maxTicks < 2}
     */
    public static List<Tick> count(double max, int maxTicks) {
        double raw = max / Math.max(1, maxTicks - 1);
        double decade = Math.pow(10, Math.floor(Math.log10(Math.max(raw, 1))));
        double step = raw <= 1 ? 1 : step(new double[] {decade, 2 * decade, 5 * decade, 10 * decade}, raw);
        return ticks(0, max, step, maxTicks, "");
    }

    private static double step(double[] steps, double raw) {
        for (double s : steps) {
            if (s >= raw - 1e-9) {
                return s;
            }
        }
        return steps[steps.length - 1] * Math.ceil(raw / steps[steps.length - 1]);
    }

    private static List<Tick> ticks(double from, double to, double step, int maxTicks, String unit) {
        if (!(to > from) || maxTicks < 2) {
            throw new IllegalArgumentException("an axis needs to > from and at least 2 ticks, was " + from + ".." + to + ", " + maxTicks);
        }
        List<Tick> out = new ArrayList<>();
        out.add(new Tick(from, label(from, unit)));
        for (double t = Math.ceil(from / step - 1e-9) * step; t <= to - step / 2 + 1e-9; t += step) {
            if (t >= from + step / 2 - 1e-9) {
                out.add(new Tick(t, label(t, unit)));
            }
        }
        out.add(new Tick(to, label(to, unit)));
        return List.copyOf(out);
    }

    /**
     * @param v a value
     * @param unit appended, e.g. {@code s}
     * @return {@code v} to at most two decimals, no trailing zeros: {@code 37}, {@code 12.5}
     */
    static String label(double v, String unit) {
        return BigDecimal.valueOf(v).setScale(2, RoundingMode.HALF_UP).stripTrailingZeros().toPlainString() + unit;
    }
}
