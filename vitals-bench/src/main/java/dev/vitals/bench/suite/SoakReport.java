package dev.vitals.bench.suite;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The soak's verdicts and its table, from what {@link SoakRun} measured: a pure function of the
 * probes and samples, so every rule is unit-tested with made-up figures. Immutable values;
 * thread-safe.
 *
 * <p>The rules (docs/benchmarks.md, section "Soak and flood"):
 * <ul>
 *   <li>a <b>probe path</b> passes when, from the demo's ready line (or after {@code --probe-warm-up},
 *       0 by default), no probe failed (an answer other than
 *       200–399 or {@code SERVING}, or none) and the worst answer came within its budget plus the
 *       margin;</li>
 *   <li><b>threads and descriptors</b> are flat when the last quiet sample (taken before a
 *       cycle's flood, after the previous cycle's traffic ended) is at most the first quiet sample
 *       after the warm-up plus an allowance: {@value #THREADS_ALLOWANCE} threads,
 *       {@value #FDS_ALLOWANCE} descriptors;</li>
 *   <li><b>RSS</b> is flat when the last quiet sample is at most the middle one plus
 *       {@value #RSS_ALLOWANCE_PERCENT} % or {@value #RSS_ALLOWANCE_MIB} MiB, whichever is larger:
 *       the heap is pre-touched ({@code -Xms} = {@code -Xmx}, {@code -XX:+AlwaysPreTouch}), but
 *       non-heap memory (JIT-compiled code, metaspace, malloc arenas) grows toward a plateau for a
 *       minute or two, so a leak shows as growth over the second half;</li>
 *   <li>the <b>log</b> is flat when it grew between those two samples by at most
 *       {@value #LOG_ALLOWANCE_BYTES} bytes plus {@value #LOG_BYTES_PER_MINUTE} bytes a minute.</li>
 * </ul>
 */
final class SoakReport {
    /** Check threads start on demand and end after 30 s idle, listener threads likewise (≤ 2): a few may come and go. */
    static final int THREADS_ALLOWANCE = 8;
    /** In-flight application requests and reconnecting slow clients at the sampling moment vary by a few. */
    static final int FDS_ALLOWANCE = 32;
    static final int RSS_ALLOWANCE_PERCENT = 10;
    static final int RSS_ALLOWANCE_MIB = 32;
    /** A rate-limited summary line a minute per source passes; one line (or stack trace) per hostile connection does not. */
    static final long LOG_ALLOWANCE_BYTES = 8 * 1024;
    static final long LOG_BYTES_PER_MINUTE = 4 * 1024;

    private SoakReport() {
    }

    /**
     * One probe.
     *
     * @param atSeconds when it started, seconds since the demo was ready
     * @param latencyMs from before connect to the end of the answer (or the failure)
     * @param ok        200–399 or {@code SERVING}
     * @param outcome   the status ({@code 200}, {@code 503}, {@code NOT_SERVING}) or what went wrong ({@code timeout}, ...)
     */
    record Probe(double atSeconds, double latencyMs, boolean ok, String outcome) {
    }

    /**
     * One sample of the demo's process.
     *
     * @param atSeconds seconds since the demo was ready
     * @param quiet     taken at a cycle's start, before its flood, after the previous cycle's bursts ended
     */
    record Sample(double atSeconds, int threads, int fds, long rssKiB, long logBytes, boolean quiet) {
    }

    /** A probe path's figures, over the probes judged (those after the probe warm-up, by default all). */
    record PathSummary(String path, int count, double p50Ms, double p99Ms, double worstMs, int failed, int late,
            double budgetMs, double limitMs, int warmUpCount, double warmUpWorstMs, List<String> problems) {
        /** At most this many problems (failed or late probes) are kept, the first ones. */
        static final int PROBLEMS_KEPT = 20;

        PathSummary {
            problems = List.copyOf(problems);
        }

        boolean pass() {
            return count > 0 && failed == 0 && worstMs <= limitMs;
        }

        String firstProblem() {
            return problems.isEmpty() ? "" : problems.get(0);
        }
    }

    /**
     * A resource's figures and its flat verdict.
     *
     * @param first the quiet sample compared with the last: the first after the warm-up (RSS: the middle one)
     */
    record ResourceSummary(String name, String unit, long atReady, long first, long last, long max, long allowance,
            String rule) {
        boolean pass() {
            return last <= first + allowance;
        }
    }

    /**
     * @param path      the path's name, such as {@code http /livez}
     * @param budgetMs  the server's answer budget for this path
     * @param marginMs  the margin allowed above the budget
     * @param probes    every probe of the path, in any order
     * @param warmUpSeconds probes that started earlier are reported apart and do not count for the verdict
     *     ({@code --probe-warm-up}; 0 by default: all count)
     */
    static PathSummary path(String path, double budgetMs, double marginMs, List<Probe> probes, double warmUpSeconds) {
        List<Probe> counted = new ArrayList<>();
        int warmUp = 0;
        double warmUpWorst = 0;
        for (Probe p : probes) {
            if (p.atSeconds() < warmUpSeconds) {
                warmUp++;
                warmUpWorst = Math.max(warmUpWorst, p.latencyMs());
            } else {
                counted.add(p);
            }
        }
        double limit = budgetMs + marginMs;
        if (counted.isEmpty()) {
            return new PathSummary(path, 0, 0, 0, 0, 0, 0, budgetMs, limit, warmUp, warmUpWorst, List.of("no probe after the warm-up"));
        }
        double[] ms = counted.stream().mapToDouble(Probe::latencyMs).toArray();
        int failed = 0;
        int late = 0;
        List<String> problems = new ArrayList<>();
        for (Probe p : counted) {
            boolean isLate = p.latencyMs() > limit;
            if (!p.ok()) {
                failed++;
            }
            if (isLate) {
                late++;
            }
            if ((!p.ok() || isLate) && problems.size() < PathSummary.PROBLEMS_KEPT) {
                problems.add(String.format(Locale.ROOT, "at %.1f s: %s in %.0f ms", p.atSeconds(), p.outcome(), p.latencyMs()));
            }
        }
        return new PathSummary(path, counted.size(), Stats.percentile(ms, 50), Stats.percentile(ms, 99), Stats.max(ms),
                failed, late, budgetMs, limit, warmUp, warmUpWorst, problems);
    }

    /**
     * @param samples every sample, in time order, the first taken when the demo was ready; the
     *     quiet ones after the warm-up only are compared (the log's allowance grows with the minutes
     *     between the first and the last)
     * @throws IllegalArgumentException when there are fewer than two quiet samples (the run was
     *     too short to compare)
     */
    static List<ResourceSummary> resources(List<Sample> samples) {
        List<Sample> quiet = samples.stream().filter(Sample::quiet).toList();
        if (quiet.size() < 2 || samples.isEmpty()) {
            throw new IllegalArgumentException("need at least two quiet samples, had " + quiet.size());
        }
        Sample atReady = samples.get(0);
        Sample first = quiet.get(0);
        Sample last = quiet.get(quiet.size() - 1);
        Sample middle = quiet.get((quiet.size() - 1) / 2);
        double minutes = (last.atSeconds() - first.atSeconds()) / 60;
        long rssAllowance = Math.max(middle.rssKiB() * RSS_ALLOWANCE_PERCENT / 100, RSS_ALLOWANCE_MIB * 1024L);
        long logAllowance = LOG_ALLOWANCE_BYTES + Math.round(LOG_BYTES_PER_MINUTE * minutes);
        List<ResourceSummary> out = new ArrayList<>();
        out.add(new ResourceSummary("threads", "", atReady.threads(), first.threads(), last.threads(),
                samples.stream().mapToLong(Sample::threads).max().orElse(0), THREADS_ALLOWANCE, "last <= first + " + THREADS_ALLOWANCE));
        out.add(new ResourceSummary("descriptors", "", atReady.fds(), first.fds(), last.fds(),
                samples.stream().mapToLong(Sample::fds).max().orElse(0), FDS_ALLOWANCE, "last <= first + " + FDS_ALLOWANCE));
        out.add(new ResourceSummary("rss", "KiB", atReady.rssKiB(), middle.rssKiB(), last.rssKiB(),
                samples.stream().mapToLong(Sample::rssKiB).max().orElse(0), rssAllowance,
                "last <= middle + max(" + RSS_ALLOWANCE_PERCENT + " %, " + RSS_ALLOWANCE_MIB + " MiB)"));
        out.add(new ResourceSummary("log", "bytes", atReady.logBytes(), first.logBytes(), last.logBytes(),
                samples.stream().mapToLong(Sample::logBytes).max().orElse(0), logAllowance,
                "last <= first + " + LOG_ALLOWANCE_BYTES / 1024 + " KiB + " + LOG_BYTES_PER_MINUTE / 1024 + " KiB/min"));
        return out;
    }

    /** @return the table a person reads: the paths, then the resources, then one verdict line */
    static String text(List<PathSummary> paths, List<ResourceSummary> resources, double marginMs, double probeWarmUpSeconds) {
        StringBuilder b = new StringBuilder();
        boolean apart = probeWarmUpSeconds > 0;
        b.append(String.format(Locale.ROOT, "%-22s %6s %8s %8s %9s %6s %5s %7s %7s " + (apart ? "%13s  " : "%s") + "%s%n",
                "path", "count", "p50 ms", "p99 ms", "worst ms", "failed", "late", "budget", "limit", apart ? "warm-up worst" : "", "verdict"));
        for (PathSummary p : paths) {
            b.append(String.format(Locale.ROOT, "%-22s %6d %8.1f %8.1f %9.1f %6d %5d %7.0f %7.0f " + (apart ? "%13.1f  " : "%s") + "%s%n",
                    p.path(), p.count(), p.p50Ms(), p.p99Ms(), p.worstMs(), p.failed(), p.late(), p.budgetMs(), p.limitMs(),
                    apart ? p.warmUpWorstMs() : "", p.pass() ? "pass" : "FAIL " + p.firstProblem()));
        }
        b.append(String.format(Locale.ROOT, "(limit = budget + margin %.0f ms; late = answers past the limit; %s)%n%n", marginMs, apart
                ? String.format(Locale.ROOT, "probes in the first %.0f s (--probe-warm-up) reported apart, not judged", probeWarmUpSeconds)
                : "every probe from the demo's ready line judged: only the JVM's start-up before it is outside, when the demo is not"
                        + " ready and a kubelet's startupProbe, not these budgets, applies"));
        b.append(String.format(Locale.ROOT, "%-12s %10s %10s %10s %10s  %-40s %s%n", "resource", "at ready", "first/mid", "last", "max", "rule (quiet samples compared)", "verdict"));
        for (ResourceSummary r : resources) {
            b.append(String.format(Locale.ROOT, "%-12s %10s %10s %10s %10s  %-40s %s%n", r.name() + (r.unit().isEmpty() ? "" : " " + r.unit()),
                    r.atReady(), r.first(), r.last(), r.max(), r.rule(), r.pass() ? "flat" : "GROWING (+" + (r.last() - r.first()) + ")"));
        }
        long failedPaths = paths.stream().filter(p -> !p.pass()).count();
        long failedResources = resources.stream().filter(r -> !r.pass()).count();
        b.append(String.format(Locale.ROOT, "%nsoak: %s (%d of %d paths within budget + margin, %d of %d resources flat)%n",
                pass(paths, resources) ? "PASS" : "FAIL", paths.size() - failedPaths, paths.size(),
                resources.size() - failedResources, resources.size()));
        return b.toString();
    }

    static boolean pass(List<PathSummary> paths, List<ResourceSummary> resources) {
        return paths.stream().allMatch(PathSummary::pass) && resources.stream().allMatch(ResourceSummary::pass);
    }

    /** @return the JSON document's content: {@code meta}, then {@code paths}, {@code resources}, {@code samples}, {@code pass} */
    static Map<String, Object> json(Map<String, Object> meta, List<PathSummary> paths, List<ResourceSummary> resources,
            List<Sample> samples) {
        Map<String, Object> doc = new LinkedHashMap<>(meta);
        List<Map<String, Object>> ps = new ArrayList<>();
        for (PathSummary p : paths) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("path", p.path());
            m.put("count", p.count());
            m.put("p50Ms", round(p.p50Ms()));
            m.put("p99Ms", round(p.p99Ms()));
            m.put("worstMs", round(p.worstMs()));
            m.put("failed", p.failed());
            m.put("late", p.late());
            m.put("budgetMs", p.budgetMs());
            m.put("limitMs", p.limitMs());
            m.put("warmUpCount", p.warmUpCount());
            m.put("warmUpWorstMs", round(p.warmUpWorstMs()));
            m.put("problems", p.problems());
            m.put("pass", p.pass());
            ps.add(m);
        }
        List<Map<String, Object>> rs = new ArrayList<>();
        for (ResourceSummary r : resources) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", r.name());
            m.put("unit", r.unit());
            m.put("atReady", r.atReady());
            m.put("first", r.first());
            m.put("last", r.last());
            m.put("max", r.max());
            m.put("allowance", r.allowance());
            m.put("rule", r.rule());
            m.put("flat", r.pass());
            rs.add(m);
        }
        doc.put("paths", ps);
        doc.put("resources", rs);
        doc.put("samples", samples);
        doc.put("pass", pass(paths, resources));
        return doc;
    }

    private static double round(double ms) {
        return Math.round(ms * 10) / 10.0;
    }
}
