package dev.vitals.bench.suite;

import java.util.Arrays;

/** Percentiles of a sample (nearest rank). Stateless. */
final class Stats {
    private Stats() {
    }

    /**
     * @param values a non-empty sample, in any order (not modified)
     * @param p      percentile, 0 to 100
     * @return the nearest-rank percentile: the smallest value with at least {@code p} % of the
     *     sample at or below it
     */
    static double percentile(double[] values, double p) {
        if (values.length == 0) {
            throw new IllegalArgumentException("empty sample");
        }
        if (p < 0 || p > 100) {
            throw new IllegalArgumentException("percentile must be 0-100, was " + p);
        }
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int rank = (int) Math.ceil(p / 100 * sorted.length);
        return sorted[Math.max(0, rank - 1)];
    }

    static double max(double[] values) {
        return percentile(values, 100);
    }

    /** @return latencies in ns as ms */
    static double[] millis(long[] nanos) {
        double[] ms = new double[nanos.length];
        for (int i = 0; i < nanos.length; i++) {
            ms[i] = nanos[i] / 1e6;
        }
        return ms;
    }
}
