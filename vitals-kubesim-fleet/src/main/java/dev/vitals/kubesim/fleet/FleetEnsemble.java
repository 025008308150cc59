package dev.vitals.kubesim.fleet;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.ToDoubleFunction;

/**
 * One fleet spec run with several seeds: near a threshold a single run is one sample of a coin
 * toss, so a replay reports the median and range of every figure and judges each expectation
 * over all runs. An expectation holds when it holds in at least its share of the runs
 * ({@link FleetExpectation#sharePercent()}, 100 % unless stated); one that holds in some runs
 * and not in others is reported <em>unstable</em> with the count, whatever its verdict.
 * Immutable once built; thread-safe.
 *
 * @param label what ran, e.g. {@code incident naive}
 * @param seeds the seed of each run, in order
 * @param runs the results, in seed order
 * @param expectations what is judged over the runs
 */
public record FleetEnsemble(String label, List<Long> seeds, List<FleetResult> runs, List<FleetExpectation> expectations) {
    /** The figures every ensemble reports, in table order. */
    public static final List<Figure> FIGURES = List.of(
            new Figure("restarts", "restarts", t -> t.restarts()),
            new Figure("kills", "kills", t -> t.kills()),
            new Figure("pods killed", "podsKilled", t -> t.podsKilled()),
            new Figure("crashloop s", "crashLoopSeconds", t -> t.crashLoopSeconds()),
            new Figure("not-ready s", "notReadySeconds", t -> t.notReadySeconds()),
            new Figure("zero-ep s", "zeroEndpointSeconds", t -> t.zeroEndpointSeconds()),
            new Figure("no-ep reqs", "noEndpointRequests", t -> t.noEndpointRequests()),
            new Figure("max down", "maxDown", t -> t.maxDown()),
            new Figure("errors %", "clientErrorPercent", t -> t.clientErrorPercent()),
            new Figure("p99≤ ms", "p99LatencyMs", t -> t.p99LatencyMs()));

    /**
     * Validates the components and copies the collections (unmodifiable).
     *
     * @param label what ran, e.g. {@code incident naive}
     * @param seeds the seed of each run, in order
     * @param runs the results, in seed order
     * @param expectations what is judged over the runs
     * @throws IllegalArgumentException if a component is outside its documented range
     * @throws NullPointerException if a required component is null
     */
    public FleetEnsemble {
        Objects.requireNonNull(label, "label");
        seeds = List.copyOf(seeds);
        runs = List.copyOf(runs);
        expectations = List.copyOf(expectations);
        if (runs.isEmpty() || runs.size() != seeds.size()) {
            throw new IllegalArgumentException("an ensemble needs one seed per run and at least one run");
        }
    }

    /**
     * One reported figure.
     *
     * @param column the table's column heading
     * @param key the JSON key
     * @param of reads it from a run's totals
     */
    public record Figure(String column, String key, ToDoubleFunction<FleetResult.Totals> of) {
    }

    /**
     * A figure over the runs.
     *
     * @param median the median (the mean of the middle two for an even count)
     * @param min the smallest
     * @param max the largest
     */
    public record Spread(double median, double min, double max) {
        /** @return true when every run gave the same value */
        public boolean fixed() {
            return min == max;
        }
    }

    /**
     * An expectation judged over the runs.
     *
     * @param expectation as written
     * @param held runs in which it held
     * @param runs runs in all
     * @param sharePercent the share it needs
     * @param actual the measured value over the runs
     * @param failedSeeds the seeds of the runs in which it did not hold
     */
    public record Verdict(String expectation, int held, int runs, int sharePercent, Spread actual, List<Long> failedSeeds) {
        /**
         * Copies the collections (unmodifiable).
         *
         * @param expectation as written
         * @param held runs in which it held
         * @param runs runs in all
         * @param sharePercent the share it needs
         * @param actual the measured value over the runs
         * @param failedSeeds the seeds of the runs in which it did not hold
         */
        public Verdict {
            failedSeeds = List.copyOf(failedSeeds);
        }

        /** @return true when it held in at least its share of the runs */
        public boolean passed() {
            return held * 100L >= (long) sharePercent * runs;
        }

        /** @return true when it held in some runs and not in others */
        public boolean unstable() {
            return held > 0 && held < runs;
        }
    }

    /**
     * Runs {@code spec} once per seed {@code spec.seed()}, {@code spec.seed() + 1}, …, on up to
     * {@code threads} threads (the model engine is single-threaded per run).
     *
     * @param spec the fleet; its expectations are judged over the runs
     * @param label what to call it
     * @param runs how many runs, 1–1,000
     * @param threads worker threads, ≥ 1
     * @return the ensemble
     * @throws IllegalArgumentException for a count out of range
     */
    public static FleetEnsemble run(FleetSpec spec, String label, int runs, int threads) {
        return runAll(List.of(spec), List.of(label), runs, threads).get(0);
    }

    /**
     * Runs several specs as ensembles on one pool of threads (so two wirings share both cores).
     *
     * @param specs the fleets
     * @param labels their labels
     * @param runs runs per spec, 1–1,000
     * @param threads worker threads, ≥ 1
     * @return one ensemble per spec, in order
     */
    public static List<FleetEnsemble> runAll(List<FleetSpec> specs, List<String> labels, int runs, int threads) {
        if (runs < 1 || runs > 1000) {
            throw new IllegalArgumentException("runs must be 1-1000, was " + runs);
        }
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be at least 1, was " + threads);
        }
        ExecutorService pool = Executors.newFixedThreadPool(Math.min(threads, specs.size() * runs), r -> {
            Thread t = new Thread(r, "vitals-fleet-run");
            t.setDaemon(true);
            return t;
        });
        try {
            List<List<Future<FleetResult>>> futures = new ArrayList<>();
            for (int s = 0; s < specs.size(); s++) {
                FleetSpec spec = specs.get(s);
                String label = labels.get(s);
                List<Future<FleetResult>> mine = new ArrayList<>();
                for (int i = 0; i < runs; i++) {
                    FleetSpec seeded = spec.withSeed(spec.seed() + i);
                    mine.add(pool.submit(() -> new ModelFleet(seeded, label).run()));
                }
                futures.add(mine);
            }
            List<FleetEnsemble> out = new ArrayList<>();
            for (int s = 0; s < specs.size(); s++) {
                List<FleetResult> results = new ArrayList<>();
                List<Long> seeds = new ArrayList<>();
                for (int i = 0; i < runs; i++) {
                    results.add(get(futures.get(s).get(i)));
                    seeds.add(specs.get(s).seed() + i);
                }
                out.add(new FleetEnsemble(labels.get(s), seeds, results, specs.get(s).expectations()));
            }
            return out;
        } finally {
            pool.shutdownNow();
        }
    }

    private static FleetResult get(Future<FleetResult> f) {
        try {
            return f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new IllegalStateException(e.getCause());
        }
    }

    /**
     * @param f a figure
     * @return its median and range over the runs
     */
    public Spread spread(Figure f) {
        return spread(r -> f.of().applyAsDouble(r.totals()));
    }

    private Spread spread(ToDoubleFunction<FleetResult> f) {
        double[] v = new double[runs.size()];
        for (int i = 0; i < v.length; i++) {
            v[i] = f.applyAsDouble(runs.get(i));
        }
        Arrays.sort(v);
        int n = v.length;
        double median = n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
        return new Spread(Recorder.round(median), v[0], v[n - 1]);
    }

    /** @return each expectation judged over the runs, in the order given */
    public List<Verdict> verdicts() {
        List<Verdict> out = new ArrayList<>();
        for (FleetExpectation e : expectations) {
            int held = 0;
            List<Long> failed = new ArrayList<>();
            for (int i = 0; i < runs.size(); i++) {
                if (e.holds(e.actual(runs.get(i).totals(), runs.get(i).rollout()))) {
                    held++;
                } else {
                    failed.add(seeds.get(i));
                }
            }
            out.add(new Verdict(e.text(), held, runs.size(), e.sharePercent(), spread(r -> e.actual(r.totals(), r.rollout())), failed));
        }
        return out;
    }

    /** @return true when every expectation passed over the runs */
    public boolean passed() {
        return verdicts().stream().allMatch(Verdict::passed);
    }

    /** @return the run whose restarts are the median's (the lower one for an even count): the one drawn in detail */
    public FleetResult medianRun() {
        List<FleetResult> sorted = new ArrayList<>(runs);
        sorted.sort((a, b) -> Double.compare(a.totals().restarts() + a.totals().notReadySeconds() / 1e6,
                b.totals().restarts() + b.totals().notReadySeconds() / 1e6));
        return sorted.get((sorted.size() - 1) / 2);
    }
}
