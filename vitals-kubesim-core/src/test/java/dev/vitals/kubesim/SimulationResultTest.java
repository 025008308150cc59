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
        assertThat(r.readyPeriods()).hasSize(3); // ready, not ready 10-20 s, ready, the kill at 32 s, ready
        Interval first = r.readyPeriods().get(0);
        assertThat(first.to().toNanos() / 1e9).isCloseTo(10, org.assertj.core.api.Assertions.within(1.1));
        // not ready from 10 s until readiness passes again (just after 20 s), and once liveness kills at 32 s
        assertThat(r.notReady()).isGreaterThan(Duration.ofSeconds(10));
        assertThat(r.readyAt(Duration.ofSeconds(5))).isTrue();
        assertThat(r.readyAt(Duration.ofSeconds(15))).isFalse();
        assertThat(r.readyWithin(new Interval(Duration.ofSeconds(10), Duration.ofSeconds(20)))).isLessThan(Duration.ofSeconds(1));
        assertThat(r.killsAt()).singleElement().satisfies(d -> assertThat(d).isBetween(Duration.ofSeconds(32), Duration.ofSeconds(33)));
        assertThat(new Interval(Duration.ofSeconds(1), Duration.ofSeconds(3)).length()).isEqualTo(Duration.ofSeconds(2));
        assertThatThrownBy(() -> new Interval(Duration.ofSeconds(3), Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("from ≤ to");
    }
}
