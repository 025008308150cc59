package dev.vitals.monitor;

import java.util.Arrays;

/**
 * A histogram of durations over a sliding time window, made of {@code slots} sub-windows that
 * are recycled as time moves on. Fixed memory: slots × {@value #BUCKETS} counters.
 *
 * <p>Buckets are log-linear over microseconds: exact below 16 µs, then four buckets per power of
 * two, so a percentile is reported as its bucket's upper bound, at most 25 % above the true
 * value (and never above the window's exact maximum, which is kept separately).
 * {@link #record} is O(1); the queries are O(slots × buckets), a bounded constant.
 *
 * <p>Not thread-safe: callers synchronize.
 */
final class WindowedHistogram {
    static final int BUCKETS = 16 + (63 - 4) * 4;

    private final long slotNanos;
    private final int slots;
    private final long[][] counts;
    private final long[] max;
    private final long[] epoch;
    private final long[] merged = new long[BUCKETS];

    WindowedHistogram(long windowNanos, int slots) {
        if (slots < 1 || windowNanos < slots) {
            throw new IllegalArgumentException("window " + windowNanos + " ns / slots " + slots);
        }
        this.slots = slots;
        this.slotNanos = windowNanos / slots;
        this.counts = new long[slots][BUCKETS];
        this.max = new long[slots];
        this.epoch = new long[slots];
        Arrays.fill(epoch, Long.MIN_VALUE);
    }

    static int bucket(long nanos) {
        long us = Math.max(0, nanos) / 1000;
        if (us < 16) {
            return (int) us;
        }
        int e = 63 - Long.numberOfLeadingZeros(us); // >= 4
        int sub = (int) (us >>> (e - 2)) & 3;
        return 16 + (e - 4) * 4 + sub;
    }

    /** Upper bound (exclusive) of a bucket, in nanoseconds. */
    static long upperBoundNanos(int bucket) {
        if (bucket < 16) {
            return (bucket + 1) * 1000L;
        }
        int e = (bucket - 16) / 4 + 4;
        int sub = (bucket - 16) % 4;
        long us = (long) (5 + sub) << (e - 2);
        return us > Long.MAX_VALUE / 1000 ? Long.MAX_VALUE : us * 1000;
    }

    private int slot(long now) {
        long ep = Math.floorDiv(now, slotNanos);
        int i = (int) Math.floorMod(ep, (long) slots);
        if (epoch[i] != ep) {
            epoch[i] = ep;
            Arrays.fill(counts[i], 0);
            max[i] = 0;
        }
        return i;
    }

    private boolean live(int i, long now) {
        long ep = Math.floorDiv(now, slotNanos);
        return epoch[i] != Long.MIN_VALUE && epoch[i] > ep - slots && epoch[i] <= ep;
    }

    void record(long now, long valueNanos) {
        long v = Math.max(0, valueNanos);
        int i = slot(now);
        counts[i][bucket(v)]++;
        if (v > max[i]) {
            max[i] = v;
        }
    }

    long max(long now) {
        long m = 0;
        for (int i = 0; i < slots; i++) {
            if (live(i, now) && max[i] > m) {
                m = max[i];
            }
        }
        return m;
    }

    long count(long now) {
        long n = 0;
        for (int i = 0; i < slots; i++) {
            if (live(i, now)) {
                for (long c : counts[i]) {
                    n += c;
                }
            }
        }
        return n;
    }

    /**
     * Values at the given quantiles (each 0.0–1.0, ascending), in ns; all 0 when the window is empty.
     */
    long[] quantiles(long now, double... qs) {
        Arrays.fill(merged, 0);
        long total = 0;
        long m = 0;
        for (int i = 0; i < slots; i++) {
            if (!live(i, now)) {
                continue;
            }
            long[] c = counts[i];
            for (int b = 0; b < BUCKETS; b++) {
                merged[b] += c[b];
                total += c[b];
            }
            m = Math.max(m, max[i]);
        }
        long[] out = new long[qs.length];
        if (total == 0) {
            return out;
        }
        int b = 0;
        long seen = 0;
        for (int k = 0; k < qs.length; k++) {
            long rank = Math.max(1, (long) Math.ceil(qs[k] * total));
            while (b < BUCKETS - 1 && seen + merged[b] < rank) {
                seen += merged[b];
                b++;
            }
            out[k] = Math.min(m, upperBoundNanos(b));
        }
        return out;
    }
}
