package dev.vitals.kubesim.lint;

import static dev.vitals.kubesim.lint.Manifests.jvm;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.StringWriter;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The ignore annotation: silences one rule on one object with a reason, in every format; one that silences nothing is said. */
class SuppressionsTest {
    /** Liveness and readiness on one endpoint of a JVM a Service selects: findings whose premises hold. */
    private static final String SHARED = jvm("        ports:\n        - containerPort: 8080\n"
            + "        livenessProbe:\n          httpGet: {path: /health, port: 8080}\n"
            + "        readinessProbe:\n          httpGet: {path: /health, port: 8080}\n");

    private static LintReport lint(String manifest) {
        return new Linter(Rules.all(), LintContext.empty(), Optional.empty()).lint(List.of(LintInput.text("deploy.yaml",
                manifest)));
    }

    private static String annotated(String annotations) {
        // the Deployment's metadata (the first one; the Service after it has the same name)
        return SHARED.replaceFirst("metadata:\n  name: web\n", java.util.regex.Matcher.quoteReplacement(
                "metadata:\n  name: web\n  annotations:\n" + annotations));
    }

    @Test
    void aSilencedFindingIsASarifResultWithAnInSourceSuppression() throws Exception {
        String rule = lint(SHARED).findings().get(0).rule();
        LintReport r = lint(annotated("    " + Linter.IGNORE_PREFIX + rule + ": \"one endpoint on purpose\"\n"));
        assertThat(r.findings()).extracting(Finding::rule).doesNotContain(rule);
        assertThat(r.notices()).isEmpty();
        StringWriter sarif = new StringWriter();
        LintFormat.SARIF.write(r, Optional.of(Severity.ERROR), "t", sarif);
        var results = new ObjectMapper().readTree(sarif.toString()).path("runs").get(0).path("results");
        var silenced = new java.util.ArrayList<com.fasterxml.jackson.databind.JsonNode>();
        results.forEach(n -> {
            if (n.path("ruleId").asText().equals(rule)) {
                silenced.add(n);
            }
        });
        assertThat(silenced).singleElement().satisfies(n -> {
            assertThat(n.path("suppressions").get(0).path("kind").asText()).isEqualTo("inSource");
            assertThat(n.path("suppressions").get(0).path("justification").asText())
                    .isEqualTo(Linter.IGNORE_PREFIX + rule + ": one endpoint on purpose");
        });
    }

    @Test
    void anAnnotationThatSilencesNothingIsReportedWithItsLine() throws Exception {
        Rule known = Rules.all().get(Rules.all().size() - 1);
        String yaml = annotated("    " + Linter.IGNORE_PREFIX + "no-such-rule: \"typo\"\n"
                + "    " + Linter.IGNORE_PREFIX + known.id() + ": \"\"\n");
        LintReport r = lint(yaml);
        assertThat(r.suppressed()).isEmpty();
        assertThat(r.findings()).hasSameSizeAs(lint(SHARED).findings());
        assertThat(r.notices()).containsExactly(
                "deploy.yaml:6: Deployment/web: annotation " + Linter.IGNORE_PREFIX + "no-such-rule names no rule (rules: "
                        + Rules.ids() + "): it silences nothing",
                "deploy.yaml:7: Deployment/web: annotation " + Linter.IGNORE_PREFIX + known.id() + " has no reason: it silences"
                        + " nothing (the value is the reason, e.g. \"" + Linter.IGNORE_PREFIX + known.id()
                        + ": probes share /health on purpose: it checks nothing remote\")");
        StringWriter text = new StringWriter();
        LintFormat.TEXT.write(r, Optional.of(Severity.ERROR), "t", text);
        assertThat(text.toString()).contains(r.notices().get(0) + "\n").contains(r.notices().get(1) + "\n");
        StringWriter json = new StringWriter();
        LintFormat.JSON.write(r, Optional.of(Severity.ERROR), "t", json);
        assertThat(new ObjectMapper().readTree(json.toString()).path("notices")).hasSize(2);
    }
}
