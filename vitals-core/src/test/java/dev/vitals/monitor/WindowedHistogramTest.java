package dev.vitals.monitor;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Bucketing, percentiles and the sliding window of the lag and pause histogram. */
class WindowedHistogramTest {
    private static final long MS = 1_000_000L;
    private static final long S = 1_000 * MS;

    @Test
    void bucketsAreExactBelow16MicrosThenWithin25Percent() {
        for (long us = 0; us < 16; us++) {
            assertThat(WindowedHistogram.bucket(us * 1000)).isEqualTo((int) us);
        }
        for (long v = 16_000; v < 1_000 * S; v = v * 3 / 2 + 7) {
            int b = WindowedHistogram.bucket(v);
            long upper = WindowedHistogram.upperBoundNanos(b);
            assertThat(upper).as("value %d", v).isGreaterThan(v / 1000 * 1000);
            assertThat((double) upper).isLessThanOrEqualTo(v * 1.25 + 1000);
            assertThat(b).isLessThan(WindowedHistogram.BUCKETS);
        }
        assertThat(WindowedHistogram.bucket(Long.MAX_VALUE)).isLessThan(WindowedHistogram.BUCKETS);
        assertThat(WindowedHistogram.bucket(-5)).isZero();
    }

    @Test
    void percentilesMaxAndCountOverTheWindow() {
        WindowedHistogram h = new WindowedHistogram(60 * S, 6);
        for (int i = 1; i <= 100; i++) {
            h.record(S, i * MS);
        }
        assertThat(h.count(S)).isEqualTo(100);
        assertThat(h.max(S)).isEqualTo(100 * MS);
        long[] q = h.quantiles(S, 0.5, 0.99, 1.0);
        assertThat(q[0]).isBetween(50 * MS, 63 * MS);
        assertThat(q[1]).isBetween(99 * MS, 100 * MS);
        assertThat(q[2]).isEqualTo(100 * MS);

        // 61 s later every slot of the first second has expired.
        assertThat(h.count(62 * S)).isZero();
        assertThat(h.max(62 * S)).isZero();
        assertThat(h.quantiles(62 * S, 0.5)).containsExactly(0);
        h.record(62 * S, 3 * MS);
        assertThat(h.max(62 * S)).isEqualTo(3 * MS);
        assertThat(h.count(62 * S)).isEqualTo(1);
    }
}
