package dev.vitals.testing;

import java.util.Arrays;

/**
 * A 4-ary min-heap of {@link TimerQueue.Timer}s ordered by (due, sequence), the two keys of entry
 * {@code i} at {@code keys[2i]} and {@code keys[2i + 1]}: a node's four children share one cache line,
 * and sifting compares longs without loading the timers. Each timer's {@code index} is its place here.
 * Not thread-safe (its {@link TimerQueue} is used under {@link ManualScheduler}'s lock).
 */
final class TimerHeap {
    private long[] keys = new long[32];
    private TimerQueue.Timer[] timers = new TimerQueue.Timer[16];
    private int size;

    int size() {
        return size;
    }

    /** @return the first timer's due time, ns; only when not empty */
    long firstDue() {
        return keys[0];
    }

    /** @return the first timer's sequence number; only when not empty */
    long firstSeq() {
        return keys[1];
    }

    void add(TimerQueue.Timer t) {
        if (size == timers.length) {
            keys = Arrays.copyOf(keys, 4 * size);
            timers = Arrays.copyOf(timers, 2 * size);
        }
        siftUp(size++, t.due, t.seq, t);
    }

    /** @return the first timer, taken out; only when not empty */
    TimerQueue.Timer poll() {
        TimerQueue.Timer t = timers[0];
        removeAt(0);
        return t;
    }

    /** Takes out the timer at {@code i} (its {@code index}). */
    void removeAt(int i) {
        timers[i].index = -1;
        int last = --size;
        TimerQueue.Timer t = timers[last];
        timers[last] = null;
        if (i != last) {
            long due = keys[2 * last];
            long seq = keys[2 * last + 1];
            siftDown(i, due, seq, t);
            if (timers[i] == t) {
                siftUp(i, due, seq, t);
            }
        }
    }

    private boolean before(int i, long due, long seq) {
        long d = keys[2 * i];
        return d < due || (d == due && keys[2 * i + 1] < seq);
    }

    private void siftUp(int i, long due, long seq, TimerQueue.Timer t) {
        while (i > 0) {
            int parent = (i - 1) >>> 2;
            if (before(parent, due, seq)) {
                break;
            }
            move(parent, i);
            i = parent;
        }
        put(i, due, seq, t);
    }

    private void siftDown(int i, long due, long seq, TimerQueue.Timer t) {
        while (true) {
            int first = 4 * i + 1;
            if (first >= size) {
                break;
            }
            int least = first;
            int end = Math.min(first + 4, size);
            for (int c = first + 1; c < end; c++) {
                if (before(c, keys[2 * least], keys[2 * least + 1])) {
                    least = c;
                }
            }
            if (!before(least, due, seq)) {
                break;
            }
            move(least, i);
            i = least;
        }
        put(i, due, seq, t);
    }

    private void move(int from, int to) {
        keys[2 * to] = keys[2 * from];
        keys[2 * to + 1] = keys[2 * from + 1];
        TimerQueue.Timer t = timers[from];
        timers[to] = t;
        t.index = to;
    }

    private void put(int i, long due, long seq, TimerQueue.Timer t) {
        keys[2 * i] = due;
        keys[2 * i + 1] = seq;
        timers[i] = t;
        t.index = i;
    }
}
