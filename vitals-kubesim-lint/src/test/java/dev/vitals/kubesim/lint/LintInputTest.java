package dev.vitals.kubesim.lint;

import static dev.vitals.kubesim.lint.Manifests.deployment;
import static dev.vitals.kubesim.lint.Manifests.lint;
import static dev.vitals.kubesim.lint.Manifests.only;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The input forms: files, directories, standard input, strict YAML, templates, sizes. */
class LintInputTest {
    private static final String PROBES = "        env: [{name: JAVA_TOOL_OPTIONS, value: -Xmx1g}]\n        ports:\n        - containerPort: 8080\n"
            + "        livenessProbe:\n          httpGet: {path: /health, port: 8080}\n"
            + "        readinessProbe:\n          httpGet: {path: /health, port: 8080}\n";
    private static final String CRD = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n"
            + "metadata: {name: prometheuses.monitoring.coreos.com}\nspec:\n  group: monitoring.coreos.com\n";

    private static LintReport run(List<LintInput> inputs) {
        return new Linter(Rules.all(), LintContext.empty(), Optional.empty()).lint(inputs);
    }

    @Test
    void directoriesAreWalkedForYamlYmlAndJsonOnlySkippingHiddenOnes(@TempDir Path dir) throws Exception {
        Files.createDirectories(dir.resolve("base/nested"));
        Files.createDirectories(dir.resolve(".git"));
        Files.writeString(dir.resolve("base/a.yaml"), deployment(PROBES));
        Files.writeString(dir.resolve("base/nested/b.yml"), deployment("other", 2, PROBES));
        Files.writeString(dir.resolve("base/c.json"), "{\"apiVersion\": \"v1\", \"kind\": \"Pod\", \"metadata\": {\"name\": \"p\"},"
                + " \"spec\": {\"containers\": [{\"name\": \"app\", \"image\": \"x\"}]}}");
        Files.writeString(dir.resolve("base/README.md"), "not a manifest {{ x }}");
        Files.writeString(dir.resolve(".git/config.yaml"), "[[[ not yaml");
        List<LintInput> inputs = LintInput.collect(List.of(dir.toString()), new ByteArrayInputStream(new byte[0]));
        assertThat(inputs).extracting(LintInput::name).containsExactly(dir.resolve("base/a.yaml").toString(),
                dir.resolve("base/c.json").toString(), dir.resolve("base/nested/b.yml").toString());
        LintReport r = run(inputs);
        assertThat(r.workloads()).isEqualTo(3);
        assertThat(r.errors()).isEmpty();
        assertThat(Manifests.rules(r)).contains("L1");
    }

    @Test
    void standardInputIsOneInputNamedDash() {
        byte[] bytes = ("---\n" + deployment(PROBES) + "---\n" + CRD).getBytes(StandardCharsets.UTF_8);
        List<LintInput> inputs = LintInput.collect(List.of("-"), new ByteArrayInputStream(bytes));
        LintReport r = run(inputs);
        assertThat(r.files()).singleElement().satisfies(f -> {
            assertThat(f.name()).isEqualTo("-");
            assertThat(f.workloads()).isEqualTo(1);
            assertThat(f.otherKinds()).containsEntry("CustomResourceDefinition", 1);
        });
        assertThat(r.findings()).allSatisfy(f -> assertThat(f.file()).isEqualTo("-"));
        assertThatThrownBy(() -> LintInput.collect(List.of("-", "-"), new ByteArrayInputStream(bytes)))
                .hasMessageContaining("given twice");
    }

    @Test
    void missingPathsAndEmptyDirectoriesAreBadInput(@TempDir Path dir) {
        assertThatThrownBy(() -> LintInput.collect(List.of(dir.resolve("nope.yaml").toString()), System.in))
                .isInstanceOf(dev.vitals.kubesim.input.InvalidInputException.class).hasMessageEndingWith("nope.yaml: no such file or directory");
        assertThatThrownBy(() -> LintInput.collect(List.of(dir.toString()), System.in))
                .hasMessageContaining("no *.yaml, *.yml or *.json files");
        assertThatThrownBy(() -> LintInput.collect(List.of(), System.in)).hasMessageContaining("no input");
    }

    @Test
    void aFileOfCustomResourcesOnlyHasNoWorkloadsAndIsNoError() {
        String prometheusCr = "apiVersion: monitoring.coreos.com/v1\nkind: Prometheus\nmetadata: {name: k8s}\nspec:\n  replicas: 2\n";
        LintReport r = run(List.of(LintInput.text("crds.yaml", CRD + "---\n" + CRD + "---\n" + prometheusCr)));
        assertThat(r.errors()).isEmpty();
        assertThat(r.exitCode(Optional.of(Severity.WARNING))).isZero();
        assertThat(r.files().get(0).otherKinds()).containsEntry("CustomResourceDefinition", 2).containsEntry("Prometheus", 1);
        StringWriterOut out = new StringWriterOut();
        LintFormat.TEXT.write(r, Optional.of(Severity.ERROR), "test", out);
        assertThat(out.toString()).contains("crds.yaml: no workloads (CustomResourceDefinition ×2, Prometheus)");
    }

    @Test
    void aFileThatIsNotUtf8TextSaysSo(@TempDir Path dir) throws Exception {
        // found by QA: a binary file gave "bin.yaml: cannot read: Input length = 1"
        Path bin = Files.write(dir.resolve("bin.yaml"), new byte[] {'a', ':', ' ', (byte) 0xff, (byte) 0xfe, '\n'});
        LintReport r = run(LintInput.collect(List.of(bin.toString()), System.in));
        assertThat(r.files()).singleElement().satisfies(f -> assertThat(f.error()).hasValueSatisfying(e ->
                assertThat(e).contains("not UTF-8 text").doesNotContain("Input length")));
    }

    @Test
    void aPipeOrDeviceNamedOnTheCommandLineIsRead() {
        // found by QA: 'vitals lint <(helm template ...)' said "/dev/fd/63: no such file or directory",
        // and so did /dev/null: only regular files were accepted
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.exists(Path.of("/dev/null")));
        // read, and empty: with --allow-empty it holds nothing; without, an empty named input is bad input (issue 36)
        LintReport r = new Linter(Rules.all(), LintContext.empty(), Optional.empty()).allowEmpty(true)
                .lint(LintInput.collect(List.of("/dev/null"), System.in));
        assertThat(r.errors()).isEmpty();
        assertThat(r.files()).singleElement().satisfies(f -> assertThat(f.workloads()).isZero());
        assertThat(run(LintInput.collect(List.of("/dev/null"), System.in)).errors()).singleElement()
                .satisfies(f -> assertThat(f.error().orElseThrow()).isEqualTo("/dev/null: not a Kubernetes manifest: no documents;"
                        + " --allow-empty accepts an input without objects"));
    }

    @Test
    void aJsonPatchListInADirectoryIsNotAWorkloadAndNotAnError() {
        LintReport r = run(List.of(LintInput.text("patch.yaml", "- op: replace\n  path: /apiVersion\n  value: policy/v1\n")));
        assertThat(r.errors()).isEmpty();
        assertThat(r.files().get(0).otherKinds()).containsKey("not an object: array");
    }

    @Test
    void aKeyOverridingAMergeKeyIsNoDuplicate() {
        // found by QA: '<<: *p' then 'periodSeconds: 5' was an error Y1 naming the anchor's line;
        // YAML's merge lets explicit keys override merged ones (go-yaml, kubectl accept it)
        String merged = deployment("        livenessProbe: &p\n          httpGet: {path: /livez, port: 8080}\n"
                + "          periodSeconds: 10\n"
                + "        readinessProbe:\n          <<: *p\n          periodSeconds: 5\n");
        assertThat(lint(merged).findings()).noneMatch(f -> f.rule().equals("Y1"));
        String twice = deployment("        livenessProbe: &p\n          httpGet: {path: /livez, port: 8080}\n"
                + "          periodSeconds: 10\n"
                + "        readinessProbe:\n          <<: *p\n          periodSeconds: 5\n          periodSeconds: 6\n");
        assertThat(only(lint(twice), "Y1").message()).contains("periodSeconds");
    }

    @Test
    void duplicateKeysAreAnErrorNamingBothLines() {
        String dup = deployment("        livenessProbe:\n          httpGet: {path: /livez, port: 8080}\n"
                + "        readinessProbe:\n          httpGet: {path: /readyz, port: 8080}\n"
                + "        livenessProbe:\n          tcpSocket: {port: 8080}\n");
        Finding f = only(lint(dup), "Y1");
        assertThat(f.severity()).isEqualTo(Severity.ERROR);
        assertThat(f.line()).isEqualTo(20);
        assertThat(f.message()).contains("'livenessProbe' is written twice").contains("lines 16 and 20");
        assertThat(f.object()).isEqualTo("Deployment/web");
    }

    @Test
    void aHelmTemplateGetsOneLineSayingToRenderItFirst() {
        String chart = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ include \"app.fullname\" . }}\n"
                + "spec:\n  {{- if not .Values.autoscaling.enabled }}\n  replicas: {{ .Values.replicaCount }}\n  {{- end }}\n";
        LintReport r = run(List.of(LintInput.text("templates/deployment.yaml", chart)));
        assertThat(r.errors()).singleElement().satisfies(e -> assertThat(e.error().get())
                .isEqualTo("templates/deployment.yaml:4: looks like a Helm/Go template ('{{' at line 4), not a manifest:"
                        + " render it first, e.g. helm template RELEASE CHART | vitals lint -"));
        assertThat(r.exitCode(Optional.of(Severity.ERROR))).isEqualTo(2);
    }

    @Test
    void invalidYamlIsOneLineWithItsLine() {
        LintReport r = run(List.of(LintInput.text("bad.yaml", "kind: Pod\nspec:\n  containers: [\n")));
        String e = r.errors().get(0).error().get();
        assertThat(e).startsWith("bad.yaml:").contains("not valid YAML").doesNotContain("\n");
    }

    @Test
    void badFilesDoNotStopTheOthers() {
        LintReport r = run(List.of(LintInput.text("bad.yaml", "a: [\n"), LintInput.text("good.yaml", deployment(PROBES))));
        assertThat(r.errors()).hasSize(1);
        assertThat(Manifests.rules(r)).contains("L1");
        assertThat(r.exitCode(Optional.of(Severity.ERROR))).isEqualTo(2);
    }

    @Test
    void oneDocumentLargerThanThreeMegabytesIsRead() {
        // a ConfigMap of ≈ 4 MB beside a workload (snakeyaml's default code point limit is 3 MB)
        StringBuilder big = new StringBuilder("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata:\n");
        String line = "x".repeat(100);
        for (int i = 0; i < 40_000; i++) {
            big.append("  k").append(i).append(": ").append(line).append('\n');
        }
        LintReport r = run(List.of(LintInput.text("big.yaml", big + "---\n" + deployment(PROBES))));
        assertThat(r.errors()).isEmpty();
        assertThat(r.workloads()).isEqualTo(1);
        Finding l1 = only(r, "L1");
        assertThat(l1.line()).isEqualTo(40_005 + 20);
    }

    @Test
    void aliasBombsAreRefusedNotExpanded() {
        StringBuilder b = new StringBuilder("a: &a [x, x, x, x, x, x, x, x, x, x]\n");
        char prev = 'a';
        for (char c = 'b'; c <= 'j'; c++) {
            b.append(c).append(": &").append(c).append(" [");
            for (int i = 0; i < 10; i++) {
                b.append(i == 0 ? "" : ", ").append('*').append(prev);
            }
            b.append("]\n");
            prev = c;
        }
        LintReport r = run(List.of(LintInput.text("bomb.yaml", b.toString())));
        assertThat(r.errors()).singleElement().satisfies(e -> assertThat(e.error().get()).contains("bomb.yaml"));
    }

    @Test
    void listsAndCronJobsAndMultiDocumentStreamsAreRead() {
        String list = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: a}\n  spec:\n"
                + "    containers:\n    - name: app\n      image: x\n";
        String cron = "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: nightly}\nspec:\n  schedule: '0 1 * * *'\n"
                + "  jobTemplate:\n    spec:\n      template:\n        spec:\n          containers:\n          - name: job\n"
                + "            image: x\n            livenessProbe:\n              exec: {command: [sh, -c, 'cat /tmp/ok']}\n";
        LintReport r = run(List.of(LintInput.text("all.yaml", list + "---\n" + cron)));
        assertThat(r.workloads()).isEqualTo(2);
        assertThat(only(r, "L6").object()).isEqualTo("CronJob/nightly");
    }

    /** A StringWriter under a shorter name. */
    static final class StringWriterOut extends java.io.StringWriter {
    }
}
