package dev.vitals.kubesim.fleet;

import java.util.SplittableRandom;

/**
 * The model engine's random draws, all from the run's one seeded source (so a run is a function of
 * its seed): Poisson by multiplication below λ = 30 and a rounded normal above, binomial by
 * Bernoulli trials below n = 40 and approximations above, the normal by Box–Muller. The order of
 * draws is part of a run's result: a change here changes every seeded figure. Not thread-safe.
 */
final class Draws {
    private final SplittableRandom rnd;

    Draws(SplittableRandom rnd) {
        this.rnd = rnd;
    }

    /** @return uniform in [0, 1) */
    double uniform() {
        return rnd.nextDouble();
    }

    /** @return uniform in [0, bound) */
    int below(int bound) {
        return rnd.nextInt(bound);
    }

    /** @return a Poisson(lambda) count */
    int poisson(double lambda) {
        if (lambda < 30) {
            double l = Math.exp(-lambda);
            int k = 0;
            double p = rnd.nextDouble();
            while (p > l) {
                k++;
                p *= rnd.nextDouble();
            }
            return k;
        }
        return (int) Math.max(0, Math.round(lambda + Math.sqrt(lambda) * gaussian()));
    }

    /**
     * @return a Poisson count drawn by inversion from {@code table}'s distribution, one uniform draw:
     *     the first k with u ≤ F(k), found from where the table's guide says it can be
     */
    int poisson(PoissonTable table) {
        double u = rnd.nextDouble();
        double[] cdf = table.cdf;
        int a = table.guide[(int) (u * PoissonTable.GUIDE)];
        while (a < cdf.length - 1 && u > cdf[a]) {
            a++;
        }
        return a;
    }

    /** @return a Binomial(n, p) count */
    int binomial(int n, double p) {
        double mean = n * p;
        if (n < 40) {
            int x = 0;
            for (int i = 0; i < n; i++) {
                if (rnd.nextDouble() < p) {
                    x++;
                }
            }
            return x;
        }
        if (mean < 15) {
            return Math.min(n, poisson(mean));
        }
        return (int) Math.min(n, Math.max(0, Math.round(mean + Math.sqrt(mean * (1 - p)) * gaussian())));
    }

    private double gaussian() {
        double u = 1 - rnd.nextDouble();
        return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rnd.nextDouble());
    }

    /**
     * The Poisson(λ) cumulative distribution for the last λ asked for (λ changes only when the
     * endpoints do), with a guide for inversion (Chen and Asau): for u in [j/G, (j+1)/G) the count is
     * at least guide[j], the first k with F(k) ≥ j/G (G a power of two, so j/G and u·G are exact and
     * starting there finds the same k as a search from 0). Engine thread only.
     */
    static final class PoissonTable {
        static final int GUIDE = 64;
        private double lambda = -1;
        private double[] cdf;
        private final int[] guide = new int[GUIDE];

        /**
         * Makes this the distribution of Poisson(lambda): up to where it reaches 1 − 1e-12, the last entry 1.
         *
         * @return this table
         */
        PoissonTable of(double lambda) {
            if (lambda != this.lambda) {
                int n = (int) (lambda + 12 * Math.sqrt(lambda) + 12);
                double[] t = new double[n];
                double term = Math.exp(-lambda);
                double sum = term;
                t[0] = sum;
                for (int k = 1; k < n; k++) {
                    term *= lambda / k;
                    sum += term;
                    t[k] = sum;
                }
                t[n - 1] = 1;
                int k = 0;
                for (int j = 0; j < GUIDE; j++) {
                    double from = j / (double) GUIDE;
                    while (t[k] < from) {
                        k++; // ends at n − 1 at the latest: t[n − 1] = 1
                    }
                    guide[j] = k;
                }
                cdf = t;
                this.lambda = lambda;
            }
            return this;
        }
    }
}
