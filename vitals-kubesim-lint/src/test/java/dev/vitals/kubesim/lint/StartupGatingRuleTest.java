package dev.vitals.kubesim.lint;

import static dev.vitals.kubesim.lint.Manifests.deployment;
import static dev.vitals.kubesim.lint.Manifests.lint;
import static dev.vitals.kubesim.lint.Manifests.only;
import static dev.vitals.kubesim.lint.Manifests.rules;
import static org.assertj.core.api.Assertions.assertThat;

import dev.vitals.kubesim.model.KubernetesVersion;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** L27: startup gating that kubernetes#141155 (1.35–1.37) loses after a container restart. */
class StartupGatingRuleTest {
    /** The C11 fix lint itself suggests (L5): startup budget 90 × 5 s, liveness 3 × 10 s from the start. */
    private static final String GATED = "        startupProbe:\n          httpGet: {path: /livez, port: 8080}\n"
            + "          periodSeconds: 5\n          failureThreshold: 90\n"
            + "        livenessProbe:\n          httpGet: {path: /livez, port: 8080}\n          periodSeconds: 10\n";

    private static LintContext on(String version) {
        return new LintContext(Optional.empty(), Optional.empty(), Map.of(), KubernetesVersion.parse(version));
    }

    @Test
    void aNamedAffectedReleaseGetsTheNoteWithBothBudgets() {
        for (String v : new String[] {"1.35", "1.36", "1.37"}) {
            Finding f = only(lint(deployment(GATED), on(v)), "L27");
            assertThat(f.severity()).isEqualTo(Severity.INFO);
            assertThat(f.message()).contains("Kubernetes " + v).contains("kubernetes#141155").contains("liveness allows 30s")
                    .contains("the startupProbe 450s");
            assertThat(f.field()).endsWith("startupProbe");
        }
    }

    @Test
    void silentBefore135ByDefaultAndWhenLivenessAllowsTheWholeStart() {
        assertThat(rules(lint(deployment(GATED), on("1.34")))).doesNotContain("L27");
        assertThat(rules(lint(deployment(GATED)))).as("the default: the documented rules").doesNotContain("L27");
        String patient = GATED.replace("periodSeconds: 10\n", "periodSeconds: 10\n          initialDelaySeconds: 450\n");
        assertThat(rules(lint(deployment(patient), on("1.37")))).doesNotContain("L27");
        String noStartup = "        livenessProbe:\n          httpGet: {path: /livez, port: 8080}\n";
        assertThat(rules(lint(deployment(noStartup), on("1.37")))).doesNotContain("L27");
    }
}
