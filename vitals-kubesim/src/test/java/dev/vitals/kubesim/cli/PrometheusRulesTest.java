package dev.vitals.kubesim.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

/**
 * The shipped Prometheus rules (prometheus/, docs/alerts.md): the PrometheusRule manifest holds
 * exactly the groups of the plain rule file, and {@code vitals lint} reads it as any manifest —
 * counted as another kind, no finding, exit 0 even with {@code --fail-on warning}.
 */
class PrometheusRulesTest {
    private static final Path DIR = Path.of("..", "prometheus");

    @SuppressWarnings("unchecked")
    private static Map<String, Object> load(Path p) throws Exception {
        return (Map<String, Object>) new Load(LoadSettings.builder().build()).loadFromString(Files.readString(p));
    }

    @Test
    @SuppressWarnings("unchecked")
    void theManifestHoldsTheRuleFilesGroupsUnchanged() throws Exception {
        Map<String, Object> rules = load(DIR.resolve("vitals-rules.yaml"));
        Map<String, Object> manifest = load(DIR.resolve("vitals-prometheusrule.yaml"));
        assertThat(manifest).containsEntry("apiVersion", "monitoring.coreos.com/v1").containsEntry("kind", "PrometheusRule");
        assertThat(((Map<String, Object>) manifest.get("spec")).get("groups")).isEqualTo(rules.get("groups"));
        assertThat(rules.get("groups").toString()).contains("alert=VitalsCheckTimingOut", "alert=VitalsPoolStalled",
                "alert=VitalsReadinessFlapping", "alert=VitalsDrainStuck");
    }

    @Test
    void vitalsLintAcceptsThePrometheusRuleManifest() {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = VitalsCommand.execute(new PrintWriter(out, true), new PrintWriter(err, true),
                "lint", DIR.resolve("vitals-prometheusrule.yaml").toString(), "--fail-on", "warning");
        assertThat(code).as(out + "\n" + err).isZero();
        assertThat(out.toString()).contains("vitals-prometheusrule.yaml: no workloads (PrometheusRule)");
        assertThat(err.toString()).isEmpty();
    }
}
