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

    /** @return a Poisson count drawn by inversion from {@code cdf} ({@link PoissonTable}), one uniform draw */
    int poisson(double[] cdf) {
        double u = rnd.nextDouble();
        int a = 0;
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

    /** The Poisson(λ) cumulative distribution for the last λ asked for (λ changes only when the endpoints do). */
    static final class PoissonTable {
        private double lambda = -1;
        private double[] table;

        /** @return the Poisson(lambda) cumulative distribution up to where it reaches 1 − 1e-12 (the last entry 1) */
        double[] cdf(double lambda) {
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
                table = t;
                this.lambda = lambda;
            }
            return table;
        }
    }
}
