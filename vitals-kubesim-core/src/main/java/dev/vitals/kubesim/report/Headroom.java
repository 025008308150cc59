package dev.vitals.kubesim.report;

import dev.vitals.kubesim.model.PodSpec;
import dev.vitals.kubesim.model.ProbeResult;
import dev.vitals.kubesim.model.ProbeSpec;
import dev.vitals.kubesim.model.ProbeType;
import dev.vitals.kubesim.model.SimEvent;
import dev.vitals.kubesim.result.Expectation;
import dev.vitals.kubesim.result.SimulationResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * How far a run that passed was from failing: for each probe, latency (p50/p99/max) against
 * {@code timeoutSeconds}, and the longest run of consecutive counted failures against
 * {@code failureThreshold} (a new container instance starts a new run, as the kubelet resets
 * its worker's counters on restart, R28; readiness counts from its first success in an instance,
 * since it fails by design until the application is up). Warns when p99 passes half the timeout, or when a run
 * came within one failure of the threshold (a kill for liveness and startup, an unready spell
 * for readiness). A probe that never succeeded says so rather than showing a run of 0 (readiness
 * counts no run before its first success). Immutable.
 *
 * @param probes one line per probe that ran
 * @param notRun one line per configured probe that never ran in the run, saying why (its
 *        initialDelaySeconds, or the container never started)
 */
public record Headroom(List<Probe> probes, List<String> notRun, Optional<Boot> boot, List<String> warnings) {
    /** A memory peak above this share of the limit is a warning (issue 40): the next load may OOMKill it. */
    public static final double MEMORY_WARN_SHARE = 0.85;

    /**
     * Validates the components and copies the collections (unmodifiable).
     *
     * @param probes one line per probe that ran
     * @param notRun one line per configured probe that never ran in the run, saying why (its
     *        initialDelaySeconds, or
     *        the container never started)
     * @param boot the boot line (how long the container took to become Ready), when the run measured it
     * @param warnings the run's other thin margins (a memory peak near the limit, a boot the startup
     *        budget cut short), one line each
     * @throws NullPointerException if a required component is null
     */
    public Headroom {
        probes = List.copyOf(probes);
        notRun = List.copyOf(notRun);
        java.util.Objects.requireNonNull(boot, "boot");
        warnings = List.copyOf(warnings);
    }

    /**
     * A headroom without other warnings.
     *
     * @param probes one line per probe that ran
     * @param notRun one line per configured probe that never ran, saying why
     * @param boot the boot line, when the run measured it
     */
    public Headroom(List<Probe> probes, List<String> notRun, Optional<Boot> boot) {
        this(probes, notRun, boot, List.of());
    }

    /**
     * A headroom without a boot line.
     *
     * @param probes one line per probe that ran
     * @param notRun one line per configured probe that never ran, saying why
     */
    public Headroom(List<Probe> probes, List<String> notRun) {
        this(probes, notRun, Optional.empty());
    }

    /**
     * How long the first instance took to start against the budget the kubelet gives it: the
     * startup probe's {@code initialDelaySeconds + failureThreshold × periodSeconds} (else the
     * liveness probe's), the time before a probe kills a container that is still booting.
     *
     * @param seconds from the first start to "started" (startup success), else to the first Ready
     * @param budgetSeconds the budget
     * @param budgetProbe the probe that sets it
     * @param cpuLimit the CPU limit it booted under, e.g. {@code 500m}, when applied
     */
    public record Boot(double seconds, double budgetSeconds, ProbeType budgetProbe, Optional<String> cpuLimit) {
        /** @return budget ÷ boot */
        public double headroom() {
            return seconds <= 0 ? Double.POSITIVE_INFINITY : budgetSeconds / seconds;
        }

        /** @return e.g. {@code boot took 21.4 s under 500m; startup budget 30 s: 1.4× headroom} */
        public String text() {
            return String.format(Locale.ROOT, "boot took %.1f s%s; %s budget %s s: %.1f× headroom", seconds,
                    cpuLimit.map(c -> " under " + c).orElse(""), budgetProbe.label(),
                    dev.vitals.kubesim.result.Expectation.fmt(budgetSeconds), headroom());
        }
    }

    static Optional<Boot> boot(SimulationResult r, PodSpec pod) {
        Optional<ProbeSpec> budget = pod.startup().or(pod::liveness);
        if (budget.isEmpty()) {
            return Optional.empty();
        }
        ProbeSpec p = budget.get();
        double b = p.initialDelaySeconds() + (double) p.failureThreshold() * p.periodSeconds();
        double start = -1;
        for (SimEvent e : r.events()) {
            if (e.instance() != 1) {
                continue;
            }
            if (e.type() == SimEvent.Type.START && start < 0) {
                start = dev.vitals.kubesim.model.Durations.seconds(e.at());
            }
            boolean up = pod.startup().isPresent() ? e.type() == SimEvent.Type.STARTED && !e.detail().startsWith("container started (no")
                    : e.type() == SimEvent.Type.READY;
            if (start >= 0 && up) {
                Optional<String> cpu = r.limits().filter(l -> l.applied()).flatMap(l -> {
                    java.util.OptionalLong m = l.resources().cpuLimitMillis();
                    return m.isPresent() ? Optional.of(dev.vitals.kubesim.model.Resources.cpu(m.getAsLong())) : Optional.empty();
                });
                return Optional.of(new Boot(dev.vitals.kubesim.model.Durations.seconds(e.at()) - start, b, p.type(), cpu));
            }
        }
        return Optional.empty();
    }

    /**
     * One probe's headroom.
     *
     * @param type the probe
     * @param count evaluations
     * @param p50Ms median latency
     * @param p99Ms 99th percentile latency
     * @param maxMs slowest
     * @param timeoutSeconds the probe's timeout
     * @param successes evaluations counted as a success (a warning included)
     * @param failures evaluations counted as a failure
     * @param longestFailureRun most consecutive counted failures in one instance (readiness: from
     *        its first success in that instance)
     * @param failureThreshold the probe's threshold
     * @param warnings what is thin, empty when nothing is
     */
    public record Probe(ProbeType type, int count, double p50Ms, double p99Ms, double maxMs, int timeoutSeconds,
            int successes, int failures, int longestFailureRun, int failureThreshold, List<String> warnings) {
        /**
         * Copies the collections (unmodifiable).
         *
         * @param type the probe
         * @param count evaluations
         * @param p50Ms median latency
         * @param p99Ms 99th percentile latency
         * @param maxMs slowest
         * @param timeoutSeconds the probe's timeout
         * @param successes evaluations counted as a success (a warning included)
         * @param failures evaluations counted as a failure
         * @param longestFailureRun most consecutive counted failures in one instance (readiness: from its first
         *        success in that instance)
         * @param failureThreshold the probe's threshold
         * @param warnings what is thin, empty when nothing is
         */
        public Probe {
            warnings = List.copyOf(warnings);
        }

        /** @return true when no evaluation of this probe counted as a success */
        public boolean neverSucceeded() {
            return successes == 0;
        }

        /** @return what the run says about failures, e.g. "longest failure run 2 of failureThreshold 3" */
        String failureText() {
            String run = "longest failure run " + longestFailureRun + " of failureThreshold " + failureThreshold;
            if (!neverSucceeded()) {
                return run;
            }
            String never = "never succeeded (" + failures + " of " + count + " probes failed"
                    + (count - failures > 0 ? ", " + (count - failures) + " errors" : "") + ")";
            // readiness runs count from the first success, so a never-ready run has none to show
            return type == ProbeType.READINESS ? never : never + ", " + run;
        }
    }

    /**
     * @param r a run's result
     * @param pod the probes it ran
     * @return the headroom of each probe that ran at least once
     */
    public static Headroom of(SimulationResult r, PodSpec pod) {
        List<Probe> out = new ArrayList<>();
        List<String> notRun = new ArrayList<>();
        for (ProbeType t : ProbeType.values()) {
            Optional<ProbeSpec> spec = pod.probe(t);
            SimulationResult.ProbeStats st = r.stats(t);
            if (spec.isEmpty()) {
                continue;
            }
            if (st.count() == 0) {
                // an empty headroom block said nothing; say what is true
                int delay = spec.get().initialDelaySeconds();
                notRun.add(String.format(Locale.ROOT, "  %-10s no probe ran in the %s s run%s%n", t.label(),
                        dev.vitals.kubesim.result.Expectation.fmt(dev.vitals.kubesim.model.Durations.seconds(r.duration())),
                        delay >= dev.vitals.kubesim.model.Durations.seconds(r.duration()) ? " (initialDelaySeconds " + delay + ")" : ""));
                continue;
            }
            int longest = longestFailureRun(r, t);
            ProbeSpec p = spec.get();
            List<String> warn = new ArrayList<>();
            double timeoutMs = p.timeoutSeconds() * 1000.0;
            if (st.p99Ms() > timeoutMs / 2) {
                warn.add(String.format(Locale.ROOT, "p99 %.0f ms passes half of timeoutSeconds %d: one slow spell from"
                        + " timing out", st.p99Ms(), p.timeoutSeconds()));
            }
            if (p.failureThreshold() > 1 && longest == p.failureThreshold() - 1) {
                warn.add(longest + " failures in a row, one short of failureThreshold " + p.failureThreshold() + ": one more"
                        + (t == ProbeType.READINESS ? " and the pod leaves its Service" : " and the container is killed"));
            }
            out.add(new Probe(t, st.count(), st.p50Ms(), st.p99Ms(), st.maxMs(), p.timeoutSeconds(),
                    st.successes() + st.warnings(), st.failures(), longest, p.failureThreshold(), warn));
        }
        List<String> warnings = new ArrayList<>(memoryWarnings(r));
        Optional<Boot> boot = boot(r, pod);
        if (boot.isEmpty()) {
            cutShort(r, pod).ifPresent(warnings::add);
        }
        return new Headroom(out, notRun, boot, warnings);
    }

    /**
     * @return the most failures in a row of probe {@code t} within one container instance (errors
     *         not counted); readiness fails until the application is up, so its runs count from its
     *         first success per instance
     */
    private static int longestFailureRun(SimulationResult r, ProbeType t) {
        int run = 0;
        int longest = 0;
        int instance = -1;
        boolean counting = t != ProbeType.READINESS;
        for (SimEvent e : r.events()) {
            if (e.type() != SimEvent.Type.PROBE || e.probe().orElse(null) != t || e.result().isEmpty()
                    || e.result().get() == ProbeResult.ERROR) {
                continue;
            }
            if (e.instance() != instance) {
                instance = e.instance();
                run = 0;
                counting = t != ProbeType.READINESS;
            }
            boolean failed = e.result().get().counted() == ProbeResult.FAILURE;
            if (!failed) {
                counting = true;
            }
            if (!counting) {
                continue;
            }
            run = failed ? run + 1 : 0;
            longest = Math.max(longest, run);
        }
        return longest;
    }

    /** @return a line per instance whose memory peaked above {@link #MEMORY_WARN_SHARE} of its limit */
    static List<String> memoryWarnings(SimulationResult r) {
        List<String> out = new ArrayList<>();
        r.limits().filter(dev.vitals.kubesim.runtime.ResourceLimits.Report::applied).ifPresent(l -> {
            java.util.OptionalLong limit = l.resources().memoryLimitBytes();
            if (limit.isEmpty()) {
                return;
            }
            for (dev.vitals.kubesim.runtime.ResourceLimits.InstanceUsage u : l.instances()) {
                java.util.OptionalLong peak = u.usage().memoryPeakBytes();
                if (peak.isPresent() && !u.oomKilled() && peak.getAsLong() > MEMORY_WARN_SHARE * limit.getAsLong()) {
                    out.add(String.format(Locale.ROOT, "memory: instance #%d peaked at %.0f %% of its %s limit (%.1fMi; above"
                            + " %.0f %%): its first real load may be OOMKilled", u.instance(),
                            100.0 * peak.getAsLong() / limit.getAsLong(), dev.vitals.kubesim.model.Resources.memory(limit.getAsLong()),
                            peak.getAsLong() / 1048576.0, MEMORY_WARN_SHARE * 100));
                }
            }
        });
        return out;
    }

    /**
     * @return when the startup budget (else liveness's) killed the first instance before it
     *         started: how long it had booted, a lower bound of the boot it needed
     */
    static Optional<String> cutShort(SimulationResult r, PodSpec pod) {
        Optional<ProbeSpec> budget = pod.startup().or(pod::liveness);
        if (budget.isEmpty()) {
            return Optional.empty();
        }
        ProbeSpec p = budget.get();
        double b = p.initialDelaySeconds() + (double) p.failureThreshold() * p.periodSeconds();
        double start = -1;
        int killed = 0;
        double longest = 0;
        for (SimEvent e : r.events()) {
            double at = dev.vitals.kubesim.model.Durations.seconds(e.at());
            if (e.type() == SimEvent.Type.START) {
                start = at;
            } else if (e.type() == SimEvent.Type.KILL && e.probe().orElse(null) == p.type() && start >= 0) {
                killed++;
                longest = Math.max(longest, at - start);
            }
        }
        if (killed == 0) {
            return Optional.empty();
        }
        return Optional.of(String.format(Locale.ROOT, "boot: the %s budget (%s s) killed %d instance%s before it started, after"
                + " %.1f s at most: the boot needs more than that; give the %s probe a failureThreshold × periodSeconds"
                + " above the boot (measure it with a larger budget)", p.type().label(),
                dev.vitals.kubesim.result.Expectation.fmt(b), killed, killed == 1 ? "" : "s", longest, p.type().label()));
    }

    /** @return true when any probe's headroom is thin */
    public boolean thin() {
        return probes.stream().anyMatch(p -> !p.warnings().isEmpty());
    }

    /** @return the text block printed after the summary */
    public String text() {
        StringBuilder b = new StringBuilder("headroom:\n");
        for (Probe p : probes) {
            b.append(String.format(Locale.ROOT, "  %-10s latency p50 %.1f ms, p99 %.1f ms, max %.1f ms of timeout %d s; %s%n",
                    p.type().label(), p.p50Ms(), p.p99Ms(), p.maxMs(), p.timeoutSeconds(), p.failureText()));
            for (String w : p.warnings()) {
                b.append("  WARN  ").append(p.type().label()).append(": ").append(w).append('\n');
            }
        }
        notRun.forEach(b::append);
        boot.ifPresent(x -> b.append("  ").append(x.text()).append('\n'));
        warnings.forEach(w -> b.append("  WARN  ").append(w).append('\n'));
        if (probes.isEmpty() && notRun.isEmpty()) {
            b.append("  no probe configured\n");
        }
        return b.toString();
    }
}
