package dev.vitals.kubesim.fleet;

import java.util.ArrayList;
import java.util.List;

/**
 * A ring of lists indexed by step number: what falls due at a later step of the model engine
 * (timeouts, deferred sends). Holds {@code size} steps ahead; not thread-safe.
 */
final class StepWheel<T> {
    private final ArrayList<T>[] slots;
    private ArrayList<T> spare = new ArrayList<>();

    @SuppressWarnings("unchecked")
    StepWheel(long size) {
        slots = new ArrayList[(int) Math.min(Integer.MAX_VALUE - 8, size)];
    }

    /** @return the steps the ring holds */
    int size() {
        return slots.length;
    }

    void add(long step, T item) {
        int i = (int) (step % slots.length);
        if (slots[i] == null) {
            slots[i] = new ArrayList<>();
        }
        slots[i].add(item);
    }

    /** @return the items due at {@code step}, or null (the list is reused: read it before the next add to that slot) */
    List<T> take(long step) {
        int i = (int) (step % slots.length);
        ArrayList<T> l = slots[i];
        if (l == null || l.isEmpty()) {
            return null;
        }
        ArrayList<T> copy = spare;
        spare = l;
        slots[i] = copy;
        copy.clear();
        return l;
    }
}
