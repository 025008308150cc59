package dev.vitals.kubesim.lint;

import dev.vitals.kubesim.Rig;
import dev.vitals.kubesim.manifest.ManifestReader;
import dev.vitals.kubesim.model.PodSpec;
import dev.vitals.kubesim.model.ProbeHandler;
import dev.vitals.kubesim.model.ProbeSpec;
import dev.vitals.kubesim.model.ProbeType;
import dev.vitals.kubesim.probe.ScriptedProbes;

import static dev.vitals.kubesim.model.ProbeType.LIVENESS;
import static dev.vitals.kubesim.model.ProbeType.READINESS;
import static dev.vitals.kubesim.model.ProbeType.STARTUP;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** {@code vitals lint} findings, and lint and simulate agreeing on kill times. */
class LintTest {
    private static ProbeSpec http(ProbeType t, String path, int delay, int period, int timeout, int failure) {
        return new ProbeSpec(t, new ProbeHandler.HttpGet(Optional.empty(), ProbeHandler.PortRef.of(8080), path, "HTTP", List.of()),
                delay, timeout, period, 1, failure, OptionalLong.empty());
    }

    private static List<String> ids(List<Lint.Finding> f) {
        return f.stream().map(Lint.Finding::id).collect(java.util.stream.Collectors.toList());
    }

    @Test
    void c11_lintAndSimulatePredictTheSameKillTime() {
        // case C11: startup 5 min; liveness delay 30 s, period 10 s, threshold 3, no startup probe
        String yaml = "kind: Deployment\nmetadata: {name: migrate}\nspec:\n  template:\n    spec:\n      containers:\n"
                + "      - name: app\n        livenessProbe:\n          httpGet: {path: /livez, port: 8080}\n"
                + "          initialDelaySeconds: 30\n          periodSeconds: 10\n          failureThreshold: 3\n";
        List<Lint.Finding> findings = Lint.lint(ManifestReader.parse(yaml, "c11.yaml"), Optional.empty(),
                Optional.of(Duration.ofMinutes(5)));
        assertThat(ids(findings)).contains(Lint.MISSING_STARTUP, Lint.STARTUP_BUDGET);
        Lint.Finding budget = findings.stream().filter(f -> f.id().equals(Lint.STARTUP_BUDGET)).findFirst().orElseThrow();
        assertThat(budget.message()).contains("killed by the liveness probe at 60.0s").contains("first probe at 40.0s");
        assertThat(budget.rules()).contains("C11");
        assertThat(budget.fix()).contains("startupProbe").contains("failureThreshold 45");

        // simulate, on the same virtual clock, with an app that refuses connections for 300 s
        PodSpec pod = ManifestReader.parse(yaml, "c11.yaml").select(Optional.empty()).toPodSpec();
        Rig rig = new Rig();
        rig.run(pod, 70, (p, i, s, t) -> s < 300 ? ScriptedProbes.fail() : ScriptedProbes.ok());
        assertThat(rig.result.killTimes().get(0)).isCloseTo(Lint.predictKill(pod, Duration.ofMinutes(5)).killAt().get(),
                within(1e-9)).isCloseTo(60.0, within(0.01));
    }

    @Test
    void c11_theSuggestedStartupProbeFixesIt() {
        ProbeSpec live = http(LIVENESS, "/livez", 0, 10, 1, 3);
        ProbeSpec start = http(STARTUP, "/livez", 0, 10, 1, 45);
        PodSpec fixed = PodSpec.of("app", Map.of(), Optional.of(start), Optional.of(live), Optional.empty());
        assertThat(Lint.predictKill(fixed, Duration.ofMinutes(5)).killAt()).isEmpty();
        assertThat(ids(Lint.lint(fixed, "app", Optional.of(Duration.ofMinutes(5))))).isEmpty();
    }

    @Test
    void sameEndpointForLivenessAndReadiness() {
        PodSpec pod = PodSpec.of("app", Map.of(), Optional.empty(), Optional.of(http(LIVENESS, "/health", 0, 10, 1, 3)),
                Optional.of(http(READINESS, "/health?verbose", 0, 5, 1, 3)));
        List<Lint.Finding> f = Lint.lint(pod, "app", Optional.empty());
        assertThat(ids(f)).contains(Lint.SAME_ENDPOINT);
        assertThat(f.get(0).fix()).contains("/livez").contains("/readyz");
    }

    @Test
    void livenessTimeoutShorterThanReadiness() {
        PodSpec pod = PodSpec.of("app", Map.of(), Optional.empty(), Optional.of(http(LIVENESS, "/livez", 0, 10, 1, 6)),
                Optional.of(http(READINESS, "/readyz", 0, 5, 3, 3)));
        assertThat(ids(Lint.lint(pod, "app", Optional.empty()))).containsExactly(Lint.LIVENESS_TIMEOUT);
    }

    @Test
    void restartBeforeReadinessCanShedTraffic() {
        // liveness kills after 3 × 5 = 15 s; readiness needs 3 × 10 = 30 s to shed
        PodSpec pod = PodSpec.of("app", Map.of(), Optional.empty(), Optional.of(http(LIVENESS, "/livez", 0, 5, 1, 3)),
                Optional.of(http(READINESS, "/readyz", 0, 10, 1, 3)));
        List<Lint.Finding> f = Lint.lint(pod, "app", Optional.empty());
        assertThat(ids(f)).containsExactly(Lint.RESTART_BEFORE_SHED);
        assertThat(f.get(0).message()).contains("15s").contains("30s");
        PodSpec ok = PodSpec.of("app", Map.of(), Optional.empty(), Optional.of(http(LIVENESS, "/livez", 0, 10, 1, 3)),
                Optional.of(http(READINESS, "/readyz", 0, 5, 1, 3)));
        assertThat(Lint.lint(ok, "app", Optional.empty())).isEmpty();
    }

    @Test
    void valuesTheApiServerWouldRejectAreErrorsWithTheRule() {
        String yaml = "kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: app\n    livenessProbe:\n"
                + "      httpGet: {path: /livez, port: 8080}\n      successThreshold: 2\n    readinessProbe:\n"
                + "      tcpSocket: {port: 8080}\n      terminationGracePeriodSeconds: 10\n";
        List<Lint.Finding> f = Lint.lint(ManifestReader.parse(yaml, "p.yaml"), Optional.empty(), Optional.empty());
        assertThat(ids(f)).containsExactly("R9", "R10");
        assertThat(f).allMatch(x -> x.severity().equals("error") && !x.fix().isEmpty());
    }

    @Test
    void startupBudgetFindingUsesTheStartupProbeWhenThereIsOne() {
        PodSpec pod = PodSpec.of("app", Map.of(), Optional.of(http(STARTUP, "/livez", 0, 5, 1, 6)),
                Optional.of(http(LIVENESS, "/livez", 0, 10, 1, 3)), Optional.empty());
        List<Lint.Finding> f = Lint.lint(pod, "app", Optional.of(Duration.ofSeconds(60)));
        assertThat(ids(f)).containsExactly(Lint.STARTUP_BUDGET);
        assertThat(f.get(0).message()).contains("startup probe at 30.0s"); // R33: FT × P = 6 × 5
    }
}
