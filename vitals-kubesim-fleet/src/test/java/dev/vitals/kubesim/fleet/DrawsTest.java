package dev.vitals.kubesim.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class DrawsTest {
    /** The guided inversion finds what a search of the whole distribution from 0 finds, draw for draw. */
    @Test
    void guidedPoissonInversionIsTheSearchFromZero() {
        Draws.PoissonTable table = new Draws.PoissonTable();
        for (double lambda : new double[] {1e-6, 0.05, 0.7, 1, 5, 12.5, 29.9}) {
            Draws draws = new Draws(new SplittableRandom(7));
            SplittableRandom same = new SplittableRandom(7);
            table.of(lambda);
            double[] cdf = cdf(lambda);
            for (int i = 0; i < 200_000; i++) {
                double u = same.nextDouble();
                int a = 0;
                while (a < cdf.length - 1 && u > cdf[a]) {
                    a++;
                }
                assertThat(draws.poisson(table)).as("lambda %s, draw %d", lambda, i).isEqualTo(a);
            }
        }
    }

    /** A table asked for another λ is that λ's (the guide too). */
    @Test
    void tableFollowsLambda() {
        Draws.PoissonTable table = new Draws.PoissonTable();
        table.of(20);
        Draws draws = new Draws(new SplittableRandom(3));
        table.of(0.01);
        int nonZero = 0;
        for (int i = 0; i < 10_000; i++) {
            nonZero += draws.poisson(table) > 0 ? 1 : 0;
        }
        assertThat(nonZero).isBetween(50, 160); // 1 − e^−0.01 ≈ 1 %
    }

    private static double[] cdf(double lambda) {
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
        return t;
    }
}
