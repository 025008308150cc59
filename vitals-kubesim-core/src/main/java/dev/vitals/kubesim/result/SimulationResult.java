package dev.vitals.kubesim.result;

import dev.vitals.kubesim.model.ProbeResult;
import dev.vitals.kubesim.model.ProbeType;
import dev.vitals.kubesim.model.SimEvent;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What a simulation produced: every event, restarts, Ready intervals, probe statistics and
 * the expectation checks. Immutable; thread-safe.
 */
public final class SimulationResult {
    private final List<SimEvent> events;
    private final double durationSeconds;
    private final int restarts;
    private final List<double[]> readyIntervals;
    private final Map<ProbeType, ProbeStats> stats;
    private final ProbeStats all;
    private final List<Expectation.Check> checks;
    private final String target;
    private final java.util.Optional<dev.vitals.kubesim.runtime.ResourceLimits.Report> limits;

    /**
     * The result of one run, as {@link dev.vitals.kubesim.Simulation} builds it: the expectations are
     * checked here, once.
     *
     * @param events          the run's events in time order (copied)
     * @param duration        how long the run lasted, in simulated time
     * @param restarts        container restarts during the run
     * @param expectations    the scenario's {@code expect} lines, checked against this result
     * @param target          what ran (the command or the scripted target's name)
     * @param limits          the resource limits' report when limits were applied
     */
    public SimulationResult(List<SimEvent> events, Duration duration, int restarts, List<Expectation> expectations,
            String target, java.util.Optional<dev.vitals.kubesim.runtime.ResourceLimits.Report> limits) {
        this.limits = limits;
        this.events = List.copyOf(events);
        this.durationSeconds = Interval.toSeconds(duration);
        this.restarts = restarts;
        this.target = target;
        this.readyIntervals = computeReady(this.events, durationSeconds);
        this.stats = new EnumMap<>(ProbeType.class);
        for (ProbeType t : ProbeType.values()) {
            stats.put(t, ProbeStats.of(this.events, t));
        }
        this.all = ProbeStats.of(this.events, null);
        List<Expectation.Check> c = new ArrayList<>();
        for (Expectation e : expectations) {
            c.add(e.check(this));
        }
        this.checks = List.copyOf(c);
    }

    private static List<double[]> computeReady(List<SimEvent> events, double end) {
        List<double[]> out = new ArrayList<>();
        double since = -1;
        for (SimEvent e : events) {
            if (e.type() == SimEvent.Type.READY && since < 0) {
                since = Interval.toSeconds(e.at());
            } else if (e.type() == SimEvent.Type.NOT_READY && since >= 0) {
                out.add(new double[] {since, Interval.toSeconds(e.at())});
                since = -1;
            }
        }
        if (since >= 0) {
            out.add(new double[] {since, Math.max(since, end)});
        }
        return out;
    }

    /**
     * @return the container's resources, whether the run applied them, and each instance's CPU,
     *         throttling and memory use; empty when the run had no resources
     */
    public java.util.Optional<dev.vitals.kubesim.runtime.ResourceLimits.Report> limits() {
        return limits;
    }

    /** @return every event in time order */
    public List<SimEvent> events() {
        return events;
    }

    /** @return the simulated time span in seconds (for the expectations' arithmetic) */
    double durationSeconds() {
        return durationSeconds;
    }

    /** @return the container's restartCount at the end (R45) */
    public int restarts() {
        return restarts;
    }

    /** @return the number of liveness/startup kills (a pod deletion's stop is not one) */
    public int kills() {
        return killTimes().size();
    }

    /** @return the times (seconds) of each liveness/startup kill */
    private List<Double> killTimes() {
        List<Double> out = new ArrayList<>();
        for (SimEvent e : events) {
            if (e.type() == SimEvent.Type.KILL && e.probe().isPresent()) { // a deletion's stop has no probe
                out.add(Interval.toSeconds(e.at()));
            }
        }
        return out;
    }

    /** @return the simulated time span */
    public Duration duration() {
        return Interval.seconds(durationSeconds);
    }

    /** @return when each liveness or startup kill happened, from the start */
    public List<Duration> killsAt() {
        return killTimes().stream().map(Interval::seconds).toList();
    }

    /** @return the spans with the Ready condition true, in time order */
    public List<Interval> readyPeriods() {
        return readyIntervals.stream().map(i -> Interval.ofSeconds(i[0], i[1])).toList();
    }

    /** @return how long the Ready condition was false within the simulated time span */
    public Duration notReady() {
        return Interval.seconds(notReadySeconds());
    }

    /**
     * @param span a span of simulated time
     * @return how long the Ready condition was true within it
     */
    public Duration readyWithin(Interval span) {
        return Interval.seconds(readySecondsBetween(Interval.toSeconds(span.from()), Interval.toSeconds(span.to())));
    }

    /**
     * @param t a time since the start
     * @return whether the Ready condition was true then
     */
    public boolean readyAt(Duration t) {
        return readyAt(Interval.toSeconds(t));
    }

    /** @return a description of the target (command), for reports */
    public String target() {
        return target;
    }

    /** @return seconds in {@code [0, duration]} with the Ready condition false */
    double notReadySeconds() {
        return durationSeconds - readySecondsBetween(0, durationSeconds);
    }

    /**
     * Ready time within a span of the run.
     *
     * @param from seconds from the run's start
     * @param to seconds from the run's start, ≥ {@code from}
     * @return seconds with Ready true within {@code [from, to]}
     */
    double readySecondsBetween(double from, double to) {
        double sum = 0;
        for (double[] i : readyIntervals) {
            sum += Math.max(0, Math.min(to, i[1]) - Math.max(from, i[0]));
        }
        return sum;
    }

    /**
     * The Ready condition at one moment.
     *
     * @param t seconds from the run's start
     * @return whether the Ready condition was true at second {@code t}
     */
    boolean readyAt(double t) {
        for (double[] i : readyIntervals) {
            if (t >= i[0] && t < i[1]) {
                return true;
            }
        }
        return false;
    }

    /**
     * The Ready spells for a one-line report, e.g. {@code " (ready: 3s..12.5s, 20s..40s)"} or {@code "
     * (ready: never)"}.
     *
     * @return the spells, with a leading space
     */
    public String readyIntervalsText() {
        StringBuilder sb = new StringBuilder(" (ready: ");
        if (readyIntervals.isEmpty()) {
            sb.append("never");
        }
        for (int k = 0; k < readyIntervals.size(); k++) {
            double[] i = readyIntervals.get(k);
            sb.append(k == 0 ? "" : ", ").append(Expectation.fmt(round(i[0]))).append("s..")
                    .append(Expectation.fmt(round(i[1]))).append("s");
        }
        return sb.append(")").toString();
    }

    private static double round(double v) {
        return Math.round(v * 100) / 100.0;
    }

    /**
     * One probe type's statistics.
     *
     * @param t startup, liveness or readiness
     * @return statistics of one probe type (zero counts when it has no probe)
     */
    public ProbeStats stats(ProbeType t) {
        return stats.get(t);
    }

    /** @return statistics over every probe */
    public ProbeStats allStats() {
        return all;
    }

    /** @return each expectation's outcome */
    public List<Expectation.Check> checks() {
        return checks;
    }

    /** @return true when every expectation holds (or there are none) */
    public boolean passed() {
        return checks.stream().allMatch(Expectation.Check::passed);
    }

    /**
     * Counts and latency percentiles of the probe evaluations of one type.
     *
     * @param count evaluations completed
     * @param successes counted successes (warnings included)
     * @param warnings 3xx warnings
     * @param failures counted failures
     * @param errors errored (discarded) evaluations
     * @param p50Ms median latency in ms
     * @param p99Ms 99th percentile latency in ms (nearest rank)
     * @param maxMs maximum latency in ms
     */
    public record ProbeStats(int count, int successes, int warnings, int failures, int errors, double p50Ms,
            double p99Ms, double maxMs) {

        static ProbeStats of(List<SimEvent> events, ProbeType type) {
            List<Double> lat = new ArrayList<>();
            int s = 0;
            int w = 0;
            int f = 0;
            int err = 0;
            for (SimEvent e : events) {
                if (e.type() != SimEvent.Type.PROBE || (type != null && e.probe().orElse(null) != type)) {
                    continue;
                }
                ProbeResult r = e.result().orElseThrow();
                if (r == ProbeResult.ERROR) {
                    err++;
                } else if (r.counted() == ProbeResult.SUCCESS) {
                    s++;
                    if (r == ProbeResult.WARNING) {
                        w++;
                    }
                } else {
                    f++;
                }
                lat.add(e.latency().map(d -> d.toNanos() / 1e6).orElse(0.0));
            }
            double[] a = lat.stream().mapToDouble(Double::doubleValue).toArray();
            Arrays.sort(a);
            return new ProbeStats(a.length, s, w, f, err, pct(a, 50), pct(a, 99), a.length == 0 ? 0 : a[a.length - 1]);
        }

        private static double pct(double[] sorted, int p) {
            if (sorted.length == 0) {
                return 0;
            }
            int rank = (int) Math.ceil(p / 100.0 * sorted.length);
            return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "%d probes (%d ok, %d failed, %d errors), p50 %.1f ms, p99 %.1f ms",
                    count, successes, failures, errors, p50Ms, p99Ms);
        }
    }
}
