package dev.vitals.kubesim;

import static dev.vitals.kubesim.model.ProbeType.LIVENESS;
import static dev.vitals.kubesim.model.ProbeType.READINESS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vitals.kubesim.probe.ScriptedProbes;
import dev.vitals.kubesim.result.Interval;
import dev.vitals.kubesim.result.SimulationResult;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The result's Duration and Interval views agree with its seconds views. */
class SimulationResultTest {

    @Test
    void durationsAndIntervals() {
        Rig rig = new Rig();
        // readiness fails between 10 s and 20 s; liveness fails from 30 s (failureThreshold 3, period 1)
        SimulationResult r = rig.run(Rig.pod(Rig.probe(READINESS, 0, 1, 1), Rig.probe(LIVENESS, 0, 1, 3)), 40,
                (p, i, s, t) -> p.type() == READINESS && t >= 10 && t < 20 || p.type() == LIVENESS && i == 1 && t >= 30
                        ? ScriptedProbes.fail() : ScriptedProbes.ok());
        assertThat(r.duration()).isEqualTo(Duration.ofSeconds(40));
        assertThat(r.readyPeriods()).hasSize(r.readyIntervals().size());
        for (int k = 0; k < r.readyPeriods().size(); k++) {
            Interval i = r.readyPeriods().get(k);
            assertThat(i.from().toNanos() / 1e9).isCloseTo(r.readyIntervals().get(k)[0], org.assertj.core.api.Assertions.within(1e-6));
        }
        assertThat(r.notReady().toNanos() / 1e9).isCloseTo(r.notReadySeconds(), org.assertj.core.api.Assertions.within(1e-6));
        assertThat(r.readyAt(Duration.ofSeconds(5))).isTrue();
        assertThat(r.readyAt(Duration.ofSeconds(15))).isFalse();
        assertThat(r.readyWithin(new Interval(Duration.ofSeconds(10), Duration.ofSeconds(20)))).isLessThan(Duration.ofSeconds(1));
        assertThat(r.killsAt()).singleElement().satisfies(d -> assertThat(d).isBetween(Duration.ofSeconds(32), Duration.ofSeconds(33)));
        assertThat(new Interval(Duration.ofSeconds(1), Duration.ofSeconds(3)).length()).isEqualTo(Duration.ofSeconds(2));
        assertThatThrownBy(() -> new Interval(Duration.ofSeconds(3), Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("from ≤ to");
    }
}
