package dev.vitals.kubesim.lint;

import static dev.vitals.kubesim.lint.Manifests.jvm;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.vitals.kubesim.input.InvalidInputException;
import dev.vitals.kubesim.model.KubernetesVersion;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code .vitals.yaml}: rules off, severities, the Kubernetes release; applied over the findings by rule id. */
class LintConfigTest {
    /**
     * Liveness and readiness on one endpoint, /, liveness one period longer (equal budgets would be L21's error), in a JVM
     * a Service selects (the rules' premises):
     * findings of two rules (the shared endpoint, the probe on the root page), neither an error, whatever their ids.
     */
    private static final String SHARED = jvm("        ports:\n        - containerPort: 8080\n"
            + "        livenessProbe:\n          httpGet: {path: /, port: 8080}\n          failureThreshold: 4\n"
            + "        readinessProbe:\n          httpGet: {path: /, port: 8080}\n");

    private static LintReport lint(String manifest) {
        return new Linter(Rules.all(), LintContext.empty(), Optional.empty()).lint(List.of(LintInput.text("deploy.yaml",
                manifest)));
    }

    private static Path write(Path dir, String name, String text) throws Exception {
        Path p = dir.resolve(name);
        Files.createDirectories(p.getParent());
        Files.writeString(p, text);
        return p;
    }

    @Test
    void aRuleTurnedOffLeavesTheFindingsAndIsCountedAndARemappedSeverityIsApplied(@TempDir Path dir) throws Exception {
        LintReport plain = lint(SHARED);
        assertThat(plain.findings()).hasSizeGreaterThanOrEqualTo(2);
        String off = plain.findings().get(0).rule();
        String raised = plain.findings().stream().map(Finding::rule).filter(r -> !r.equals(off)).findFirst().orElseThrow();
        // the second rule named by its name, not its id: both forms resolve to the rule
        Path cfg = write(dir, ".vitals.yaml", "rules:\n  " + off + ": off\n  " + Rules.find(raised).name() + ": error\n");
        LintConfig c = LintConfig.load(cfg);
        LintReport r = c.apply(plain);
        assertThat(r.findings()).extracting(Finding::rule).doesNotContain(off).contains(raised);
        assertThat(r.findings()).filteredOn(f -> f.rule().equals(raised)).allSatisfy(f ->
                assertThat(f.severity()).isEqualTo(Severity.ERROR));
        assertThat(r.disabled()).isNotEmpty().allSatisfy(f -> assertThat(f.rule()).isEqualTo(off));
        assertThat(r.exitCode(Optional.of(Severity.ERROR))).isEqualTo(1);
        assertThat(plain.exitCode(Optional.of(Severity.ERROR))).isZero();

        // nothing silenced invisibly: text, JSON and SARIF say what the file changed
        StringWriter text = new StringWriter();
        LintFormat.TEXT.write(r, Optional.of(Severity.ERROR), "test", text);
        assertThat(text.toString()).contains("config " + cfg + ": " + off + " off, " + raised + " error (not shown: "
                + off + ": " + r.disabled().size()).contains(r.disabled().size() + " off by config");
        StringWriter json = new StringWriter();
        LintFormat.JSON.write(r, Optional.of(Severity.ERROR), "test", json);
        JsonNode j = new ObjectMapper().readTree(json.toString());
        assertThat(j.path("summary").path("offByConfig").asInt()).isEqualTo(r.disabled().size());
        assertThat(j.path("config").path("rules").path(off).asText()).isEqualTo("off");
        assertThat(j.path("offByConfig").get(0).path("rule").asText()).isEqualTo(off);
        StringWriter sarif = new StringWriter();
        LintFormat.SARIF.write(r, Optional.of(Severity.ERROR), "test", sarif);
        JsonNode s = new ObjectMapper().readTree(sarif.toString()).path("runs").get(0);
        JsonNode suppressedResult = null;
        for (JsonNode res : s.path("results")) {
            if (res.path("ruleId").asText().equals(off)) {
                suppressedResult = res;
            }
        }
        assertThat(suppressedResult).isNotNull();
        assertThat(suppressedResult.path("suppressions").get(0).path("kind").asText()).isEqualTo("external");
        assertThat(suppressedResult.path("suppressions").get(0).path("justification").asText()).contains(".vitals.yaml");
        for (JsonNode rule : s.path("tool").path("driver").path("rules")) {
            if (rule.path("id").asText().equals(raised)) {
                assertThat(rule.path("defaultConfiguration").path("level").asText()).isEqualTo("error");
            }
            if (rule.path("id").asText().equals(off)) {
                assertThat(rule.path("defaultConfiguration").path("enabled").asBoolean()).isFalse();
            }
        }
    }

    @Test
    void theFileIsFoundUpwardFromTheFirstInputAndTheFlagWins(@TempDir Path dir) throws Exception {
        Path cfg = write(dir, ".vitals.yaml", "kubernetesVersion: \"1.33\"\n");
        Path m = write(dir, "k8s/apps/deploy.yaml", SHARED);
        assertThat(LintConfig.find(m)).contains(cfg);
        assertThat(LintConfig.find(m.getParent())).contains(cfg);
        LintConfig found = LintConfig.discover(List.of(m.toString()), Optional.empty());
        assertThat(found.file()).contains(cfg);
        assertThat(found.kubernetesVersion()).contains(KubernetesVersion.parse("1.33"));
        Path other = write(dir, "other.yaml", "rules: {}\n");
        assertThat(LintConfig.discover(List.of(m.toString()), Optional.of(other)).file()).contains(other);
        assertThat(LintConfig.discover(List.of(m.toString()), Optional.of(other)).kubernetesVersion()).isEmpty();
    }

    @Test
    void badSettingsAreOneLineWithFileAndLine(@TempDir Path dir) throws Exception {
        String id = Rules.all().get(Rules.all().size() - 1).id();
        assertThatThrownBy(() -> LintConfig.load(write(dir, "a.yaml", "rules:\n  " + id + ": off\n  NOPE9: off\n")))
                .isInstanceOf(InvalidInputException.class).hasMessageStartingWith(dir.resolve("a.yaml") + ":3: unknown rule 'NOPE9'");
        assertThatThrownBy(() -> LintConfig.load(write(dir, "b.yaml", "rules:\n  " + id + ": loud\n")))
                .hasMessageStartingWith(dir.resolve("b.yaml") + ":2: rule " + id + ": 'loud' is not off or a severity");
        assertThatThrownBy(() -> LintConfig.load(write(dir, "c.yaml", "rule:\n  " + id + ": off\n")))
                .hasMessageStartingWith(dir.resolve("c.yaml") + ":1: unknown key 'rule'");
        // unquoted 1.30 is the number 1.3 to YAML: the line says to quote it
        assertThatThrownBy(() -> LintConfig.load(write(dir, "n.yaml", "kubernetesVersion: 1.30\n")))
                .isInstanceOf(InvalidInputException.class)
                .hasMessageStartingWith(dir.resolve("n.yaml") + ":1: kubernetesVersion: YAML reads the unquoted 1.3 as a number")
                .hasMessageContaining("quote it, e.g. kubernetesVersion: \"1.30\"");
        assertThatThrownBy(() -> LintConfig.load(write(dir, "d.yaml", "kubernetesVersion: two\n")))
                .hasMessageStartingWith(dir.resolve("d.yaml") + ":1: kubernetesVersion: 'two' is not a release");
        assertThatThrownBy(() -> LintConfig.load(write(dir, "e.yaml", "rules:\n  " + id + ": off\n  "
                + Rules.find(id).name() + ": error\n"))).hasMessageStartingWith(dir.resolve("e.yaml") + ":3: rule " + id
                + " is set twice (lines 2 and 3)");
        assertThatThrownBy(() -> LintConfig.load(write(dir, "f.yaml", "rules: [" + id + "]\n")))
                .hasMessageStartingWith(dir.resolve("f.yaml") + ":1: rules is a mapping");
        assertThatThrownBy(() -> LintConfig.load(write(dir, "g.yaml", "rules:\n  " + id + ": off\n  " + id + ": error\n")))
                .hasMessageContaining("g.yaml:3:");
        assertThatThrownBy(() -> LintConfig.load(dir.resolve("missing.yaml"))).hasMessageContaining("no such file");
        assertThat(LintConfig.load(write(dir, "empty.yaml", "")).describe()).endsWith("(no settings)");
    }
}
