package dev.vitals.kubesim.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import picocli.CommandLine;

/** {@code vitals lint} as CI runs it: inputs, exit codes, thresholds, rule selection, formats. */
class LintCliTest {
    private static final String SAME = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 2\n"
            + "  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers:\n      - name: app\n"
            + "        image: eclipse-temurin:21-jre\n        ports:\n"
            + "        - containerPort: 8080\n        livenessProbe:\n          httpGet: {path: /health, port: 8080}\n"
            + "          failureThreshold: 4\n" // one period longer than readiness: equal budgets would be L21's error
            + "        readinessProbe:\n          httpGet: {path: /health, port: 8080}\n          timeoutSeconds: 2\n"
            + "---\napiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec:\n  selector: {app: web}\n  ports: [{port: 80, targetPort: 8080}]\n";
    private static final String ERROR = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: app\n"
            + "    image: x\n    livenessProbe:\n      httpGet: {path: /livez, port: 8080}\n      successThreshold: 3\n";
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();
    private byte[] stdin = new byte[0];

    private int run(String... args) {
        CommandLine cl = VitalsCommand.commandLine(new PrintWriter(out, true), new PrintWriter(err, true));
        ((LintCommand) cl.getSubcommands().get("lint").getCommand()).stdin = new ByteArrayInputStream(stdin);
        return cl.execute(args);
    }

    private static Path write(Path dir, String name, String text) throws Exception {
        Path p = dir.resolve(name);
        Files.createDirectories(p.getParent());
        Files.writeString(p, text);
        return p;
    }

    @Test
    void warningsPassByDefaultAndFailWithFailOnWarning(@TempDir Path dir) throws Exception {
        Path m = write(dir, "deploy.yaml", SAME);
        assertThat(run("lint", m.toString())).isZero();
        assertThat(out.toString()).contains(m + ":16: warning L1 same-endpoint: Deployment/web container app:")
                .contains("    fix: ").contains("1 input, 1 workload, 1 container: 0 errors, 2 warnings (fails on error)");
        assertThat(run("lint", "--fail-on", "warning", m.toString())).isEqualTo(1);
        assertThat(run("lint", "--fail-on", "never", write(dir, "e.yaml", ERROR).toString())).isZero();
        assertThat(run("lint", write(dir, "e2.yaml", ERROR).toString())).isEqualTo(1);
    }

    @Test
    void aKustomizeOverlayAloneLintsNothingAndIsBadInputUnlessAllowEmpty(@TempDir Path dir) throws Exception {
        Path overlay = dir.resolve("overlay");
        write(overlay, "kustomization.yaml", "resources: [../base]\npatches:\n- path: probes.yaml\n");
        write(overlay, "probes.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  template:\n"
                + "    spec:\n      containers:\n      - name: app\n        livenessProbe:\n          httpGet: {path: /livez, port: 8080}\n");
        assertThat(run("lint", overlay.toString())).isEqualTo(2);
        assertThat(err.toString()).contains("nothing to lint: every input was skipped (2: ")
                .contains("render it first: kustomize build " + overlay + " | vitals lint -").doesNotContain("\tat ");
        assertThat(err.toString().strip().lines()).hasSize(1);
        err.getBuffer().setLength(0);
        assertThat(run("lint", "--allow-empty", overlay.toString())).isZero();
        assertThat(out.toString()).contains("2 skipped");
        // an overlay beside a real manifest still lints that manifest
        write(overlay, "extra.yaml", SAME);
        assertThat(run("lint", overlay.toString())).isZero();
    }

    @Test
    void anEmptyDirectoryIsBadInputUnlessAllowEmptyThenNothingToLint(@TempDir Path dir) throws Exception {
        Path empty = Files.createDirectories(dir.resolve("empty"));
        assertThat(run("lint", empty.toString())).isEqualTo(2);
        assertThat(err.toString()).contains(empty + ": no *.yaml, *.yml or *.json files in this directory (--allow-empty accepts it)");
        err.getBuffer().setLength(0);
        assertThat(run("lint", "--allow-empty", empty.toString())).isZero();
        assertThat(out.toString()).contains("0 inputs, 0 workloads");
        assertThat(err.toString()).isEmpty();
    }

    @Test
    void listRulesSaysWhatEachRuleNeeds() {
        assertThat(run("lint", "--list-rules")).isZero();
        List<String> lines = out.toString().lines().toList();
        assertThat(lines).anySatisfy(l -> assertThat(l).startsWith("L4 ").endsWith("(needs --app-config and a Service selecting the pod)"));
        assertThat(lines).anySatisfy(l -> assertThat(l).startsWith("L21 ").endsWith("(needs a Service selecting the pod)"));
        assertThat(lines).anySatisfy(l -> assertThat(l).startsWith("L1 ").doesNotContain("(needs"));
    }

    @Test
    void dashFIsKubectlsFilenameFlag(@TempDir Path dir) throws Exception {
        // kubectl vitals lint -f deploy.yaml: kubectl's -f names the input; it prints what the positional form prints
        Path m = write(dir, "deploy.yaml", SAME);
        Path e = write(dir, "e.yaml", ERROR);
        assertThat(run("lint", m.toString(), e.toString())).isEqualTo(1);
        String positional = out.toString();
        out.getBuffer().setLength(0);
        assertThat(run("lint", "-f", m.toString(), "--filename", e.toString())).isEqualTo(1);
        assertThat(out.toString()).isEqualTo(positional).contains("L1 same-endpoint");
        // the flag's old meaning (the format) is a clear usage error, not "cannot read json"
        assertThat(run("lint", "-f", "json", m.toString())).isEqualTo(2);
        assertThat(err.toString().strip()).isEqualTo("error: -f json: no such file; -f is --filename (as in kubectl),"
                + " the report format is --format json");
    }

    @Test
    void aContainerNameThatMatchesNothingIsBadInputNotAGreenRun(@TempDir Path dir) throws Exception {
        // found by QA: --container with a typo linted 0 containers and exited 0
        Path m = write(dir, "deploy.yaml", ERROR);
        assertThat(run("lint", "--container", "ap", m.toString())).isEqualTo(2);
        assertThat(err.toString().strip()).startsWith("error: --container ap: no container of that name")
                .doesNotContain("\n").doesNotContain("Exception");
        err.getBuffer().setLength(0);
        assertThat(run("lint", "--container", "app", m.toString())).isEqualTo(1);
        assertThat(err.toString()).isEmpty();
    }

    @Test
    void disableAndEnableSelectRules(@TempDir Path dir) throws Exception {
        Path m = write(dir, "deploy.yaml", SAME);
        assertThat(run("lint", "--fail-on", "warning", "--disable", "L1,L3", m.toString())).isZero();
        assertThat(out.toString()).contains("0 errors, 0 warnings");
        out.getBuffer().setLength(0);
        assertThat(run("lint", "--enable", "liveness-timeout", m.toString())).isZero();
        assertThat(out.toString()).contains("L3 liveness-timeout").doesNotContain("L1 same-endpoint");
        assertThat(run("lint", "--disable", "L42", m.toString())).isEqualTo(2);
        assertThat(err.toString()).contains("error: --disable: unknown rule 'L42' (rules: api, R22, Y1, I1, L1,");
    }

    @Test
    void anEmptyOrBlankRuleListIsAUsageErrorNotEveryRule(@TempDir Path dir) throws Exception {
        // found by QA: --enable '' ran every rule
        Path m = write(dir, "deploy.yaml", SAME);
        String[][] bad = {{"--enable", ""}, {"--enable", " "}, {"--enable=L4,"}, {"--enable", ",,"}, {"--disable", ""},
            {"--disable", "L4,,L5"}, {"--enable", "L4", "--disable", "restart-before-shed"}, {"--enable", "L4,L99"},
            {"--profile", "", "--app-config", m.toString()}};
        for (String[] b : bad) {
            err.getBuffer().setLength(0);
            out.getBuffer().setLength(0);
            java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("lint"));
            args.addAll(java.util.List.of(b));
            args.add(m.toString());
            assertThat(run(args.toArray(String[]::new))).as(String.join(" ", b)).isEqualTo(2);
            assertThat(err.toString()).as(String.join(" ", b)).startsWith("error: ").endsWith("\n")
                    .doesNotContain("Exception");
            assertThat(err.toString().strip()).as(String.join(" ", b)).doesNotContain("\n");
            assertThat(out.toString()).as("nothing linted: " + String.join(" ", b)).isEmpty();
        }
        err.getBuffer().setLength(0);
        run("lint", "--enable", "", m.toString());
        assertThat(err.toString()).startsWith("error: --enable: no rule given; name rules by id or name, e.g. --enable L4,L5"
                + " (rules: api, R22, Y1, I1, L1,");
        err.getBuffer().setLength(0);
        run("lint", "--enable", "L4,", m.toString());
        assertThat(err.toString()).startsWith("error: --enable: an empty rule in 'L4,'");
        // spaces around ids are fine
        assertThat(run("lint", "--fail-on", "warning", "--enable", "L3, liveness-timeout", m.toString())).isEqualTo(1);
    }

    @Test
    void manyFilesDirectoriesAndStandardInputInOneRun(@TempDir Path dir) throws Exception {
        write(dir, "chart/a.yaml", SAME);
        write(dir, "chart/sub/crd.yaml", "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: x}\n");
        Path single = write(dir, "single.yml", ERROR);
        stdin = ("# Source: app/templates/deployment.yaml\n" + SAME.replace("name: web", "name: from-helm"))
                .getBytes(StandardCharsets.UTF_8);
        assertThat(run("lint", dir.resolve("chart").toString(), single.toString(), "-")).isEqualTo(1);
        assertThat(out.toString()).contains("Deployment/from-helm").contains("-:17: warning L1")
                .contains("crd.yaml: no workloads (CustomResourceDefinition)")
                .contains("4 inputs, 3 workloads, 3 containers: 1 error, 4 warnings");
    }

    @Test
    void badInputIsOneLineAndExitTwo(@TempDir Path dir) throws Exception {
        Path helm = write(dir, "templates/deployment.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n"
                + "  name: {{ .Release.Name }}\n");
        assertThat(run("lint", helm.toString())).isEqualTo(2);
        assertThat(err.toString()).isEqualTo("error: " + helm + ":4: looks like a Helm/Go template ('{{' at line 4), not a"
                + " manifest: render it first, e.g. helm template RELEASE CHART | vitals lint -\n");
        for (String[] args : new String[][] {{"lint", dir.resolve("nope.yaml").toString()}, {"lint"},
                {"lint", "--fail-on", "sometimes", helm.toString()}, {"lint", "--format", "xml", helm.toString()},
                {"lint", "--startup-seconds", "0", helm.toString()}, {"lint", "--startup-seconds", "1e20h", helm.toString()},
                {"lint", "--probe-latency", "liveness", helm.toString()}, {"lint", "--probe-latency", "warmup=1s", helm.toString()},
                {"lint", "--profile", "prod", helm.toString()}, {"lint", "--app-config", dir.resolve("none.yaml").toString(),
                    helm.toString()}, {"lint", "--output", dir.resolve("no/such/dir/r.sarif").toString(), helm.toString()},
                {"lint", "--from-run", helm.toString(), helm.toString()}}) {
            err.getBuffer().setLength(0);
            assertThat(run(args)).as(String.join(" ", args)).isEqualTo(2);
            assertThat(err.toString().strip()).as(String.join(" ", args)).startsWith("error: ").doesNotContain("\tat ")
                    .doesNotContain("Exception");
        }
    }

    @Test
    void sarifForCodeScanning(@TempDir Path dir) throws Exception {
        Path m = write(dir, "deploy.yaml", SAME);
        Path sarif = dir.resolve("lint.sarif");
        assertThat(run("lint", "--format", "sarif", "-o", sarif.toString(), m.toString())).isZero();
        assertThat(out.toString()).contains("wrote " + sarif + ": 2 finding(s)");
        JsonNode root = new ObjectMapper().readTree(sarif.toFile());
        assertThat(root.path("version").asText()).isEqualTo("2.1.0");
        JsonNode run = root.path("runs").get(0);
        assertThat(run.path("tool").path("driver").path("name").asText()).isEqualTo("vitals-lint");
        assertThat(run.path("tool").path("driver").path("rules").size()).isEqualTo(dev.vitals.kubesim.lint.Rules.defaults().size());
        for (JsonNode rule : run.path("tool").path("driver").path("rules")) {
            assertThat(rule.path("helpUri").asText()).isEqualTo("https://github.com/vitals-dev/vitals/blob/main/docs/lint/"
                    + rule.path("id").asText() + ".md");
        }
        JsonNode first = null;
        for (JsonNode res : run.path("results")) {
            if (res.path("ruleId").asText().equals("L1")) {
                first = res;
            }
        }
        assertThat(first).isNotNull();
        assertThat(first.path("ruleId").asText()).isEqualTo("L1");
        assertThat(first.path("level").asText()).isEqualTo("warning");
        JsonNode loc = first.path("locations").get(0).path("physicalLocation");
        assertThat(loc.path("artifactLocation").path("uri").asText()).isEqualTo(m.toString());
        assertThat(loc.path("region").path("startLine").asInt()).isEqualTo(16);
        int idx = first.path("ruleIndex").asInt();
        assertThat(run.path("tool").path("driver").path("rules").get(idx).path("id").asText()).isEqualTo("L1");
        // found by QA: "... also restarts it Fix: point ..." ran the message and the fix together
        assertThat(first.path("message").path("text").asText())
                .contains("readiness after 30s. Fix: point livenessProbe at ").doesNotContain("(R38").endsWith("what requests need.")
                .doesNotContain(" it Fix:");
    }

    @Test
    void anInputWithoutWorkloadsNamesWhatItHoldsInOneParenthesis(@TempDir Path dir) throws Exception {
        // found by QA: "no workloads ((no kind))"
        Path m = write(dir, "values.yaml", "replicaCount: 2\n---\n- a\n- b\n---\nkind: Service\nmetadata: {name: s}\n");
        assertThat(run("lint", m.toString())).isZero();
        assertThat(out.toString()).contains(m + ": no workloads (Service, no kind, not an object: array)\n")
                .doesNotContain("((").doesNotContain("))");
    }

    @Test
    void jsonForScripts(@TempDir Path dir) throws Exception {
        Path m = write(dir, "deploy.yaml", SAME.replace("metadata:\n  name: web\n", "metadata:\n  name: web\n  annotations:\n"
                + "    ignore-check.vitals.dev/L3: \"budgets are equal on purpose\"\n"));
        assertThat(run("lint", "--format", "json", m.toString())).isZero();
        JsonNode root = new ObjectMapper().readTree(out.toString());
        assertThat(root.path("summary").path("warnings").asInt()).isEqualTo(1);
        assertThat(root.path("summary").path("exitCode").asInt()).isZero();
        assertThat(root.path("findings").get(0).path("rule").asText()).isEqualTo("L1");
        assertThat(root.path("findings").get(0).path("line").asInt()).isEqualTo(18);
        assertThat(root.path("suppressed").get(0).path("reason").asText()).isEqualTo("budgets are equal on purpose");
        assertThat(root.path("inputs").get(0).path("workloads").asInt()).isEqualTo(1);
    }

    @Test
    void junitForCiTestReports(@TempDir Path dir) throws Exception {
        Path m = write(dir, "deploy.yaml", SAME);
        Path e = write(dir, "pod.yaml", ERROR);
        Path crd = write(dir, "crd.yaml", "apiVersion: v1\nkind: Service\nmetadata: {name: s}\n");
        assertThat(run("lint", "--format", "junit", m.toString(), e.toString(), crd.toString())).isEqualTo(1);
        Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new ByteArrayInputStream(out.toString().getBytes(StandardCharsets.UTF_8)));
        assertThat(doc.getDocumentElement().getAttribute("failures")).isEqualTo("1");
        assertThat(doc.getElementsByTagName("testsuite").getLength()).isEqualTo(3);
        assertThat(doc.getElementsByTagName("failure").item(0).getTextContent()).contains("api api-validation")
                .contains("successThreshold");
        // warnings below --fail-on are reported, not failed
        assertThat(doc.getElementsByTagName("system-out").item(0).getTextContent()).contains("L1 same-endpoint");
        assertThat(run("lint", "--format", "junit", "--fail-on", "warning", m.toString())).isEqualTo(1);
    }

    @Test
    void measuredLatenciesFromTheCommandLine(@TempDir Path dir) throws Exception {
        Path m = write(dir, "deploy.yaml", SAME);
        assertThat(run("lint", "--probe-latency", "liveness=1.2s", m.toString())).isEqualTo(1);
        assertThat(out.toString()).contains("error L15 probe-latency").contains("every measured liveness probe (1.20s)");
        Path runJson = write(dir, "run.json", "{\"events\": [{\"t\": 1.0, \"type\": \"probe\", \"probe\": \"readiness\","
                + " \"result\": \"success\", \"latencyMs\": 1400.0}, {\"t\": 2.0, \"type\": \"probe\", \"probe\": \"readiness\","
                + " \"result\": \"success\", \"latencyMs\": 20.0}]}");
        out.getBuffer().setLength(0);
        assertThat(run("lint", "--from-run", runJson.toString(), m.toString())).isZero();
        assertThat(out.toString()).contains("warning L15 probe-latency").contains("readiness latency (2 samples");
    }

    @Test
    void theBootOfASimulateRunUnderItsCpuLimitFeedsTheStartupBudgetRule(@TempDir Path dir) throws Exception {
        // C23: startup 10 s × 3 = 30 s of budget; the boot measured under 500m was 34.2 s
        Path m = write(dir, "deploy.yaml", "kind: Deployment\nmetadata: {name: web}\nspec:\n  template:\n    spec:\n"
                + "      containers:\n      - name: app\n        resources:\n          limits: {cpu: 500m}\n"
                + "        startupProbe:\n          httpGet: {path: /startupz, port: 8081}\n          periodSeconds: 10\n"
                + "        livenessProbe:\n          httpGet: {path: /livez, port: 8081}\n"
                + "        readinessProbe:\n          httpGet: {path: /readyz, port: 8081}\n");
        Path runJson = write(dir, "run.json", "{\"boot\": {\"seconds\": 34.2, \"cpuLimit\": \"500m\"}, \"events\": [{\"t\": 1.0,"
                + " \"type\": \"probe\", \"probe\": \"startup\", \"result\": \"failure\", \"latencyMs\": 3.0}]}");
        assertThat(run("lint", "--from-run", runJson.toString(), m.toString())).isEqualTo(1);
        assertThat(out.toString()).contains("error L2 startup-budget").contains("needs 34.2s to start");
        out.getBuffer().setLength(0);
        // an explicit --boot-time wins over the run's
        assertThat(run("lint", "--boot-time", "20", "--from-run", runJson.toString(), m.toString())).isZero();
        assertThat(out.toString()).doesNotContain("L2 startup-budget");
    }

    @Test
    void helpIsWrappedByTheLibraryNotByHand() {
        assertThat(run("lint", "--help")).isZero();
        assertThat(out.toString()).contains("--fail-on").contains("--app-config").contains("helm template");
        for (String line : out.toString().split("\n")) {
            assertThat(line.length()).as(line).isLessThanOrEqualTo(Math.max(80, CommandLine.Model.UsageMessageSpec.DEFAULT_USAGE_WIDTH));
        }
        assertThat(run("lint", "--list-rules")).isZero();
        assertThat(out.toString()).contains("L15  probe-latency");
    }

    @Test
    void aVitalsYamlAboveTheInputIsAppliedAndABadOneIsOneLineExit2(@TempDir Path dir) throws Exception {
        Path m = write(dir, "k8s/deploy.yaml", SAME);
        assertThat(run("lint", m.toString())).isZero();
        String first = out.toString().lines().filter(l -> l.contains(": warning ")).findFirst().orElseThrow();
        String rule = first.split(" ")[2]; // file:line: warning ID name: ...
        write(dir, ".vitals.yaml", "rules:\n  " + rule + ": error\n");
        out.getBuffer().setLength(0);
        assertThat(run("lint", m.toString())).isEqualTo(1);
        assertThat(out.toString()).contains(": error " + rule + " ").contains("config " + dir.resolve(".vitals.yaml") + ": "
                + rule + " error");
        write(dir, ".vitals.yaml", "rules:\n  " + rule + ": severe\n");
        err.getBuffer().setLength(0);
        assertThat(run("lint", m.toString())).isEqualTo(2);
        assertThat(err.toString()).startsWith("error: " + dir.resolve(".vitals.yaml") + ":2: rule " + rule + ": 'severe'")
                .hasLineCount(1);
        // --config names another file; the flag's file is the one read
        Path other = write(dir, "lint.yaml", "rules:\n  " + rule + ": off\n");
        out.getBuffer().setLength(0);
        assertThat(run("lint", "--config", other.toString(), m.toString())).isZero();
        assertThat(out.toString()).doesNotContain("warning " + rule).contains(rule + " off (not shown: " + rule + ": 1 finding)")
                .contains("off by config");
    }

    @Test
    void aNamedFileThatIsNoManifestFailsWithOneLineUnlessAllowEmpty(@TempDir Path dir) throws Exception {
        Path passwd = write(dir, "passwd", "root:x:0:0:root:/root:/bin/bash\n");
        assertThat(run("lint", passwd.toString())).isEqualTo(2);
        assertThat(err.toString()).isEqualTo("error: " + passwd + ": not a Kubernetes manifest: no document has a kind (not an"
                + " object: string); --allow-empty accepts an input without objects\n");
        assertThat(run("lint", "--allow-empty", passwd.toString())).isZero();
    }
}
