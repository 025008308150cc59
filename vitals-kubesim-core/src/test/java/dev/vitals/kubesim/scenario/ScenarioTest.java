package dev.vitals.kubesim.scenario;

import dev.vitals.kubesim.Rig;
import dev.vitals.kubesim.Simulation;
import dev.vitals.kubesim.fault.FaultProxy;
import dev.vitals.kubesim.fault.LoadGenerator;
import dev.vitals.kubesim.input.InvalidInputException;
import dev.vitals.kubesim.probe.ScriptedProbes;
import dev.vitals.kubesim.result.Expectation;
import dev.vitals.kubesim.result.SimulationResult;

import static dev.vitals.kubesim.model.ProbeType.LIVENESS;
import static dev.vitals.kubesim.model.ProbeType.READINESS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Scenario files and expectations. */
class ScenarioTest {

    @Test
    void parsesEveryActionKind() {
        Scenario s = Scenario.parse("duration: 30s\nproxies:\n  - db=15432:127.0.0.1:5432\n  - {name: cache, listen: 16379, target: '127.0.0.1:6379'}\n"
                + "actions:\n  - at: 5s\n    load: {count: 10, concurrency: 2, method: post, path: /x, port: 8080, timeout: 500ms}\n"
                + "  - at: 1s\n    fault: db blackhole\n  - at: 2s\n    fault: {proxy: cache, type: latency, ms: 200}\n"
                + "  - at: 3s\n    heal: db\n  - at: 4s\n    pause: true\n  - at: 4.5s\n    resume: true\n  - at: 6s\n    signal: SIGHUP\n"
                + "expect:\n  - restarts == 0\n  - ready at 12s\n  - notReady during 10s..20s\n  - liveness p99 < 500ms\n", "s.yaml");
        assertThat(s.duration()).hasValue(Duration.ofSeconds(30));
        assertThat(s.proxies()).extracting(FaultProxy.Spec::name).containsExactly("db", "cache");
        assertThat(s.actions()).extracting(Scenario.Step::kind)
                .containsExactly("fault", "fault", "heal", "pause", "resume", "load", "signal");
        assertThat(s.actions().get(1).action()).isEqualTo(new Action.Fault("cache", "latency", Duration.ofMillis(200)));
        assertThat(s.actions().get(5).action())
                .isEqualTo(new Action.Load(new LoadGenerator.Spec(10, 2, "POST", "/x", 8080, Duration.ofMillis(500))));
        assertThat(s.actions().get(6).action()).isEqualTo(new Action.Signal("HUP"));
        assertThat(s.expectations()).hasSize(4);
    }

    @Test
    void badScenariosGiveClearErrors() {
        assertThatThrownBy(() -> Scenario.parse("actions: [ {at: 1s, explode: now} ]", "s.yaml"))
                .isInstanceOf(InvalidInputException.class).hasMessageContaining("s.yaml: actions[1]: unknown action 'explode'");
        assertThatThrownBy(() -> Scenario.parse("actions:\n  - pause: true\n", "s.yaml")).hasMessageContaining("needs 'at'");
        assertThatThrownBy(() -> Scenario.parse("actions:\n  - at: soon\n    pause: true\n", "s.yaml"))
                .hasMessageContaining("not a duration");
        assertThatThrownBy(() -> Scenario.parse("actions:\n  - at: 1s\n    fault: db melt\n", "s.yaml"))
                .hasMessageContaining("unknown fault 'melt'");
        assertThatThrownBy(() -> Scenario.parse("actions:\n  - at: 1s\n    fault: db latency\n", "s.yaml"))
                .hasMessageContaining("positive delay");
        assertThatThrownBy(() -> Scenario.parse("actions:\n  - at: 1s\n    load: {count: 10}\n", "s.yaml"))
                .hasMessageContaining("port is required");
        assertThatThrownBy(() -> Scenario.parse("actions:\n  - at: 1s\n    load: {count: 0, port: 80}\n", "s.yaml"))
                .hasMessageContaining("count must be 1-100000");
        assertThatThrownBy(() -> Scenario.parse("expect:\n  - uptime is great\n", "s.yaml"))
                .hasMessageContaining("cannot understand expect line");
        assertThatThrownBy(() -> Scenario.parse("durashun: 10s\n", "s.yaml")).hasMessageContaining("unknown key 'durashun'");
        assertThatThrownBy(() -> Scenario.parse("actions: [unclosed", "s.yaml")).hasMessageContaining("not valid YAML");
    }

    @Test
    void aScenarioIsReadAsManifestsAreMergeKeysAndAllAndAKeyWrittenTwiceIsAnError() {
        Scenario s = Scenario.parse("actions:\n  - &first {at: 1s, signal: SIGHUP}\n  - {<<: *first, at: 2s}\n", "s.yaml");
        assertThat(s.actions()).hasSize(2);
        assertThat(s.actions().get(1).at()).isEqualTo(java.time.Duration.ofSeconds(2));
        // Jackson's YAML kept the last of two 'duration' keys without a word
        assertThatThrownBy(() -> Scenario.parse("duration: 10s\nduration: 20s\n", "s.yaml"))
                .hasMessageStartingWith("s.yaml:2: key 'duration' is written twice in one mapping (lines 1 and 2)");
        assertThatThrownBy(() -> Scenario.parse("duration: 10s\n---\nduration: 20s\n", "s.yaml"))
                .hasMessage("s.yaml:3: holds 2 YAML documents ('---'); this file is one document");
    }

    @Test
    void aFaultOnAnUndeclaredProxyIsRejectedBeforeAnythingRuns() {
        Scenario s = Scenario.parse("actions:\n  - at: 1s\n    fault: db refuse\n", "s.yaml");
        assertThatThrownBy(() -> Simulation.builder(Rig.pod(Rig.probe(LIVENESS, 0, 1, 3))).command(List.of("true"))
                .scenario(s).build()).isInstanceOf(InvalidInputException.class).hasMessageContaining("names proxy 'db'");
    }

    @Test
    void expectationsAreCheckedAgainstTheResult() {
        Rig rig = new Rig();
        // readiness fails between 10 and 20 s
        rig.run(Rig.pod(Rig.probe(READINESS, 0, 1, 1)), 30,
                (p, i, s, t) -> t >= 10 && t < 20 ? ScriptedProbes.fail() : ScriptedProbes.ok());
        SimulationResult r = rig.result;
        assertThat(Expectation.parse("restarts == 0").check(r).passed()).isTrue();
        assertThat(Expectation.parse("restarts > 0").check(r).passed()).isFalse();
        assertThat(Expectation.parse("ready at 5s").check(r).passed()).isTrue();
        assertThat(Expectation.parse("notReady at 15s").check(r).passed()).isTrue();
        assertThat(Expectation.parse("notReady during 11s..20s").check(r).passed()).isTrue();
        Expectation.Check wrong = Expectation.parse("ready during 5s..15s").check(r);
        assertThat(wrong.passed()).isFalse();
        assertThat(wrong.actual()).contains("ready for 5.0");
        assertThat(Expectation.parse("notReadySeconds <= 11").check(r).passed()).isTrue();
        assertThat(Expectation.parse("readiness p99 < 10ms").check(r).passed()).isTrue(); // scripted 1 ms
        assertThat(Expectation.parse("liveness p99 < 10ms").check(r).passed()).isFalse(); // no liveness probes ran
        assertThat(Expectation.parse("readiness failures >= 10").check(r).passed()).isTrue(); // ticks 10..19 (+ R19 re-probe)
        assertThat(Expectation.parse("readiness failures <= 11").check(r).passed()).isTrue();
        assertThat(Expectation.parse("kills == 0").check(r).passed()).isTrue();
    }
}
