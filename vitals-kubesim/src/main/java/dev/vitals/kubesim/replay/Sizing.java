package dev.vitals.kubesim.replay;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * The measured quantity every replay scenario is sized from: how long the demo takes to boot
 * on this machine, now (spawn of the JVM to the first 200 of its startup endpoint: naive
 * {@code /healthz} on the application port, Vitals {@code /startupz} on the probe port). Delays,
 * startup budgets and run lengths are derived from {@link #bootSeconds()}, so a slow machine gets
 * longer budgets instead of a failure by luck, and a fast one a long enough start-up delay
 * instead of a pass by luck. Immutable.
 */
public final class Sizing {
    /** Longest run a scenario may be given; a machine that needs more skips it with the reason. */
    public static final Duration MAX_RUN = Duration.ofSeconds(150);

    private final List<Double> samples;
    private final String source;

    private Sizing(List<Double> samples, String source) {
        if (samples.isEmpty()) {
            throw new IllegalArgumentException("sizing needs at least one boot time");
        }
        for (double s : samples) {
            if (!(s > 0) || s > 3600) {
                throw new IllegalArgumentException("boot time must be > 0 and at most 3600 s, was " + s);
            }
        }
        this.samples = List.copyOf(samples);
        this.source = Objects.requireNonNull(source, "source");
    }

    /**
     * @param bootSeconds boot times measured on this machine, seconds, each in (0, 3600]
     * @return sizing from those measurements
     * @throws IllegalArgumentException when empty or out of range
     */
    public static Sizing measured(List<Double> bootSeconds) {
        return new Sizing(bootSeconds, "measured");
    }

    /**
     * @param bootSeconds a boot time given by the user ({@code --boot-seconds}), in (0, 3600]
     * @return sizing that trusts it
     * @throws IllegalArgumentException when out of range
     */
    public static Sizing given(double bootSeconds) {
        return new Sizing(List.of(bootSeconds), "given");
    }

    /** @return the boot time the scenarios are sized for: the slowest sample, seconds */
    public double bootSeconds() {
        return Collections.max(samples);
    }

    /** @return every sample, seconds, in measurement order */
    public List<Double> samples() {
        return samples;
    }

    /**
     * @return how long after spawn a run allows for the first Ready before its actions: three
     *         times the slowest boot seen, at least 6 s (a run's boot may be half as slow again as
     *         the slowest calibration boot, when the machine's load rises between the two, and
     *         still leave its scenario the whole span). Actions are timed from the first Ready,
     *         so a run is its allowance plus its scenario's span.
     */
    public double readyAllowanceSeconds() {
        return Math.max(6, 3 * bootSeconds());
    }

    /**
     * @return the failureThreshold of the generous startup probe (period 1 s) that both wirings
     *         get where start-up is not the subject: four times the slowest boot, at least 30
     */
    public int bootStartupThreshold() {
        return (int) Math.max(30, Math.ceil(4 * bootSeconds()));
    }

    /** @return e.g. {@code boot 1.8 s (measured: 1.6, 1.8, 1.5, 1.7 s)} */
    public String describe() {
        List<String> s = new ArrayList<>();
        for (double d : samples) {
            s.add(String.format(Locale.ROOT, "%.1f", d));
        }
        return String.format(Locale.ROOT, "boot %.1f s (%s: %s s); Ready allowance %.0f s; startup budget for boot %d s",
                bootSeconds(), source, String.join(", ", s), readyAllowanceSeconds(), bootStartupThreshold());
    }
}
