package dev.vitals.kubesim.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class RecorderTest {
    /** A tally counts what ok counts one by one, to the last bit of the latency sum; an empty one counts nothing. */
    @Test
    void tallyIsOkOneByOne() {
        Recorder each = new Recorder(4, 10);
        Recorder tallied = new Recorder(4, 10);
        each.scenarioStart(1);
        tallied.scenarioStart(1);
        SplittableRandom rnd = new SplittableRandom(11);
        Recorder.Answers answers = tallied.answers();
        for (double now = 0; now < 12; now += 0.1) { // before, during and after the scenario
            answers.open(now);
            int n = rnd.nextInt(30);
            for (int k = 0; k < n; k++) {
                long count = 1 + rnd.nextInt(5);
                double latency = rnd.nextBoolean() ? 0.035 : rnd.nextDouble() * 3;
                each.ok(now, count, latency);
                answers.ok(count, latency);
            }
            answers.close();
            each.ok(now, 2, 0.5); // counted outside a tally, between tallies
            tallied.ok(now, 2, 0.5);
        }
        answers.open(5.05);
        answers.close();
        FleetResult a = each.result("model", "x", 12, List.of());
        FleetResult b = tallied.result("model", "x", 12, List.of());
        assertThat(b.totals()).isEqualTo(a.totals());
        assertThat(b.series()).isEqualTo(a.series());
        assertThat(a.totals().requests()).isPositive();
    }
}
