package dev.vitals.testing;

import java.util.ArrayDeque;

/**
 * The waiting timers of a {@link ManualScheduler}, taken out in (due, sequence) order: the
 * sequence is the order of {@link #add}, so timers due at the same nanosecond come out first in,
 * first out. A calendar queue: {@link #BUCKETS} buckets of 2<sup>{@link #SHIFT}</sup> ns (about
 * 2.1 ms) cover the next 17 s; the timers of the bucket being run sit in a small heap (the near
 * heap), those of later buckets in the wheel (one unordered list per bucket, a bit per non-empty
 * bucket), those beyond it in a second heap (the far heap) until the wheel reaches them. Each
 * timer thus costs a list insert and a sift through the near heap (a few dozen timers) instead of
 * a sift through all of them: kubesim's fleet model keeps tens of thousands (issue 37). Timers
 * with no delay skip all of that: they are due when added, so in order of adding they are also in
 * (due, sequence) order, and {@link #poll} merges them with the rest. Not thread-safe: its
 * scheduler holds its lock around every call.
 */
final class TimerQueue {
    /** A bucket spans 2^SHIFT ns. */
    static final int SHIFT = 21;
    /** Buckets on the wheel (a power of two): with {@link #SHIFT}, 17.2 s. */
    static final int BUCKETS = 8192;
    private static final int MASK = BUCKETS - 1;

    /** A waiting timer: its keys, and where in the queue it is. */
    abstract static class Timer {
        static final int OUT = 0; // ran, cancelled or never added
        static final int NEAR = 1;
        static final int WHEEL = 2;
        static final int FAR = 3;
        static final int NOW = 4;
        static final int CANCELLED = 5; // on the wheel or in the no-delay queue, dropped when reached
        long due; // ns, monotonic
        long seq;
        int where = OUT;
        int index = -1; // its place in the near or far heap
        Timer next; // the next timer in its wheel bucket
    }

    private final TimerHeap near = new TimerHeap(); // the timers of buckets up to 'current'
    private final TimerHeap far = new TimerHeap(); // of buckets from current + BUCKETS on
    private final Timer[] wheel = new Timer[BUCKETS]; // bucket b at b & MASK, for current < b < current + BUCKETS
    private final long[] occupied = new long[BUCKETS / 64]; // a bit per wheel slot whose list is not empty
    private int onWheel; // timers in the wheel's lists, cancelled ones included
    private int liveOnWheel;
    private long current; // the bucket whose timers are in the near heap (with every earlier one's)
    private final ArrayDeque<Timer> now = new ArrayDeque<>();
    private int liveNow;
    private long sequence;

    /** @return the timers waiting (not cancelled) */
    int size() {
        return near.size() + far.size() + liveOnWheel + liveNow;
    }

    /**
     * @param t a timer not in the queue
     * @param due when it is due, ns
     * @param noDelay whether it is due now (then {@code due} must be the clock's time and not before
     *     any earlier no-delay timer's)
     */
    void add(Timer t, long due, boolean noDelay) {
        t.due = due;
        t.seq = sequence++;
        if (noDelay) {
            t.where = Timer.NOW;
            now.addLast(t);
            liveNow++;
        } else {
            place(t);
        }
    }

    /** Takes {@code t} out; nothing when it is not waiting. */
    void remove(Timer t) {
        switch (t.where) {
            case Timer.NEAR -> near.removeAt(t.index);
            case Timer.FAR -> far.removeAt(t.index);
            case Timer.WHEEL -> liveOnWheel--;
            case Timer.NOW -> liveNow--;
            default -> {
                return;
            }
        }
        t.where = t.where == Timer.WHEEL || t.where == Timer.NOW ? Timer.CANCELLED : Timer.OUT;
    }

    /** @return the first waiting timer, taken out, when it is due at or before {@code target}; else null */
    Timer poll(long target) {
        while (!now.isEmpty() && now.peekFirst().where == Timer.CANCELLED) {
            now.pollFirst().where = Timer.OUT;
        }
        Timer first = now.peekFirst();
        refill(first == null ? target : Math.min(target, first.due));
        if (near.size() > 0 && (first == null || near.firstDue() < first.due
                || (near.firstDue() == first.due && near.firstSeq() < first.seq))) {
            if (near.firstDue() > target) {
                return null;
            }
            Timer t = near.poll();
            t.where = Timer.OUT;
            return t;
        }
        if (first != null && first.due <= target) {
            now.pollFirst();
            liveNow--;
            first.where = Timer.OUT;
            return first;
        }
        return null;
    }

    private void place(Timer t) {
        long b = t.due >> SHIFT;
        if (b <= current) {
            t.where = Timer.NEAR;
            near.add(t);
        } else if (b < current + BUCKETS) {
            int slot = (int) (b & MASK);
            t.where = Timer.WHEEL;
            t.next = wheel[slot];
            wheel[slot] = t;
            occupied[slot >>> 6] |= 1L << slot;
            onWheel++;
            liveOnWheel++;
        } else {
            t.where = Timer.FAR;
            far.add(t);
        }
    }

    /**
     * While the near heap is empty, moves the next bucket with timers into it, if that bucket
     * starts at or before {@code limit} (no later timer can come before one due by then).
     */
    private void refill(long limit) {
        while (near.size() == 0 && onWheel + far.size() > 0) {
            long next = onWheel > 0 ? nextOccupied() : far.firstDue() >> SHIFT;
            if (next << SHIFT > limit) {
                return;
            }
            current = next;
            while (far.size() > 0 && far.firstDue() >> SHIFT < current + BUCKETS) {
                place(far.poll());
            }
            drain((int) (current & MASK));
        }
    }

    /** The wheel's timers at {@code slot} (the current bucket's) go to the near heap; cancelled ones are dropped. */
    private void drain(int slot) {
        Timer t = wheel[slot];
        wheel[slot] = null;
        occupied[slot >>> 6] &= ~(1L << slot);
        while (t != null) {
            Timer next = t.next;
            t.next = null;
            onWheel--;
            if (t.where == Timer.WHEEL) {
                liveOnWheel--;
                t.where = Timer.NEAR;
                near.add(t);
            } else {
                t.where = Timer.OUT;
            }
            t = next;
        }
    }

    /** @return the first bucket after {@code current} with timers on the wheel (there is one) */
    private long nextOccupied() {
        int start = (int) ((current + 1) & MASK);
        int word = start >>> 6;
        long bits = occupied[word] & (-1L << start);
        while (bits == 0) {
            word = (word + 1) % occupied.length;
            bits = occupied[word];
        }
        int slot = word << 6 | Long.numberOfTrailingZeros(bits);
        return current + 1 + ((slot - start) & MASK);
    }
}
