package dev.vitals.kubesim.fleet;

import java.util.ArrayList;
import java.util.List;

/**
 * Collects what a fleet run sees and builds a {@link FleetResult}. Times are absolute seconds
 * of the run's clock until {@link #scenarioStart(double)} fixes scenario time 0. Not
 * thread-safe: the live engine calls it under its own lock.
 */
final class Recorder {
    /** Latency bins per octave of the histograms behind every p99: a p99 is reported as its bin's upper edge. */
    static final int BINS_PER_OCTAVE = 4;
    /** The least a true quantile can be, as a share of its bin's upper edge (the widest bin, an octave's first: 4/5). */
    static final double LOWEST_TRUE_FRACTION = BINS_PER_OCTAVE / (BINS_PER_OCTAVE + 1.0);
    private static final int BINS = 100; // 2^(100/4) ms ≈ 9.7 h: every latency fits
    private final int replicas;
    private final int desired;
    private final int seconds;
    private final double duration;
    private double t0 = Double.NaN;
    // per second
    private final double[] endpointTime;
    private final int[] minEndpoints;
    private final double[] readyTime;
    private final double[] sampled;
    private final long[] ok;
    private final long[] failed;
    private final long[] attempts;
    private final int[][] hist;
    // totals
    private final long[] totalHist = new long[BINS];
    private final double[] binnedLatency = {Double.NaN, Double.NaN}; // binOf's two latencies, s
    private final int[] binned = new int[2]; // and their bins
    private final Answers answers = new Answers();
    private int binNext; // which of the two binOf replaces next
    private double latencySum;
    private long okTotal;
    private long failedTotal;
    private long attemptsTotal;
    private double zeroEndpointSeconds;
    private int minEndpointsTotal = Integer.MAX_VALUE;
    private int minReadyTotal = Integer.MAX_VALUE;
    private long noEndpointTotal;
    // lanes
    private final List<List<double[]>> ready;
    private final double[] readySince;
    private final List<List<Double>> kills;
    private final List<List<Double>> starts;
    private final int[] restarts;
    private final double[] backOffSince;
    private final double[] backOffSeconds;
    // a rollout: each lane's pod exists in [bornAt, goneAt); its version; what each version answered
    private final double[] bornAt;
    private final double[] goneAt;
    private final String[] version;
    private final long[] versionOk = new long[2];
    private final long[] versionFailed = new long[2];
    private final double[] versionLatencySum = new double[2];
    private final long[][] versionHist = new long[2][BINS];
    // routing: what balanced, the followed keys' holders, peak in-flight per lane
    /** Affinity keys followed per population (their holders over time are reported). */
    static final int KEYS_FOLLOWED = 16;
    private String routing = "";
    private final java.util.Map<String, Integer> holder = new java.util.HashMap<>();
    private final List<Object[]> holds = new ArrayList<>();
    private final long[] peakInFlight;

    Recorder(int replicas, double durationSeconds) {
        this(replicas, replicas, durationSeconds);
    }

    /**
     * @param lanes pods that may exist during the run (a rollout: old and new)
     * @param desired the Deployment's replicas ("max down" counts below this)
     * @param durationSeconds scenario seconds
     */
    Recorder(int lanes, int desired, double durationSeconds) {
        int replicas = lanes;
        this.desired = desired;
        this.replicas = replicas;
        this.duration = durationSeconds;
        this.seconds = (int) Math.ceil(durationSeconds);
        endpointTime = new double[seconds];
        minEndpoints = new int[seconds];
        java.util.Arrays.fill(minEndpoints, Integer.MAX_VALUE);
        readyTime = new double[seconds];
        sampled = new double[seconds];
        ok = new long[seconds];
        failed = new long[seconds];
        attempts = new long[seconds];
        hist = new int[seconds][];
        ready = new ArrayList<>(replicas);
        kills = new ArrayList<>(replicas);
        starts = new ArrayList<>(replicas);
        readySince = new double[replicas];
        restarts = new int[replicas];
        backOffSince = new double[replicas];
        backOffSeconds = new double[replicas];
        java.util.Arrays.fill(backOffSince, Double.NaN);
        peakInFlight = new long[replicas];
        bornAt = new double[replicas];
        goneAt = new double[replicas];
        version = new String[replicas];
        java.util.Arrays.fill(bornAt, Double.NEGATIVE_INFINITY);
        java.util.Arrays.fill(goneAt, Double.POSITIVE_INFINITY);
        java.util.Arrays.fill(version, "");
        for (int i = 0; i < replicas; i++) {
            ready.add(new ArrayList<>(4));
            kills.add(new ArrayList<>(2));
            starts.add(new ArrayList<>(2));
            readySince[i] = Double.NaN;
        }
    }

    /** @param r how traffic reaches the pods, for reports */
    void routing(String r) {
        routing = r;
    }

    /** Key {@code key} of population {@code pop} was routed to {@code replica} at {@code now}; recorded when its holder changes. */
    void holds(int pop, String name, int key, int replica, double now) {
        String id = pop + "/" + key;
        Integer was = holder.put(id, replica);
        if (was == null || was != replica) {
            holds.add(new Object[] {name, key, now, replica});
        }
    }

    /** Replica {@code replica} holds {@code n} requests now (waiting and in service). */
    void inFlight(int replica, long n) {
        if (n > peakInFlight[replica]) {
            peakInFlight[replica] = n;
        }
    }

    boolean started() {
        return !Double.isNaN(t0);
    }

    /** @param now absolute seconds at which scenario time 0 begins */
    void scenarioStart(double now) {
        t0 = now;
    }

    double t0() {
        return t0;
    }

    private int second(double now) {
        if (Double.isNaN(t0)) {
            return -1;
        }
        double t = now - t0;
        if (t < 0 || t >= duration) {
            return -1;
        }
        return Math.min(seconds - 1, (int) t);
    }

    /** A fleet-state sample held for {@code dt} seconds from {@code now}. */
    void sample(double now, int endpoints, int readyCount, double dt) {
        int s = second(now);
        if (s < 0) {
            return;
        }
        endpointTime[s] += endpoints * dt;
        readyTime[s] += readyCount * dt;
        sampled[s] += dt;
        minEndpoints[s] = Math.min(minEndpoints[s], endpoints);
        minEndpointsTotal = Math.min(minEndpointsTotal, endpoints);
        minReadyTotal = Math.min(minReadyTotal, readyCount);
        if (endpoints == 0) {
            zeroEndpointSeconds += dt;
        }
    }

    void attempts(double now, long n) {
        int s = second(now);
        if (s >= 0) {
            attempts[s] += n;
            attemptsTotal += n;
        }
    }

    /** {@code n} attempts found no endpoint in the Service (refused). */
    void noEndpoint(double now, long n) {
        if (second(now) >= 0) {
            noEndpointTotal += n;
        }
    }

    void ok(double now, long n, double latencySeconds) {
        int s = second(now);
        if (s < 0) {
            return;
        }
        ok[s] += n;
        okTotal += n;
        latencySum += n * latencySeconds;
        int b = binOf(latencySeconds);
        if (hist[s] == null) {
            hist[s] = new int[BINS];
        }
        hist[s][b] += (int) Math.min(Integer.MAX_VALUE - hist[s][b], n);
        totalHist[b] += n;
    }

    /** @return a tally of answers at one instant, which counts them as {@link #ok} would (one per recorder) */
    Answers answers() {
        return answers;
    }

    /**
     * Answers at one instant, counted in order as {@link #ok} counts them one by one (the latency sum
     * takes the same additions in the same order, so it is the same to the last bit), with the per-second
     * and histogram counts added once at {@link #close()}: the step's answers within the step
     * ({@link ModelFleet}), two per replica. Between {@link #open} and {@link #close()} nothing else may
     * count an answer. Not thread-safe, as the recorder.
     */
    final class Answers {
        private int s = -1; // the second open() was at, or -1 (not open, or outside the scenario)
        private long n;
        private double sum;
        private final long[] byBin = new long[BINS];
        private int binLo = BINS;
        private int binHi = -1;

        private Answers() {
        }

        /** Starts a tally of answers at {@code now} (absolute seconds). */
        void open(double now) {
            s = second(now);
            n = 0;
            sum = latencySum;
        }

        /** As {@link Recorder#ok}{@code (now, count, latencySeconds)} at the instant of {@link #open}. */
        void ok(long count, double latencySeconds) {
            if (s < 0) {
                return;
            }
            n += count;
            sum += count * latencySeconds;
            int b = binOf(latencySeconds);
            byBin[b] += count;
            binLo = Math.min(binLo, b);
            binHi = Math.max(binHi, b);
        }

        /** Adds the tally to the recorder's figures. */
        void close() {
            if (s < 0 || binHi < 0) {
                s = -1;
                return; // nothing counted (ok allocates no histogram then either)
            }
            latencySum = sum;
            ok[s] += n;
            okTotal += n;
            if (hist[s] == null) {
                hist[s] = new int[BINS];
            }
            int[] h = hist[s];
            for (int b = binLo; b <= binHi; b++) {
                long c = byBin[b];
                if (c > 0) {
                    h[b] += (int) Math.min(Integer.MAX_VALUE - h[b], c); // saturating, as ok's one by one
                    totalHist[b] += c;
                    byBin[b] = 0;
                }
            }
            binLo = BINS;
            binHi = -1;
            s = -1;
        }
    }

    /**
     * @return {@link #bin} of the latency in ms, remembered for the last two latencies: most answers
     *     come at their population's two quartiles ({@link ModelFleet#answeredAtOnce}), twice per replica and step
     */
    private int binOf(double latencySeconds) {
        if (latencySeconds == binnedLatency[0]) {
            return binned[0];
        }
        if (latencySeconds == binnedLatency[1]) {
            return binned[1];
        }
        int b = bin(latencySeconds * 1000);
        binnedLatency[binNext] = latencySeconds;
        binned[binNext] = b;
        binNext ^= 1;
        return b;
    }

    /** A rollout: lane {@code replica} is a pod of {@code name} ({@code old}/{@code new}), created at {@code born}. */
    void pod(int replica, String name, double born) {
        version[replica] = name;
        bornAt[replica] = born;
    }

    /** A rollout: the pod of lane {@code replica} was deleted at {@code now}. */
    void gone(int replica, double now) {
        goneAt[replica] = now;
    }

    /** {@code n} attempts answered successfully by a pod of version {@code v} (0 old, 1 new). */
    void versionOk(int v, double now, long n, double latencySeconds) {
        if (second(now) >= 0) {
            versionOk[v] += n;
            versionLatencySum[v] += n * latencySeconds;
            versionHist[v][bin(latencySeconds * 1000)] += n;
        }
    }

    /** {@code n} attempts failed on a pod of version {@code v}. */
    void versionFailed(int v, double now, long n) {
        if (second(now) >= 0) {
            versionFailed[v] += n;
        }
    }

    /** @return what each version answered, old then new */
    List<FleetResult.Version> versions() {
        List<FleetResult.Version> out = new ArrayList<>(2);
        for (int v = 0; v < 2; v++) {
            out.add(new FleetResult.Version(v == 0 ? "old" : "new", versionOk[v], versionFailed[v],
                    round(versionOk[v] == 0 ? 0 : 1000 * versionLatencySum[v] / versionOk[v]),
                    round(quantile(versionHist[v], versionOk[v], 0.99))));
        }
        return out;
    }

    void failed(double now, long n) {
        int s = second(now);
        if (s >= 0) {
            failed[s] += n;
            failedTotal += n;
        }
    }

    void ready(int replica, double now, boolean isReady) {
        if (isReady && Double.isNaN(readySince[replica])) {
            readySince[replica] = now;
        } else if (!isReady && !Double.isNaN(readySince[replica])) {
            ready.get(replica).add(new double[] {readySince[replica], now});
            readySince[replica] = Double.NaN;
        }
    }

    void kill(int replica, double now) {
        kills.get(replica).add(now);
    }

    /** The replica's restart waits in CrashLoopBackOff from {@code now} until its next {@link #start}. */
    void backOff(int replica, double now) {
        if (Double.isNaN(backOffSince[replica])) {
            backOffSince[replica] = now;
        }
    }

    /** Adds the part of [from, to) inside the scenario to the replica's back-off time. */
    private void addBackOff(int replica, double from, double to) {
        if (Double.isNaN(t0)) {
            return;
        }
        double a = Math.max(from, t0);
        double b = Math.min(to, t0 + duration);
        if (b > a) {
            backOffSeconds[replica] += b - a;
        }
    }

    void start(int replica, double now, boolean restart) {
        if (!Double.isNaN(backOffSince[replica])) {
            addBackOff(replica, backOffSince[replica], now);
            backOffSince[replica] = Double.NaN;
        }
        starts.get(replica).add(now);
        if (restart) {
            restarts[replica]++;
        }
    }

    /** Bin 0: ≤ 1 ms; then 4 bins per octave, linear inside the octave: [2^e·(1 + j/4), 2^e·(1 + (j+1)/4)). */
    static int bin(double ms) {
        if (!(ms > 1)) {
            return 0;
        }
        int e = Math.getExponent(ms);
        int j = (int) ((ms / Math.scalb(1.0, e) - 1) * BINS_PER_OCTAVE);
        return Math.min(BINS - 1, 1 + e * BINS_PER_OCTAVE + Math.min(BINS_PER_OCTAVE - 1, j));
    }

    /** @return the upper edge of a bin, ms */
    static double binMs(int b) {
        if (b == 0) {
            return 1;
        }
        int e = (b - 1) / BINS_PER_OCTAVE;
        int j = (b - 1) % BINS_PER_OCTAVE;
        return Math.scalb(1.0, e) * (1 + (j + 1) / (double) BINS_PER_OCTAVE);
    }

    private static double quantile(long[] h, long total, double q) {
        if (total == 0) {
            return 0;
        }
        long need = (long) Math.ceil(q * total);
        long seen = 0;
        for (int b = 0; b < h.length; b++) {
            seen += h[b];
            if (seen >= need) {
                return binMs(b);
            }
        }
        return binMs(h.length - 1);
    }

    private static double quantile(int[] h, double q) {
        if (h == null) {
            return 0;
        }
        long[] l = new long[h.length];
        long total = 0;
        for (int i = 0; i < h.length; i++) {
            l[i] = h[i];
            total += h[i];
        }
        return quantile(l, total, q);
    }

    /**
     * @param now absolute seconds at the end of the run (open Ready intervals close here)
     */
    FleetResult result(String engine, String label, double now, List<FleetExpectation> expectations) {
        return result(engine, label, now, expectations, java.util.Optional.empty());
    }

    /**
     * @param now absolute seconds at the end of the run
     * @param rollout the rollout's outcome, if any (checked by the rollout expectations)
     */
    FleetResult result(String engine, String label, double now, List<FleetExpectation> expectations,
            java.util.Optional<FleetResult.RolloutStatus> rollout) {
        double base = Double.isNaN(t0) ? now : t0;
        List<FleetResult.Second> series = series();
        List<FleetResult.Lane> lanes = new ArrayList<>(replicas);
        int restartsTotal = 0;
        int killsTotal = 0;
        int restarted = 0;
        int podsKilled = 0;
        double backOffTotal = 0;
        double notReadyTotal = 0;
        for (int i = 0; i < replicas; i++) {
            if (!Double.isNaN(backOffSince[i])) {
                addBackOff(i, backOffSince[i], now);
                backOffSince[i] = Double.NaN;
            }
            List<double[]> iv = readyIntervals(i, base, now);
            List<Double> k = since(kills.get(i), base);
            List<Double> st = since(starts.get(i), base);
            double notReady = notReady(i, iv, base, now);
            backOffTotal += backOffSeconds[i];
            notReadyTotal += notReady;
            lanes.add(new FleetResult.Lane(i, restarts[i], k.size(), iv, k, st, round(backOffSeconds[i]), round(notReady),
                    version[i], List.of(), peakInFlight[i]));
            restartsTotal += restarts[i];
            killsTotal += k.size();
            if (!k.isEmpty()) {
                podsKilled++;
            }
            if (restarts[i] > 0) {
                restarted++;
            }
        }
        long requests = okTotal + failedTotal;
        FleetResult.Totals totals = new FleetResult.Totals(restartsTotal, killsTotal, restarted, round(zeroEndpointSeconds),
                minEndpointsTotal == Integer.MAX_VALUE ? 0 : minEndpointsTotal, requests, failedTotal, attemptsTotal,
                round(okTotal == 0 ? 0 : 1000 * latencySum / okTotal), round(quantile(totalHist, okTotal, 0.99)), round(backOffTotal),
                round(notReadyTotal), noEndpointTotal, minReadyTotal == Integer.MAX_VALUE ? 0 : Math.max(0, desired - minReadyTotal),
                podsKilled);
        List<FleetResult.Hold> held = held(base);
        List<FleetResult.Check> checks = new ArrayList<>();
        for (FleetExpectation e : expectations) {
            double actual = e.actual(totals, rollout);
            checks.add(new FleetResult.Check(e.text(), actual, e.holds(actual)));
        }
        return new FleetResult(engine, label, desired, duration, round(Double.isNaN(t0) ? now : t0), totals, series, lanes, checks,
                rollout, routing, held);
    }

    /** @return one sample per second: mean endpoints and Ready, fewest endpoints, requests, latency p50 and p99 */
    private List<FleetResult.Second> series() {
        List<FleetResult.Second> series = new ArrayList<>(seconds);
        for (int s = 0; s < seconds; s++) {
            double w = sampled[s] > 0 ? sampled[s] : 1;
            series.add(new FleetResult.Second(s, round(endpointTime[s] / w), minEndpoints[s] == Integer.MAX_VALUE ? 0
                    : minEndpoints[s], round(readyTime[s] / w), ok[s], failed[s], attempts[s], round(quantile(hist[s], 0.5)),
                    round(quantile(hist[s], 0.99))));
        }
        return series;
    }

    /** @return pod {@code i}'s Ready intervals from {@code base}, one still open closed at {@code now} */
    private List<double[]> readyIntervals(int i, double base, double now) {
        List<double[]> iv = new ArrayList<>();
        for (double[] r : ready.get(i)) {
            iv.add(new double[] {round(r[0] - base), round(r[1] - base)});
        }
        if (!Double.isNaN(readySince[i])) {
            iv.add(new double[] {round(readySince[i] - base), round(now - base)});
        }
        return iv;
    }

    /** @return the times from {@code base}, rounded */
    private static List<Double> since(List<Double> times, double base) {
        List<Double> out = new ArrayList<>();
        for (double x : times) {
            out.add(round(x - base));
        }
        return out;
    }

    /** @return the seconds of the run pod {@code i} existed and was not Ready, given its Ready intervals {@code iv} */
    private double notReady(int i, List<double[]> iv, double base, double now) {
        double readyIn = 0;
        for (double[] r : iv) {
            readyIn += Math.max(0, Math.min(r[1], duration) - Math.max(r[0], 0));
        }
        double exists = Math.max(0, Math.min(Math.min(duration, now - base), goneAt[i] - base) - Math.max(0, bornAt[i] - base));
        return Math.max(0, exists - readyIn);
    }

    /** @return who held the followed affinity keys, and when, from {@code base} */
    private List<FleetResult.Hold> held(double base) {
        List<FleetResult.Hold> held = new ArrayList<>(holds.size());
        for (Object[] h : holds) {
            held.add(new FleetResult.Hold((String) h[0], (Integer) h[1], round((Double) h[2] - base), (Integer) h[3]));
        }
        return held;
    }

    static double round(double v) {
        return Math.round(v * 1000) / 1000.0;
    }
}
