package dev.vitals.kubesim.lint;

import static dev.vitals.kubesim.lint.Manifests.deployment;
import static dev.vitals.kubesim.lint.Manifests.lint;
import static dev.vitals.kubesim.lint.Manifests.only;
import static dev.vitals.kubesim.lint.Manifests.rules;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Premises checked on the object (issue 36): runtime, Services, handler kinds, the rules L21-L26, checked fixes. */
class LintPrecisionTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static JsonNode container(String json) throws Exception {
        return JSON.readTree(json);
    }

    @Test
    void runtimeIsDetectedFromImageCommandArgsAndEnvAndNeverGuessed() throws Exception {
        Map<String, AppRuntime.Kind> table = Map.ofEntries(
                Map.entry("{\"image\": \"nginx:1.27\"}", AppRuntime.Kind.OTHER),
                Map.entry("{\"image\": \"redis:7-alpine\"}", AppRuntime.Kind.OTHER),
                Map.entry("{\"image\": \"grafana/grafana:11.0.0\"}", AppRuntime.Kind.OTHER),
                Map.entry("{\"image\": \"haproxy:2.9\"}", AppRuntime.Kind.OTHER),
                Map.entry("{\"image\": \"golang:1.22\"}", AppRuntime.Kind.OTHER),
                Map.entry("{\"image\": \"node:20-slim\"}", AppRuntime.Kind.OTHER),
                Map.entry("{\"image\": \"postgres:16\"}", AppRuntime.Kind.OTHER),
                Map.entry("{\"image\": \"registry.example.com:5000/shop/api:1.0\", \"command\": [\"node\", \"server.js\"]}",
                        AppRuntime.Kind.OTHER),
                Map.entry("{\"image\": \"gcr.io/google-samples/microservices-demo/frontend:v0.10\"}", AppRuntime.Kind.UNKNOWN),
                Map.entry("{\"image\": \"eclipse-temurin:21-jre\"}", AppRuntime.Kind.JVM),
                Map.entry("{\"image\": \"quay.io/keycloak/keycloak:26.0\"}", AppRuntime.Kind.JVM),
                Map.entry("{\"image\": \"acme/orders:3\", \"command\": [\"java\", \"-jar\", \"/app.jar\"]}", AppRuntime.Kind.JVM),
                Map.entry("{\"image\": \"acme/orders:3\", \"args\": [\"-Xmx512m\"]}", AppRuntime.Kind.JVM),
                Map.entry("{\"image\": \"acme/orders:3\", \"env\": [{\"name\": \"JAVA_TOOL_OPTIONS\", \"value\": \"-XX:+UseG1GC\"}]}",
                        AppRuntime.Kind.JVM),
                Map.entry("{\"image\": \"acme/orders:3\", \"env\": [{\"name\": \"JAVA_OPTS\", \"value\": \"\"}]}", AppRuntime.Kind.JVM),
                Map.entry("{\"image\": \"acme/orders:3\", \"env\": [{\"name\": \"JDK_JAVA_OPTIONS\", \"value\": \"\"}]}",
                        AppRuntime.Kind.JVM),
                Map.entry("{\"image\": \"acme/orders:3\", \"livenessProbe\": {\"httpGet\": {\"path\": \"/actuator/health/liveness\"}}}",
                        AppRuntime.Kind.JVM));
        table.forEach((json, kind) -> {
            try {
                assertThat(AppRuntime.of(container(json)).kind()).as(json).isEqualTo(kind);
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
    }

    @Test
    void nonJvmContainersGetNoJvmVitalsOrSpringWording() {
        // every rule that can fire on these shapes, for each non-JVM image or command
        String probes = "        ports:\n        - {name: http, containerPort: 8080}\n"
                + "        resources:\n          limits: {cpu: 250m}\n"
                + "        livenessProbe:\n          httpGet: {path: /, port: 8080}\n          periodSeconds: 5\n"
                + "          initialDelaySeconds: 60\n"
                + "        readinessProbe:\n          httpGet: {path: /, port: 8080}\n"
                + "        startupProbe:\n          exec: {command: [sh, -c, 'curl -sf localhost:8080/ | grep ok']}\n";
        for (String image : List.of("nginx:1.27", "redis:7", "grafana/grafana:11.0.0", "haproxy:2.9", "golang:1.22",
                "node:20", "postgres:16", "example/api:1.0")) {
            String yaml = Manifests.jvm(probes).replace("eclipse-temurin:21-jre", image);
            LintReport r = lint(yaml);
            assertThat(r.findings()).as(image).isNotEmpty();
            for (Finding f : r.findings()) {
                assertThat(f.message() + " " + f.fix()).as(image + " " + f.rule()).doesNotContain("JVM", "Vitals", "Spring",
                        "actuator", "/livez", "Tomcat");
            }
        }
    }

    @Test
    void findingsThatNeedAServiceAreDroppedWhenNoServiceSelectsThePod() {
        String c = "        livenessProbe:\n          httpGet: {path: /livez, port: 8080}\n          periodSeconds: 5\n"
                + "        readinessProbe:\n          httpGet: {path: /readyz, port: 8080}\n          periodSeconds: 10\n";
        assertThat(rules(lint(Manifests.jvm(c)))).contains("L21");
        String otherNamespace = Manifests.jvm(c).replace("kind: Service\nmetadata:\n  name: web\n",
                "kind: Service\nmetadata:\n  name: web\n  namespace: other\n");
        assertThat(rules(lint(otherNamespace))).doesNotContain("L21");
        String noSelector = Manifests.jvm(c).replace("  selector: {app: web}\n  ports", "  ports");
        assertThat(rules(lint(noSelector))).doesNotContain("L21");
        LintReport none = lint(deployment(c));
        assertThat(none.servicesSeen()).isFalse();
        assertThat(only(none, "L21").message()).endsWith("(no Service in the input: this assumes one sends the pod traffic)");
    }

    @Test
    void l8SkipsMetricsOnlyPortsOneReplicaDatabasesAndUnselectedPods() {
        String serving = "        ports:\n        - {name: http, containerPort: 8080}\n";
        assertThat(rules(lint(Manifests.jvm(serving)))).contains("L8");
        assertThat(rules(lint(Manifests.jvm(serving.replace("name: http", "name: metrics"))))).doesNotContain("L8");
        String db = Manifests.deployment("db", 1, serving.replace("8080", "5432")).replace("example/db:1.0", "postgres:16")
                + Manifests.service("db", "");
        assertThat(rules(lint(db))).doesNotContain("L8");
        assertThat(rules(lint(db.replace("replicas: 1", "replicas: 3")))).contains("L8");
        assertThat(rules(lint(Manifests.jvm(serving).replace("selector: {app: web}", "selector: {app: other}"))))
                .doesNotContain("L8");
    }

    @Test
    void l6ShellBuiltinsStartNoChildren() {
        for (String cmd : List.of("[sh, -c, 'test -f /tmp/healthy']", "[/bin/sh, -c, '[ -e /tmp/ready ] && exit 0']",
                "[bash, -c, 'echo ok']")) {
            assertThat(rules(lint(deployment("        livenessProbe:\n          exec:\n            command: " + cmd + "\n"))))
                    .as(cmd).doesNotContain("L6");
        }
        assertThat(rules(lint(deployment("        livenessProbe:\n          exec:\n            command: [sh, -c, 'cat /tmp/ok']\n"))))
                .contains("L6");
    }

    @Test
    void l22StartupProbeOnTheReadinessEndpoint() {
        String c = "        livenessProbe:\n          httpGet: {path: /livez, port: 8080}\n"
                + "        readinessProbe:\n          httpGet: {path: /readyz, port: 8080}\n"
                + "        startupProbe:\n          httpGet: {path: /readyz, port: 8080}\n          failureThreshold: 30\n";
        Finding f = only(lint(deployment(c)), "L22");
        assertThat(f.severity()).isEqualTo(Severity.ERROR);
        assertThat(f.message()).contains("after 300s");
        assertThat(f.fix()).contains("/livez");
        assertThat(rules(lint(deployment(c.replace("startupProbe:\n          httpGet: {path: /readyz",
                "startupProbe:\n          httpGet: {path: /livez"))))).doesNotContain("L22");
    }

    @Test
    void l23InvalidQuantitiesFollowTheApiServersGrammar() {
        for (String ok : List.of("500m", "\"1\"", "2", "0.5", "512Mi", "1Gi", "1e3", "1.5G", "100k")) {
            assertThat(QuantityRule.QUANTITY.matcher(ok.replace("\"", "")).matches()).as(ok).isTrue();
        }
        for (String bad : List.of("cpu-limit", "1 GB", "1gb", "Mi", "1.2.3", "1KiB", "", "-")) {
            assertThat(QuantityRule.QUANTITY.matcher(bad).matches()).as(bad).isFalse();
        }
        String c = "        resources:\n          limits: {cpu: cpu-limit, memory: 1Gi}\n          requests: {cpu: 250m, memory: 1 GB}\n";
        List<Finding> fs = lint(deployment(c)).findings().stream().filter(x -> x.rule().equals("L23")).toList();
        assertThat(fs).extracting(Finding::field).containsExactly("containers[app].resources.limits.cpu",
                "containers[app].resources.requests.memory");
        assertThat(fs.get(0).severity()).isEqualTo(Severity.ERROR);
        assertThat(fs.get(0).message()).contains("'cpu-limit'");
    }

    @Test
    void l24StickyRoutingInFrontOfALivenessOnTheRequestPool() {
        String c = "        ports:\n        - {name: http, containerPort: 8080}\n"
                + "        livenessProbe:\n          httpGet: {path: /livez, port: http}\n"
                + "        readinessProbe:\n          httpGet: {path: /readyz, port: http}\n";
        String affinity = Manifests.jvm(c).replace("  ports:\n  - {port: 80", "  sessionAffinity: ClientIP\n  ports:\n  - {port: 80");
        Finding f = only(lint(affinity), "L24");
        assertThat(f.message()).startsWith("Service/web sessionAffinity: ClientIP pins each client to one pod");
        assertThat(f.fix()).contains("move liveness off the request pool").contains("drop the affinity");
        // liveness on a port of its own, which the Service does not route to: silent
        assertThat(rules(lint(affinity.replace("path: /livez, port: http", "path: /livez, port: 8081"))))
                .doesNotContain("L24");
        // no affinity: silent
        assertThat(rules(lint(Manifests.jvm(c)))).doesNotContain("L24");
        // node-local routing pins in-cluster callers the same way
        for (String local : List.of("internalTrafficPolicy: Local", "trafficDistribution: PreferSameNode")) {
            String yaml = Manifests.jvm(c).replace("  ports:\n  - {port: 80", "  " + local + "\n  ports:\n  - {port: 80");
            assertThat(only(lint(yaml), "L24").message()).startsWith("Service/web " + local);
        }
        // ingress-nginx cookie affinity in front of the Service
        String ingress = Manifests.jvm(c) + "---\napiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: web\n"
                + "  annotations:\n    nginx.ingress.kubernetes.io/affinity: cookie\nspec:\n  rules:\n  - http:\n      paths:\n"
                + "      - path: /\n        pathType: Prefix\n        backend:\n          service: {name: web, port: {number: 80}}\n";
        assertThat(only(lint(ingress), "L24").message()).startsWith("Ingress/web nginx.ingress.kubernetes.io/affinity: cookie");
        // bad input: one clear line
        Finding bad = only(lint(Manifests.jvm(c).replace("  ports:\n  - {port: 80", "  sessionAffinity: Sticky\n  ports:\n"
                + "  - {port: 80")), "api");
        assertThat(bad.message()).isEqualTo("spec.sessionAffinity must be ClientIP or None, was 'Sticky'");
        assertThat(bad.object()).isEqualTo("Service/web");
        String noBackend = Manifests.jvm(c) + "---\napiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: web\n"
                + "  annotations:\n    nginx.ingress.kubernetes.io/upstream-hash-by: $remote_addr\nspec: {}\n";
        assertThat(only(lint(noBackend), "api").message()).isEqualTo("nginx.ingress.kubernetes.io/upstream-hash-by: $remote_addr"
                + " but no backend service (spec.rules[].http.paths[].backend.service.name)");
    }

    @Test
    void l26ProbeOnRootButNotForAStaticServer() {
        String c = "        livenessProbe:\n          httpGet: {path: /, port: 8080}\n";
        assertThat(only(lint(deployment(c)), "L26").severity()).isEqualTo(Severity.INFO);
        assertThat(rules(lint(deployment(c).replace("example/web:1.0", "nginx:1.27")))).doesNotContain("L26");
    }

    @Test
    void everyFixWithAPatchIsReLintedAndNeverLowersABudget() {
        // one manifest per rule whose fix is a change to the container
        Map<String, String> shapes = Map.of(
                "L8", "        ports:\n        - {name: http, containerPort: 8080}\n"
                        + "        livenessProbe:\n          httpGet: {path: /livez, port: 8080}\n          periodSeconds: 5\n",
                "L17", "        livenessProbe:\n          httpGet: {host: 10.0.0.1, path: /livez, port: 8081}\n",
                "L19", "        restartPolicy: Never\n        livenessProbe:\n          httpGet: {path: /livez, port: 8081}\n",
                "L3", "        livenessProbe:\n          httpGet: {path: /livez, port: 8080}\n          timeoutSeconds: 1\n"
                        + "        readinessProbe:\n          httpGet: {path: /readyz, port: 8080}\n          timeoutSeconds: 3\n",
                "L5", "        livenessProbe:\n          httpGet: {path: /livez, port: 8080}\n          initialDelaySeconds: 90\n"
                        + "          periodSeconds: 5\n",
                "L16", "        resources:\n          limits: {cpu: 250m}\n"
                        + "        livenessProbe:\n          httpGet: {path: /livez, port: 8081}\n          periodSeconds: 5\n"
                        + "        readinessProbe:\n          httpGet: {path: /readyz, port: 8080}\n          periodSeconds: 10\n"
                        + "          failureThreshold: 6\n",
                "L21", "        livenessProbe:\n          httpGet: {path: /livez, port: 8080}\n          periodSeconds: 5\n"
                        + "        readinessProbe:\n          httpGet: {path: /readyz, port: 8080}\n          periodSeconds: 10\n",
                "L22", "        livenessProbe:\n          httpGet: {path: /livez, port: 8080}\n"
                        + "        readinessProbe:\n          httpGet: {path: /readyz, port: 8080}\n"
                        + "        startupProbe:\n          httpGet: {path: /readyz, port: 8080}\n          failureThreshold: 30\n");
        shapes.forEach((rule, c) -> {
            LintReport r = lint(Manifests.jvm(c));
            Finding f = only(r, rule);
            assertThat(f.patch()).as(rule).isPresent();
            assertThat(f.fix()).as(rule + ": a fix that passed its check is offered").isNotEmpty();
            // the check itself, as the linter runs it
            Target t = Manifests.target(Manifests.jvm(c));
            List<Finding> before = new java.util.ArrayList<>();
            Rules.all().forEach(x -> x.check(t, LintContext.empty(), before::add));
            assertThat(FixCheck.problem(f, t, before, Rules.all(), LintContext.empty())).as(rule).isEmpty();
            com.fasterxml.jackson.databind.node.ObjectNode copy = t.container().deepCopy();
            f.patch().get().apply(copy);
            Target fixed = t.with(copy).orElseThrow();
            assertThat(FixCheck.startBudget(fixed.pod().get())).as(rule).isGreaterThanOrEqualTo(FixCheck.startBudget(t.pod().get()));
            assertThat(FixCheck.livenessBudget(fixed.pod().get())).as(rule)
                    .isGreaterThanOrEqualTo(FixCheck.livenessBudget(t.pod().get()));
        });
    }

    @Test
    void aFixThatShrinksTheStartUpBudgetIsNotOffered() {
        // the old L5 fix: a startup probe of about 2 × the delay (120 s) where liveness allows 60 + 21 × 5 = 165 s today
        String c = "        livenessProbe:\n          httpGet: {path: /livez, port: 8080}\n          initialDelaySeconds: 60\n"
                + "          periodSeconds: 5\n          failureThreshold: 21\n";
        Target t = Manifests.target(Manifests.jvm(c));
        com.fasterxml.jackson.databind.node.ObjectNode startup = JSON.createObjectNode();
        startup.putObject("httpGet").put("path", "/livez").put("port", 8080);
        startup.put("periodSeconds", 5).put("failureThreshold", 24);
        Finding shrinking = t.finding(Rules.find("L5"), "livenessProbe", "m", "", "add a startupProbe of 120s",
                Finding.Patch.set("startupProbe", startup).andThen(Finding.Patch.set("livenessProbe.initialDelaySeconds", 0)));
        List<Finding> before = new java.util.ArrayList<>();
        Rules.all().forEach(x -> x.check(t, LintContext.empty(), before::add));
        assertThat(FixCheck.problem(shrinking, t, before, Rules.all(), LintContext.empty()))
                .hasValue("the fix shrinks the start-up budget from 165s to 120s");
        // the rule's own fix keeps it: 33 × 5 s = 165 s
        assertThat(only(lint(Manifests.jvm(c)), "L5").fix()).contains("failureThreshold 33").contains("≥ the 165s");
    }

    @Test
    void everyRuleHasItsPageWithTheFiveSectionsAndItsUrlInTheTextOutput() throws Exception {
        for (Rule r : Rules.all()) {
            java.nio.file.Path page = java.nio.file.Path.of("..", "docs", "lint", r.id() + ".md");
            assertThat(page).as(r.id()).exists();
            String text = java.nio.file.Files.readString(page);
            assertThat(text).as(r.id()).startsWith("# " + r.id() + " — " + r.name()).contains("**What it finds.**",
                    "**Why it matters.**", "**When it is wrong.**", "**The fix.**", "**Source.**");
            assertThat(r.docUrl()).isEqualTo("https://github.com/vitals-dev/vitals/blob/main/docs/lint/" + r.id() + ".md");
        }
        java.io.StringWriter out = new java.io.StringWriter();
        LintFormat.TEXT.write(lint(deployment("        resources:\n          limits: {cpu: cpu-limit}\n")),
                java.util.Optional.of(Severity.ERROR), "test", out);
        assertThat(out.toString()).contains("error L23 invalid-quantity")
                .contains("    see: https://github.com/vitals-dev/vitals/blob/main/docs/lint/L23.md\n")
                .doesNotContain("(resource.Quantity)");
    }
}
