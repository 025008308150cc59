package dev.vitals.kubesim.replay;

import java.util.Locale;
import java.util.Objects;

/**
 * How far one replay expectation is from going the other way: {@code have} against
 * {@code need} in the same unit, so that {@code have / need} is the margin. For something that
 * must happen ("the naive start-up outlasts its liveness budget") {@code have} is what drives it
 * and {@code need} what it must exceed; for something that must not happen ("the startup probe
 * never kills a booting JVM") {@code have} is the budget and {@code need} what it must cover.
 * A replay scenario is only judged when every margin is at least {@link #required()}; below
 * that the result would be luck, and the scenario is reported as skipped instead. Immutable.
 *
 * @param what the claim, in words, e.g. {@code startup budget vs boot}
 * @param have the quantity that gives the margin (seconds unless the text says otherwise), &gt; 0
 * @param need the quantity it must exceed, &gt; 0
 * @param required the least acceptable {@code have / need}, ≥ 1 (2 for every replay margin but
 *        the boot allowance, which is itself a 2× allowance over the calibrated boot)
 * @param measured true when {@code need} was measured in the run itself, false when it was
 *        predicted from the calibrated boot time and the scenario's numbers
 */
record Margin(String what, double have, double need, double required, boolean measured) {
    /** The factor every replay expectation must have on its side. */
    public static final double TWICE = 2.0;

    /**
     * Validates the components.
     *
     * @param what the claim, in words, e.g. {@code startup budget vs boot}
     * @param have the quantity that gives the margin (seconds unless the text says otherwise), &gt; 0
     * @param need the quantity it must exceed, &gt; 0
     * @param required the least acceptable {@code have / need}, ≥ 1 (2 for every replay margin but the boot
     *        allowance, which is itself a 2× allowance over the calibrated boot)
     * @param measured true when {@code need} was measured in the run itself, false when it was predicted from
     *        the
     *        calibrated boot time and the scenario's numbers
     * @throws IllegalArgumentException if a component is outside its documented range
     * @throws NullPointerException if a required component is null
     */
    public Margin {
        Objects.requireNonNull(what, "what");
        if (!(have > 0) || !(need > 0) || !(required >= 1)) {
            throw new IllegalArgumentException("margin '" + what + "': have and need must be > 0 and required >= 1, were "
                    + have + ", " + need + ", " + required);
        }
    }

    /** @return a predicted margin with the default requirement (2×) */
    static Margin predicted(String what, double have, double need) {
        return new Margin(what, have, need, TWICE, false);
    }

    /** @return {@code have / need} */
    public double ratio() {
        return have / need;
    }

    /** @return whether the ratio reaches {@link #required()} */
    public boolean holds() {
        return ratio() >= required - 1e-9;
    }

    /** @return e.g. {@code startup budget vs boot: 60.0 s vs 2.1 s = 28.6x (needs 2x)} */
    public String describe() {
        return String.format(Locale.ROOT, "%s: %s vs %s = %.1fx (needs %.0fx%s)", what, fmt(have), fmt(need), ratio(), required,
                measured ? ", measured" : "");
    }

    private static String fmt(double v) {
        return v >= 10 || v == Math.rint(v) ? String.format(Locale.ROOT, "%.0fs", v) : String.format(Locale.ROOT, "%.1fs", v);
    }
}
