package dev.vitals.kubesim.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vitals.kubesim.input.InvalidInputException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class FleetSpecReaderTest {
    private static final String FULL = String.join("\n",
            "replicas: 12",
            "duration: 10m",
            "seed: 7",
            "replica: {workers: 40, startTime: 4500ms, queueLimit: 400, warmupFactor: 1.5, warmupTime: 10s}",
            "probes:",
            "  server: app-pool",
            "  startup: {periodSeconds: 1, failureThreshold: 60}",
            "  liveness: {periodSeconds: 2, timeoutSeconds: 3, failureThreshold: 3}",
            "  readiness: {periodSeconds: 10, failureThreshold: 3, dependency: critical}",
            "dependency: {name: cache, outages: [{at: 30s, duration: 60s}]}",
            "service: {propagationDelay: 2s}",
            "clients:",
            "  - {name: exports, concurrency: 100, serviceTime: {min: 4s, max: 12s}, timeout: 60s, persistent: true}",
            "  - {name: users, rate: 200, connections: 50, serviceTime: 50ms, timeout: 5s, retries: 2, usesDependency: true}",
            "actions: [{at: 60s, kill: 3}]",
            "expect: ['endpoints > 0 always', 'restarts == 0', 'client errors < 1%']",
            "");

    @Test
    void aProbeFieldOf0TakesTheApiDefaultAsInAManifest() {
        // the API server's defaulting (pkg/apis/core/v1/defaults.go), applied by ProbeSpec.Builder for
        // manifests, --liveness flags and fleet models alike: 0 is "not set"
        FleetSpec s = FleetSpecReader.parse(FULL.replace("startup: {periodSeconds: 1, failureThreshold: 60}",
                "startup: {periodSeconds: 0, timeoutSeconds: 0, successThreshold: 0, failureThreshold: 0}"), "f.yaml");
        var startup = s.probes().startup().orElseThrow();
        assertThat(startup.failureThreshold()).isEqualTo(3);
        assertThat(startup.periodSeconds()).isEqualTo(10);
        assertThat(startup.timeoutSeconds()).isEqualTo(1);
        assertThat(startup.successThreshold()).isEqualTo(1);
    }

    @Test
    void aPropagationDelayAboveTheFleetCapIsRefused() {
        assertThat(FleetSpecReader.parse(FULL.replace("propagationDelay: 2s", "propagationDelay: 24h"), "f.yaml")
                .service().propagationDelay()).isEqualTo(Duration.ofHours(24));
        assertThatThrownBy(() -> FleetSpecReader.parse(FULL.replace("propagationDelay: 2s", "propagationDelay: 86401s"), "f.yaml"))
                .isInstanceOf(InvalidInputException.class)
                .hasMessage("f.yaml: service.propagationDelay must be at most 24h (the longest run), was 86401s");
    }

    @Test
    void readsEveryField() {
        FleetSpec s = FleetSpecReader.parse(FULL, "f.yaml");
        assertThat(s.replicas()).isEqualTo(12);
        assertThat(s.duration()).isEqualTo(Duration.ofMinutes(10));
        assertThat(s.seed()).isEqualTo(7);
        assertThat(s.clients().get(0).total()).isZero();
        assertThat(s.replica().workers()).isEqualTo(40);
        assertThat(s.replica().queueLimit()).isEqualTo(400);
        assertThat(s.probes().server()).isEqualTo(FleetSpec.ProbeServer.APP_POOL);
        assertThat(s.probes().liveness().orElseThrow().timeoutSeconds()).isEqualTo(3);
        assertThat(s.probes().readinessDependency()).isEqualTo(FleetSpec.DependencyRole.CRITICAL);
        assertThat(s.dependency().orElseThrow().downAt(45)).isTrue();
        assertThat(s.dependency().orElseThrow().downAt(95)).isFalse();
        assertThat(s.service().propagationDelay()).isEqualTo(Duration.ofSeconds(2));
        assertThat(s.clients()).hasSize(2);
        assertThat(s.clients().get(0).meanServiceSeconds()).isEqualTo(8.0);
        assertThat(s.clients().get(1).connections()).isEqualTo(50);
        assertThat(s.actions()).containsExactly(new FleetSpec.Kill(Duration.ofSeconds(60), 3));
        assertThat(s.expectations()).extracting(FleetExpectation::metric).containsExactly(FleetExpectation.Metric.ENDPOINTS,
                FleetExpectation.Metric.RESTARTS, FleetExpectation.Metric.CLIENT_ERRORS);
    }

    static Stream<Arguments> badInputs() {
        return Stream.of(
            Arguments.of("replicas: 12", "replicas: 0", "f.yaml:1: replicas: must be 1-1000000, was 0"),
            Arguments.of("replicas: 12", "replicas: many", "f.yaml:1: replicas: must be a whole number, was 'many'"),
            Arguments.of("duration: 10m", "duration: soon", "f.yaml:2: duration: not a duration: 'soon' (use e.g. 500ms, 2s, 1.5s, 1m)"),
            Arguments.of("duration: 10m\n", "\n", "f.yaml:1: duration: missing"),
            Arguments.of("workers: 40, ", "workrs: 40, ", "f.yaml:4: replica.workrs: unknown field (known here: workers, startTime, stopTime, queueLimit, probeServiceTime, warmupFactor, warmupTime)"),
            Arguments.of("server: app-pool", "server: pool", "f.yaml:6: probes.server: must be app-pool or isolated, was 'pool'"),
            Arguments.of("timeoutSeconds: 3,", "timeoutSeconds: -3,", "f.yaml:8: probes.liveness.timeoutSeconds: must be 0-2147483647, was -3"),
            Arguments.of("dependency: critical", "dependency: maybe", "f.yaml:9: probes.readiness.dependency: must be none, critical or non-critical, was 'maybe'"),
            Arguments.of("concurrency: 100,", "concurrency: 100, rate: 5,", "f.yaml:13: clients[0]: give exactly one of rate (open loop, per second) or concurrency (closed loop)"),
            Arguments.of("timeout: 60s,", "retries: 1,", "f.yaml:13: clients[0].timeout: missing"),
            Arguments.of("kill: 3", "kill: 12", "f.yaml:15: actions[0].kill: must be 0-11, was 12"),
            Arguments.of("'restarts == 0'", "'restarts maybe'", "f.yaml: expect: expectation 'restarts maybe' not understood: use e.g. 'endpoints > 0 always', 'restarts == 0', 'kills <= 3', 'pods killed >= 2', 'client errors < 1%', 'zero-endpoint seconds < 5', "
                    + "'crashloop seconds < 60', 'not-ready seconds < 120', 'no-endpoint requests == 0', 'max down <= 1', 'rollout stalled == 0', 'new version errors < 1%', optionally followed by 'in 80% of runs'"),
            Arguments.of("max: 12s", "max: 1s", "f.yaml: clients 'exports': serviceTime max must be at least min, was PT1S < PT4S"),
            Arguments.of("retries: 2,", "retries: 2, total: 5,", "f.yaml: clients 'users': total is for closed loop (concurrency)"),
            Arguments.of("persistent: true}", "persistent: true, total: 0}", "f.yaml:13: clients[0].total: must be 1-1000000000, was 0"));
    }

    @ParameterizedTest
    @MethodSource("badInputs")
    void badInputIsOneLineNamingTheField(String from, String to, String message) {
        RefusedFleetFiles.assertRefused(RefusedFleetFiles.edit(FULL, from, to), "f.yaml").hasMessage(message);
    }

    @Test
    void notYamlAndMissingFilesAreOneLine() {
        assertThatThrownBy(() -> FleetSpecReader.parse("a: [", "x.yaml")).isInstanceOf(InvalidInputException.class)
                .hasMessageStartingWith("x.yaml:").hasMessageContaining(": not valid YAML: ").hasMessageNotContaining("\n");
        // one YAML reading for every input: a key written twice was kept last-wins without a word
        assertThatThrownBy(() -> FleetSpecReader.parse(FULL + "replicas: 3\n", "x.yaml")).isInstanceOf(InvalidInputException.class)
                .hasMessageContaining("key 'replicas' is written twice in one mapping");
        assertThatThrownBy(() -> FleetSpecReader.parse("- 1\n- 2\n", "x.yaml")).isInstanceOf(InvalidInputException.class)
                .hasMessage("x.yaml: expected a YAML mapping with replicas, duration, replica, probes, clients");
        assertThatThrownBy(() -> FleetSpecReader.read(Path.of("/nonexistent/fleet.yaml"))).isInstanceOf(InvalidInputException.class)
                .hasMessage("/nonexistent/fleet.yaml: cannot read: no such file");
    }

    @Test
    void expectationsParseAndCompare() {
        FleetExpectation e = FleetExpectation.parse("client errors < 1%");
        assertThat(e.holds(0.5)).isTrue();
        assertThat(e.holds(1)).isFalse();
        assertThat(FleetExpectation.parse("endpoints > 0 always").holds(0)).isFalse();
        assertThat(FleetExpectation.parse("zero-endpoint seconds<=5").holds(5)).isTrue();
        assertThatThrownBy(() -> FleetExpectation.parse("client errors < 1")).hasMessageContaining("percentage");
        assertThatThrownBy(() -> FleetExpectation.parse("restarts < 1%")).hasMessageContaining("only client errors and new version errors take a %");
    }
}
