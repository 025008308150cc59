package dev.vitals.kubesim.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
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


    /**
     * Every alert of the rule file has a promtool test that expects it firing and one that
     * expects it silent, a runbook section in docs/alerts.md and a runbook_url to that section.
     */
    @Test
    @SuppressWarnings("unchecked")
    void everyAlertIsTestedFiringAndSilentAndHasARunbook() throws Exception {
        List<Map<String, Object>> alerts = new ArrayList<>();
        for (Map<String, Object> g : (List<Map<String, Object>>) load(DIR.resolve("vitals-rules.yaml")).get("groups")) {
            for (Map<String, Object> r : (List<Map<String, Object>>) g.get("rules")) {
                if (r.containsKey("alert")) {
                    alerts.add(r);
                }
            }
        }
        Set<String> firing = new HashSet<>();
        Set<String> silent = new HashSet<>();
        for (Map<String, Object> t : (List<Map<String, Object>>) load(DIR.resolve("vitals-rules.test.yaml")).get("tests")) {
            for (Map<String, Object> a : (List<Map<String, Object>>) t.getOrDefault("alert_rule_test", List.of())) {
                List<?> expected = (List<?>) a.get("exp_alerts");
                (expected == null || expected.isEmpty() ? silent : firing).add((String) a.get("alertname"));
            }
        }
        String runbooks = Files.readString(Path.of("..", "docs", "alerts.md"));
        assertThat(alerts).hasSizeGreaterThanOrEqualTo(8);
        for (Map<String, Object> r : alerts) {
            String name = (String) r.get("alert");
            assertThat(firing).as("a promtool test sees %s fire", name).contains(name);
            assertThat(silent).as("a promtool test sees %s silent", name).contains(name);
            assertThat(runbooks).as("docs/alerts.md section of %s", name).contains("\n## " + name + "\n");
            assertThat(((Map<String, Object>) r.get("annotations")).get("runbook_url"))
                    .isEqualTo("docs/alerts.md#" + name.toLowerCase(Locale.ROOT));
            assertThat(((Map<String, Object>) r.get("labels")).get("severity")).isIn("warning", "critical");
        }
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
