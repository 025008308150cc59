package dev.vitals.kubesim.lint;

import static dev.vitals.kubesim.model.ProbeType.LIVENESS;
import static dev.vitals.kubesim.model.ProbeType.STARTUP;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.vitals.kubesim.Rig;
import dev.vitals.kubesim.manifest.ManifestReader;
import dev.vitals.kubesim.model.PodSpec;
import dev.vitals.kubesim.model.ProbeHandler;
import dev.vitals.kubesim.model.ProbeSpec;
import dev.vitals.kubesim.model.ProbeType;
import dev.vitals.kubesim.probe.ScriptedProbes;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** Lint and simulate agree on kill times; the library entry point. */
class LintTest {

    /** Every rule, as {@code vitals lint} runs them. */
    private static LintReport lint(List<LintInput> inputs, LintContext context) {
        return new Linter(Rules.all(), context, Optional.empty()).lint(inputs);
    }
    private static final String C11 = "kind: Deployment\nmetadata: {name: migrate}\nspec:\n  template:\n    spec:\n      containers:\n"
            + "      - name: app\n        livenessProbe:\n          httpGet: {path: /livez, port: 8080}\n"
            + "          initialDelaySeconds: 30\n          periodSeconds: 10\n          failureThreshold: 3\n";

    private static ProbeSpec http(ProbeType t, String path, int delay, int period, int timeout, int failure) {
        return new ProbeSpec(t, new ProbeHandler.HttpGet(Optional.empty(), ProbeHandler.PortRef.of(8080), path, "HTTP", List.of()),
                delay, timeout, period, 1, failure, OptionalLong.empty());
    }

    @Test
    void c11_lintAndSimulatePredictTheSameKillTime() {
        // case C11: startup 5 min; liveness delay 30 s, period 10 s, threshold 3, no startup probe
        LintReport r = lint(List.of(LintInput.text("c11.yaml", C11)),
                new LintContext(Optional.of(Duration.ofMinutes(5)), Optional.empty(), Map.of()));
        assertThat(Manifests.rules(r)).contains("L2", "L5");
        Finding budget = Manifests.only(r, "L2");
        assertThat(budget.message()).contains("killed by the liveness probe at 60.0s").contains("first probe at 40.0s");
        assertThat(budget.refs()).contains("C11");
        assertThat(budget.fix()).contains("startupProbe").contains("failureThreshold 45");

        // simulate, on the same virtual clock, with an app that refuses connections for 300 s
        PodSpec pod = ManifestReader.parse(C11, "c11.yaml").select(Optional.empty()).toPodSpec();
        Rig rig = new Rig();
        rig.run(pod, 70, (p, i, s, t) -> s < 300 ? ScriptedProbes.fail() : ScriptedProbes.ok());
        assertThat(dev.vitals.kubesim.model.Durations.seconds(rig.result.killsAt().get(0))).isCloseTo(KillPrediction.of(pod, Duration.ofMinutes(5)).killAt().get(),
                within(1e-9)).isCloseTo(60.0, within(0.01));
    }

    @Test
    void c11_theSuggestedStartupProbeFixesIt() {
        ProbeSpec live = http(LIVENESS, "/livez", 0, 10, 1, 3);
        ProbeSpec start = http(STARTUP, "/livez", 0, 10, 1, 45);
        PodSpec fixed = PodSpec.of("app", Map.of(), Optional.of(start), Optional.of(live), Optional.empty());
        assertThat(KillPrediction.of(fixed, Duration.ofMinutes(5)).killAt()).isEmpty();
        String yaml = C11.replace("          initialDelaySeconds: 30\n", "")
                + "        startupProbe:\n          httpGet: {path: /livez, port: 8080}\n          periodSeconds: 10\n"
                + "          failureThreshold: 45\n";
        LintReport r = lint(List.of(LintInput.text("fixed.yaml", yaml)),
                new LintContext(Optional.of(Duration.ofMinutes(5)), Optional.empty(), Map.of()));
        assertThat(r.findings()).isEmpty();
    }

    @Test
    void valuesTheApiServerWouldRejectAreErrorsWithTheRule() {
        String yaml = "kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: app\n    livenessProbe:\n"
                + "      httpGet: {path: /livez, port: 8080}\n      successThreshold: 2\n    readinessProbe:\n"
                + "      tcpSocket: {port: 8080}\n      terminationGracePeriodSeconds: 10\n";
        LintReport r = lint(List.of(LintInput.text("p.yaml", yaml)), LintContext.empty());
        assertThat(r.findings()).extracting(Finding::refs).containsExactly("R9", "R10");
        assertThat(r.findings()).extracting(Finding::line).containsExactly(8, 11);
        assertThat(r.findings()).allMatch(x -> x.severity() == Severity.ERROR && !x.fix().isEmpty());
    }
}
