package dev.vitals.kubesim.manifest;

import dev.vitals.kubesim.input.InvalidInputException;
import dev.vitals.kubesim.input.Violation;
import dev.vitals.kubesim.model.PodSpec;
import dev.vitals.kubesim.model.ProbeHandler;
import dev.vitals.kubesim.model.RestartPolicy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Reading probes from manifests of every workload kind, and the errors for bad ones. */
class ManifestReaderTest {

    /** Every rule, as {@code vitals lint} runs them. */
    private static dev.vitals.kubesim.lint.LintReport lintAll(java.util.List<dev.vitals.kubesim.lint.LintInput> inputs) {
        return new dev.vitals.kubesim.lint.Linter(dev.vitals.kubesim.lint.Rules.all(), dev.vitals.kubesim.lint.LintContext.empty(),
                Optional.empty()).lint(inputs);
    }
    private static final String CONTAINER = "containers:\n"
            + "  - name: app\n"
            + "    ports: [{name: http, containerPort: 8080}]\n"
            + "    livenessProbe:\n"
            + "      httpGet: {path: /livez, port: http}\n"
            + "      periodSeconds: 5\n";

    private static String indent(String block, int n) {
        StringBuilder sb = new StringBuilder();
        for (String line : block.split("\n")) {
            sb.append(" ".repeat(n)).append(line).append('\n');
        }
        return sb.toString();
    }

    private static String workload(String kind) {
        if (kind.equals("Pod")) {
            return "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n" + indent(CONTAINER, 2);
        }
        if (kind.equals("CronJob")) {
            return "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: c}\nspec:\n  jobTemplate:\n    spec:\n      template:\n"
                    + "        spec:\n" + indent(CONTAINER, 10);
        }
        return "apiVersion: apps/v1\nkind: " + kind + "\nmetadata: {name: w}\nspec:\n  template:\n    spec:\n" + indent(CONTAINER, 6);
    }

    @Test
    void readsEveryWorkloadKind() {
        for (String kind : new String[] {"Pod", "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job", "CronJob"}) {
            PodSpec pod = ManifestReader.parse(workload(kind), kind).select(Optional.empty()).toPodSpec();
            assertThat(pod.liveness()).as(kind).isPresent();
            assertThat(pod.liveness().get().periodSeconds()).as(kind).isEqualTo(5);
            assertThat(pod.ports()).as(kind).containsEntry("http", 8080);
        }
    }

    @Test
    void multiDocumentYamlSkipsOtherKindsAndContainerPicksOne() {
        String yaml = "apiVersion: v1\nkind: Service\nmetadata: {name: s}\n---\n" + workload("Deployment")
                + "---\n" + workload("Pod").replace("name: app", "name: sidecar-free");
        ManifestReader.Manifest m = ManifestReader.parse(yaml, "multi.yaml");
        assertThat(m.containers()).extracting(ManifestReader.ContainerEntry::name).containsExactly("app", "sidecar-free");
        assertThatThrownBy(() -> m.select(Optional.empty())).isInstanceOf(InvalidInputException.class)
                .hasMessageContaining("pick one with --container");
        assertThat(m.select(Optional.of("sidecar-free")).workload()).isEqualTo("Pod/p");
    }

    @Test
    void aPodOfSeveralContainersNeedsContainerAndTheErrorCountsAndNamesThem() {
        // the kube-prometheus shape: an operator, a kube-rbac-proxy beside it, a sidecar log shipper
        // (a selector: an apps/v1 workload without one and without images is a Kustomize patch to lint)
        String yaml = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: operator}\nspec:\n  selector: {matchLabels: {app: op}}\n"
                + "  template:\n    spec:\n"
                + "      initContainers:\n      - name: shipper\n        restartPolicy: Always\n"
                + "        readinessProbe: {tcpSocket: {port: 9000}}\n"
                + "      containers:\n      - name: operator\n        livenessProbe: {httpGet: {path: /healthz, port: 8080}}\n"
                + "      - name: kube-rbac-proxy\n        readinessProbe: {tcpSocket: {port: 8443}}\n";
        ManifestReader.Manifest m = ManifestReader.parse(yaml, "op.yaml");
        // found by QA: "2 containers found" followed by a list of 3 (the sidecar unmarked)
        assertThatThrownBy(() -> m.select(Optional.empty())).isInstanceOf(InvalidInputException.class)
                .hasMessage("op.yaml: 2 containers in Deployment/operator; pick one with --container NAME (or WORKLOAD:NAME):"
                        + " Deployment/operator:operator, Deployment/operator:kube-rbac-proxy, Deployment/operator:shipper (sidecar)");
        assertThat(m.select(Optional.of("kube-rbac-proxy")).toPodSpec().readiness()).isPresent();
        assertThat(m.select(Optional.of("Deployment/operator:operator")).toPodSpec().liveness()).isPresent();
        assertThat(m.select(Optional.of("shipper")).role()).isEqualTo(ManifestReader.Role.SIDECAR);
        // lint reads every one of them
        assertThat(lintAll(java.util.List.of(dev.vitals.kubesim.lint.LintInput.text("op.yaml", yaml)))
                .containers()).isEqualTo(3);
    }

    @Test
    void defaultsAndPodLevelValues() {
        String yaml = "kind: Pod\nmetadata: {name: p}\nspec:\n  restartPolicy: OnFailure\n  terminationGracePeriodSeconds: 12\n"
                + "  containers:\n  - name: app\n    readinessProbe:\n      httpGet: {port: 8080}\n";
        PodSpec pod = ManifestReader.parse(yaml, "p.yaml").select(Optional.empty()).toPodSpec();
        assertThat(pod.restartPolicy()).isEqualTo(RestartPolicy.ON_FAILURE);
        assertThat(pod.terminationGracePeriodSeconds()).isEqualTo(12);
        ProbeHandler.HttpGet g = (ProbeHandler.HttpGet) pod.readiness().get().handler();
        assertThat(g.path()).isEqualTo("/"); // R3
        assertThat(g.scheme()).isEqualTo("HTTP");
    }

    @Test
    void notYamlIsAClearError() {
        assertThatThrownBy(() -> ManifestReader.parse("kind: [unclosed\n  x: {", "bad.yaml"))
                .isInstanceOf(InvalidInputException.class).hasMessageStartingWith("bad.yaml:").hasMessageContaining(": not valid YAML");
        assertThatThrownBy(() -> ManifestReader.parse("just some text", "t.yaml"))
                .isInstanceOf(InvalidInputException.class).hasMessageContaining("not a Kubernetes object");
    }

    @Test
    void aMergeKeyReadsAsLintReadsIt() {
        // found by QA: simulate --manifest rejected '<<: *probe' as an unknown probe field "<<" while lint accepted it
        String yaml = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  template:\n    spec:\n"
                + "      containers:\n"
                + "        - name: app\n"
                + "          ports: [{name: http, containerPort: 8080}]\n"
                + "          livenessProbe: &probe\n"
                + "            httpGet: {path: /livez, port: http}\n"
                + "            periodSeconds: 7\n"
                + "            failureThreshold: 3\n"
                + "          readinessProbe:\n"
                + "            <<: *probe\n"
                + "            httpGet: {path: /readyz, port: http}\n"
                + "            failureThreshold: 1\n";
        PodSpec pod = ManifestReader.parse(yaml, "merge.yaml").select(Optional.empty()).toPodSpec();
        assertThat(pod.readiness().orElseThrow().periodSeconds()).isEqualTo(7); // from the anchor
        assertThat(pod.readiness().orElseThrow().failureThreshold()).isEqualTo(1); // the explicit key wins
        assertThat(((ProbeHandler.HttpGet) pod.readiness().orElseThrow().handler()).path()).isEqualTo("/readyz");
        assertThat(pod.liveness().orElseThrow().failureThreshold()).isEqualTo(3);
        // the same text through lint: no finding about it either
        dev.vitals.kubesim.lint.LintReport report = lintAll(java.util.List.of(
                dev.vitals.kubesim.lint.LintInput.text("merge.yaml", yaml)));
        assertThat(report.findings()).noneMatch(f -> f.severity() == dev.vitals.kubesim.lint.Severity.ERROR);
    }

    @Test
    void aKeyWrittenTwiceNamesBothLines() {
        String yaml = workload("Pod").replace("periodSeconds: 5\n", "periodSeconds: 5\n        periodSeconds: 6\n");
        assertThatThrownBy(() -> ManifestReader.parse(yaml, "p.yaml")).isInstanceOf(InvalidInputException.class)
                .hasMessageStartingWith("p.yaml:11: key 'periodSeconds' is written twice in one mapping (lines 10 and 11)")
                .hasMessageNotContaining("\n");
    }

    @Test
    void noContainersIsAClearError() {
        assertThatThrownBy(() -> ManifestReader.parse("kind: ConfigMap\nmetadata: {name: x}\n", "cm.yaml"))
                .isInstanceOf(InvalidInputException.class).hasMessageContaining("no containers found")
                .hasMessageContaining("ConfigMap");
    }

    @Test
    void unknownContainerListsTheKnownOnes() {
        assertThatThrownBy(() -> ManifestReader.parse(workload("Pod"), "p.yaml").select(Optional.of("db")))
                .isInstanceOf(InvalidInputException.class).hasMessageContaining("no container named 'db'")
                .hasMessageContaining("Pod/p:app");
    }

    @Test
    void invalidProbeValuesNameTheRuleAndTheField() {
        String yaml = workload("Pod").replace("periodSeconds: 5", "periodSeconds: -5\n        successThreshold: 2\n        failureTreshold: 3");
        assertThatThrownBy(() -> ManifestReader.parse(yaml, "p.yaml").select(Optional.empty()).toPodSpec())
                .isInstanceOf(InvalidInputException.class)
                .hasMessageContaining("[R8] Pod/p containers[app].livenessProbe.periodSeconds")
                .hasMessageContaining("[R9]").hasMessageContaining("unknown field \"failureTreshold\"");
        String typed = workload("Pod").replace("periodSeconds: 5", "periodSeconds: often");
        assertThatThrownBy(() -> ManifestReader.parse(typed, "p.yaml").select(Optional.empty()).toPodSpec())
                .hasMessageContaining("must be an integer");
    }

    @Test
    void aHelmTemplateIsOneLineSayingToRenderIt() {
        // found by QA: simulate --manifest on a chart's template printed snakeyaml's event dump
        // ("Expected a field name ..., got this instead: <org.yaml.snakeyaml.events.MappingStartEvent(...)>")
        String template = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Values.name }}\n"
                + "spec:\n  template:\n    spec:\n      containers:\n      - name: app\n";
        assertThatThrownBy(() -> ManifestReader.parse(template, "templates/deploy.yaml"))
                .isInstanceOf(InvalidInputException.class)
                .hasMessage("templates/deploy.yaml:4: looks like a Helm/Go template ('{{' at line 4), not a manifest:"
                        + " render it first, e.g. helm template RELEASE CHART > deploy.yaml");
    }

    @Test
    void aFileThatIsNotUtf8TextSaysSo(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        // found by QA: a binary file gave "cannot read manifest x: Input length = 1"
        java.nio.file.Path bin = java.nio.file.Files.write(dir.resolve("bin.yaml"), new byte[] {'a', ':', ' ', (byte) 0xff, (byte) 0xfe, '\n'});
        assertThatThrownBy(() -> ManifestReader.read(bin))
                .isInstanceOf(InvalidInputException.class)
                .hasMessageContaining("not UTF-8 text").hasMessageNotContaining("Input length");
    }

    @Test
    void integerBeyond64BitsIsReportedAsWrittenNotWrapped() {
        // found by QA: 99999999999999999999 was reported as "is too large: 7766279631452241919"
        String yaml = workload("Pod").replace("periodSeconds: 5", "periodSeconds: 99999999999999999999");
        assertThatThrownBy(() -> ManifestReader.parse(yaml, "p.yaml").select(Optional.empty()).toPodSpec())
                .isInstanceOf(InvalidInputException.class)
                .hasMessageContaining("[R8] Pod/p containers[app].livenessProbe.periodSeconds")
                .hasMessageContaining("99999999999999999999")
                .hasMessageNotContaining("7766279631452241919");
        String negative = workload("Pod").replace("periodSeconds: 5", "periodSeconds: -99999999999999999999");
        assertThatThrownBy(() -> ManifestReader.parse(negative, "p.yaml").select(Optional.empty()).toPodSpec())
                .hasMessageContaining("must be greater than or equal to 0, was -99999999999999999999");
    }

    @Test
    void portNameNotFoundIsAnError() {
        String yaml = workload("Pod").replace("port: http}", "port: metrics}");
        assertThatThrownBy(() -> ManifestReader.parse(yaml, "p.yaml").select(Optional.empty()).toPodSpec())
                .isInstanceOf(InvalidInputException.class).hasMessageContaining("port name 'metrics' matches no container port")
                .hasMessageContaining("ports: http");
    }

    @Test
    void r12_probesOnPlainInitContainersAreRejectedButSidecarsAreFine() {
        String yaml = "kind: Pod\nmetadata: {name: p}\nspec:\n  initContainers:\n  - name: init\n    livenessProbe:\n"
                + "      tcpSocket: {port: 1}\n  - name: side\n    restartPolicy: Always\n    livenessProbe:\n"
                + "      tcpSocket: {port: 2}\n  containers:\n  - name: app\n";
        ManifestReader.Manifest m = ManifestReader.parse(yaml, "p.yaml");
        assertThat(m.select(Optional.of("init")).validate()).extracting(Violation::rule).contains("R12");
        assertThat(m.select(Optional.of("side")).validate()).isEmpty();
        assertThat(m.select(Optional.empty()).name()).isEqualTo("app");
    }

    @Test
    void expandContainerCommandOnlyStatic_aValueFromVariableIsEmptyInExecProbesAndToPodSpecKeepsTheEnv(
            @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        // kubelet: kubecontainer.ExpandContainerCommandOnlyStatic(command, container.Env) maps every env name to its
        // Value (EnvVarsToMap); a valueFrom variable's Value is "", so $(POD_NAME) expands to "" in an exec probe,
        // while a name the container does not declare stays as written
        java.nio.file.Path m = dir.resolve("pod.yaml");
        java.nio.file.Files.writeString(m, "kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: app\n"
                + "    env:\n    - {name: PORT, value: '8080'}\n"
                + "    - name: POD_NAME\n      valueFrom: {fieldRef: {fieldPath: metadata.name}}\n"
                + "    resources:\n      limits: {cpu: 500m, memory: 512Mi}\n      requests: {cpu: 250m}\n"
                + "    livenessProbe:\n      exec: {command: [check, '$(PORT)', '$(POD_NAME)', '$(UNDECLARED)']}\n");
        ManifestReader.ContainerEntry entry = ManifestReader.read(m).select(Optional.empty());
        PodSpec pod = entry.toPodSpec();
        // the library path keeps the env (it dropped it: library users got no $(VAR) expansion)
        assertThat(pod.env()).containsOnly(java.util.Map.entry("PORT", "8080"), java.util.Map.entry("POD_NAME", ""));
        assertThat(dev.vitals.kubesim.model.EnvExpansion.expand(java.util.List.of("check", "$(PORT)", "$(POD_NAME)",
                "$(UNDECLARED)"), pod.env())).containsExactly("check", "8080", "", "$(UNDECLARED)");
        // and the resources the simulation applies
        assertThat(entry.resources().describe()).isEqualTo("cpu limit 500m (request 250m), memory limit 512Mi");
    }

    /** pkg/apis/core/validation ValidateResourceRequirements: a request above its limit is refused by the API server. */
    @Test
    void validateResourceRequirements_aRequestAboveItsLimitIsRefused(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        java.nio.file.Path cpu = dir.resolve("cpu.yaml");
        java.nio.file.Files.writeString(cpu, "kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: app\n"
                + "    resources:\n      limits: {cpu: 200m}\n      requests: {cpu: '2'}\n");
        assertThatThrownBy(() -> ManifestReader.read(cpu).select(Optional.empty()).resources())
                .isInstanceOf(dev.vitals.kubesim.input.InvalidInputException.class)
                .hasMessageEndingWith("resources.requests: Invalid value: \"2\": must be less than or equal to cpu limit of 200m");
        java.nio.file.Path memory = dir.resolve("memory.yaml");
        java.nio.file.Files.writeString(memory, "kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: app\n"
                + "    resources:\n      limits: {memory: 64Mi}\n      requests: {memory: 1Gi}\n");
        assertThatThrownBy(() -> ManifestReader.read(memory).select(Optional.empty()).resources())
                .hasMessageEndingWith("must be less than or equal to memory limit of 64Mi");
        java.nio.file.Path equal = dir.resolve("equal.yaml");
        java.nio.file.Files.writeString(equal, "kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: app\n"
                + "    resources:\n      limits: {cpu: 500m, memory: 64Mi}\n      requests: {cpu: '0.5', memory: 64Mi}\n");
        assertThat(ManifestReader.read(equal).select(Optional.empty()).resources().describe()).startsWith("cpu limit 500m");
    }

    @Test
    void aRegularContainersRestartPolicyAndRulesAreReadAndBadOnesRefused(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        java.nio.file.Path m = dir.resolve("pod.yaml");
        String pod = "kind: Pod\nmetadata: {name: p}\nspec:\n  restartPolicy: Always\n  containers:\n  - name: app\n"
                + "    restartPolicy: %s\n    restartPolicyRules:\n    - action: Restart\n      exitCodes: {operator: %s, values: [42]}\n";
        java.nio.file.Files.writeString(m, String.format(pod, "Never", "In"));
        PodSpec spec = ManifestReader.read(m).select(Optional.empty()).toPodSpec();
        assertThat(spec.containerRestart().describe()).isEqualTo("container restartPolicy Never, Restart on exit codes In [42]");
        assertThat(spec.containerRestart().restartsAfterExit(spec.restartPolicy(), 42)).isTrue();
        assertThat(spec.containerRestart().restartsAfterExit(spec.restartPolicy(), 1)).isFalse();
        java.nio.file.Files.writeString(m, String.format(pod, "Never", "Between"));
        assertThatThrownBy(() -> ManifestReader.read(m).select(Optional.empty()).toPodSpec())
                .isInstanceOf(InvalidInputException.class).hasMessageContaining("exitCodes.operator must be In or NotIn");
        java.nio.file.Files.writeString(m, String.format(pod, "Sometimes", "In"));
        assertThatThrownBy(() -> ManifestReader.read(m).select(Optional.empty()).toPodSpec())
                .isInstanceOf(InvalidInputException.class).hasMessageContaining("unsupported value \"Sometimes\"");
    }

    private static PodSpec withLifecycle(String lifecycle) {
        String yaml = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  terminationGracePeriodSeconds: 20\n"
                + indent(CONTAINER + "    lifecycle:\n" + indent(lifecycle, 6), 2);
        return ManifestReader.parse(yaml, "hooks.yaml").select(Optional.empty()).toPodSpec();
    }

    /** validation.go validateLifecycleHandler: exactly one handler; sleep within the grace period. */
    @Test
    void readsLifecycleHooksAndRejectsWhatTheApiServerRejects() {
        PodSpec pod = withLifecycle("postStart:\n  httpGet: {path: /warm, port: http}\npreStop:\n  sleep: {seconds: 5}\n");
        assertThat(pod.lifecycle().postStart()).contains(new dev.vitals.kubesim.model.Lifecycle.Handler(
                new ProbeHandler.HttpGet(Optional.empty(), ProbeHandler.PortRef.named("http"), "/warm", "HTTP", java.util.List.of())));
        assertThat(pod.lifecycle().preStop()).contains(new dev.vitals.kubesim.model.Lifecycle.Sleep(5));
        assertThat(withLifecycle("preStop:\n  exec: {command: [sh, -c, 'sleep 1']}\n").lifecycle().preStop().orElseThrow()
                .describe()).isEqualTo("exec sh -c sleep 1");
        assertThatThrownBy(() -> withLifecycle("preStop:\n  sleep: {seconds: 25}\n")).isInstanceOf(InvalidInputException.class)
                .hasMessageContaining("must be less than terminationGracePeriodSeconds of 20");
        assertThatThrownBy(() -> withLifecycle("preStop:\n  sleep: {seconds: 1}\n  exec: {command: [true]}\n"))
                .isInstanceOf(InvalidInputException.class).hasMessageContaining("exactly one handler");
        assertThatThrownBy(() -> withLifecycle("postStart: {}\n")).isInstanceOf(InvalidInputException.class)
                .hasMessageContaining("found none");
        assertThatThrownBy(() -> withLifecycle("postStart:\n  httpGet: {port: nope}\n")).isInstanceOf(InvalidInputException.class)
                .hasMessageContaining("lifecycle.postStart.httpGet.port");
        assertThatThrownBy(() -> withLifecycle("preStop:\n  tcpSocket: {port: 80}\n")).isInstanceOf(InvalidInputException.class)
                .hasMessageContaining("cannot run it");
        assertThatThrownBy(() -> withLifecycle("preStopp:\n  sleep: {seconds: 1}\n")).isInstanceOf(InvalidInputException.class)
                .hasMessageContaining("unknown field \"preStopp\"");
    }
}
