package dev.vitals.kubesim.lint;

import static dev.vitals.kubesim.lint.Manifests.deployment;
import static dev.vitals.kubesim.lint.Manifests.lint;
import static dev.vitals.kubesim.lint.Manifests.only;
import static dev.vitals.kubesim.lint.Manifests.rules;
import static org.assertj.core.api.Assertions.assertThat;

import dev.vitals.kubesim.model.ProbeType;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Every manifest-only rule: a manifest that triggers it and one that must not. */
class LintRulesTest {
    private static final String SAME_HTTP = "        ports:\n        - {name: http, containerPort: 8080}\n"
            + "        livenessProbe:\n          httpGet: {path: /health, port: http}\n"
            + "        readinessProbe:\n          httpGet: {path: /health, port: 8080}\n";

    @Test
    void l1FiresForOneHttpPathOfAJvmEvenWhenOnePortIsNamed() {
        Finding f = only(lint(Manifests.jvm(SAME_HTTP)), "L1");
        assertThat(f.line()).isEqualTo(19);
        assertThat(f.field()).isEqualTo("containers[app].livenessProbe.httpGet.path");
        assertThat(f.message()).contains("request pool");
        assertThat(f.fix()).contains("/livez");
        // unknown runtime: a trivial in-process handler of unknown cost is not flagged
        assertThat(rules(lint(deployment(SAME_HTTP)))).doesNotContain("L1");
    }

    @Test
    void l1DoesNotFireForSeparateEndpointsTcpOrALivenessThatWaitsMuchLonger() {
        // metrics-server's shape: /livez and /readyz on one port
        String sep = "        ports:\n        - {name: https, containerPort: 10250}\n"
                + "        livenessProbe:\n          httpGet: {path: /livez, port: https, scheme: HTTPS}\n"
                + "        readinessProbe:\n          httpGet: {path: /readyz, port: https, scheme: HTTPS}\n";
        assertThat(rules(lint(Manifests.jvm(sep)))).doesNotContain("L1", "L4");
        // the docs' goproxy shape: tcpSocket on one port for both
        String tcp = "        ports:\n        - containerPort: 8080\n"
                + "        readinessProbe:\n          tcpSocket: {port: 8080}\n"
                + "        livenessProbe:\n          tcpSocket: {port: 8080}\n";
        assertThat(rules(lint(Manifests.jvm(tcp)))).doesNotContain("L1", "L4");
        // path AND query: /healthz?full=true and /healthz are different checks
        String query = "        livenessProbe:\n          httpGet: {path: '/healthz', port: 8080}\n"
                + "        readinessProbe:\n          httpGet: {path: '/healthz?full=true', port: 8080}\n";
        assertThat(rules(lint(Manifests.jvm(query)))).doesNotContain("L1");
        assertThat(rules(lint(Manifests.jvm(query.replace("'/healthz'", "'/healthz?full=true'"))))).contains("L1");
        // liveness tolerates 3 × 10 × 10 s, readiness 3 × 10 s: sheds long before it kills
        String patient = SAME_HTTP.replace("httpGet: {path: /health, port: http}\n",
                "httpGet: {path: /health, port: http}\n          failureThreshold: 30\n");
        assertThat(rules(lint(Manifests.jvm(patient)))).doesNotContain("L1");
    }

    @Test
    void l1GrpcAndExecAreNotFlaggedWithoutADependency() {
        String grpc = "        ports:\n        - containerPort: 9555\n"
                + "        livenessProbe:\n          grpc: {port: 9555}\n"
                + "        readinessProbe:\n          grpc: {port: 9555}\n";
        assertThat(rules(lint(Manifests.jvm(grpc)))).doesNotContain("L1");
        String exec = "        livenessProbe:\n          exec: {command: [pg_isready]}\n"
                + "        readinessProbe:\n          exec: {command: [pg_isready]}\n";
        assertThat(rules(lint(Manifests.jvm(exec)))).doesNotContain("L1");
    }

    @Test
    void l3FiresOnlyOnTheSamePort() {
        String same = "        livenessProbe:\n          httpGet: {path: /livez, port: 8080}\n          timeoutSeconds: 1\n"
                + "        readinessProbe:\n          httpGet: {path: /readyz, port: 8080}\n          timeoutSeconds: 3\n";
        Finding f = only(lint(deployment(same)), "L3");
        assertThat(f.fix()).isEqualTo("set livenessProbe.timeoutSeconds to at least 3");
        assertThat(f.field()).endsWith("livenessProbe.timeoutSeconds");
        String otherPort = same.replace("path: /livez, port: 8080", "path: /livez, port: 8081");
        assertThat(rules(lint(deployment(otherPort)))).doesNotContain("L3");
    }

    @Test
    void l4DoesNotRepeatL1OnOneEndpoint() {
        // same endpoint, liveness 3 × 10 s = 30 s, readiness 3 × 10 s = 30 s: L1 says it once
        String same = "        livenessProbe:\n          httpGet: {path: /health, port: 8080}\n"
                + "        readinessProbe:\n          httpGet: {path: /health, port: 8080}\n";
        assertThat(rules(lint(Manifests.jvm(same)))).contains("L1").doesNotContain("L4");
        // separate endpoints: budgets are not compared (the metrics-server false positive)
        String sep = same.replaceFirst("/health", "/livez").replace("path: /health", "path: /readyz");
        assertThat(rules(lint(Manifests.jvm(sep)))).doesNotContain("L4", "L1");
    }

    @Test
    void l21LivenessBeforeReadinessOnOnePortIsAnErrorWithoutAppConfig() {
        // the incident: 15 s against 30 s on the application's port, no CPU limit, no --app-config
        String c = "        livenessProbe:\n          httpGet: {path: /livez, port: 8080}\n          periodSeconds: 5\n"
                + "        readinessProbe:\n          httpGet: {path: /readyz, port: 8080}\n          periodSeconds: 10\n";
        Finding f = only(lint(Manifests.jvm(c)), "L21");
        assertThat(f.severity()).isEqualTo(Severity.ERROR);
        assertThat(f.message()).contains("after 15s").contains("after 30s");
        assertThat(f.fix()).startsWith("raise livenessProbe.failureThreshold to 7 (7 × 5s = 35s > 30s; timing out after 1s, 36s > 31s)");
        // without a Service in the input: lowered one step, and it says why
        Finding lowered = only(lint(deployment(c)), "L21");
        assertThat(lowered.severity()).isEqualTo(Severity.WARNING);
        assertThat(lowered.message()).contains("no Service in the input");
        // tcpSocket liveness: the kernel completes the connect for a busy server
        assertThat(rules(lint(Manifests.jvm(c.replace("httpGet: {path: /livez, port: 8080}", "tcpSocket: {port: 8080}")))))
                .doesNotContain("L21");
        // different ports: a probe server of its own
        assertThat(rules(lint(Manifests.jvm(c.replace("/livez, port: 8080", "/livez, port: 8081"))))).doesNotContain("L21");
    }

    @Test
    void l21FiresWhenLivenessAndReadinessGiveUpOnTheSameTick() {
        // the incident's own probes: 3 × 2 s both, timeoutSeconds 3, on the JVM's request port, a Service selecting it
        String c = "        livenessProbe:\n          httpGet: {path: /livez, port: 8080}\n          periodSeconds: 2\n"
                + "          timeoutSeconds: 3\n          failureThreshold: 3\n"
                + "        readinessProbe:\n          httpGet: {path: /readyz, port: 8080}\n          periodSeconds: 2\n"
                + "          timeoutSeconds: 3\n          failureThreshold: 3\n";
        LintReport r = lint(Manifests.jvm(c));
        Finding f = only(r, "L21");
        assertThat(f.severity()).isEqualTo(Severity.ERROR);
        assertThat(f.message()).contains("liveness gives up after 6s").contains("readiness after 6s")
                .contains("on the same tick readiness fails").doesNotContain("0s before");
        // the fix makes liveness strictly longer: 4 × 2 s = 8 s > 6 s
        assertThat(f.fix()).startsWith("raise livenessProbe.failureThreshold to 4 (4 × 2s = 8s > 6s; timing out after 3s, 14s > 11s)");
        // one step longer on liveness and it is no longer flagged
        assertThat(rules(lint(Manifests.jvm(c.replaceFirst("failureThreshold: 3", "failureThreshold: 4"))))).doesNotContain("L21");
        // equal budgets on a server of unknown runtime: not guessed (strictly shorter still is)
        String unknown = deployment(c) + Manifests.service("web", "");
        assertThat(rules(lint(unknown))).doesNotContain("L21");
        assertThat(rules(lint(deployment(c.replaceFirst("failureThreshold: 3", "failureThreshold: 2")) + Manifests.service("web", ""))))
                .contains("L21");
    }

    @Test
    void l21FixHoldsWhenEveryProbeTimesOut() {
        // readiness every 1 s with a 5 s timeout: timing out, each attempt lasts 5 s and delays the next tick (spec R18),
        // so readiness sheds after 1 + 9 × 5 + 5 = 51 s; liveness 2 × 5 s gives up after 5 + 1 × 5 + 5 = 15 s
        String c = "        livenessProbe:\n          httpGet: {path: /livez, port: 8080}\n          periodSeconds: 5\n"
                + "          timeoutSeconds: 5\n          failureThreshold: 2\n"
                + "        readinessProbe:\n          httpGet: {path: /readyz, port: 8080}\n          periodSeconds: 1\n"
                + "          timeoutSeconds: 5\n          failureThreshold: 10\n";
        Finding f = only(lint(Manifests.jvm(c)), "L21");
        // counting periods alone, 3 (15 s > 10 s) would do, and liveness would still kill at 5 + 2 × 5 + 5 = 20 s < 51 s:
        // the fix counts liveness' own timeoutSeconds: 5 + 9 × 5 + 5 = 55 s > 51 s
        assertThat(f.fix()).startsWith("raise livenessProbe.failureThreshold to 10 (10 × 5s = 50s > 10s; timing out after 5s, 55s > 51s)");
        assertThat(fixCheck(c, f)).isEmpty();
        // the fix applied: no L21 and nothing else new
        assertThat(rules(lint(Manifests.jvm(c.replace("failureThreshold: 2", "failureThreshold: 10"))))).doesNotContain("L21");
        // the shape of the old fix (3) is still flagged, now only by the timing-out order, and says so
        Finding old = only(lint(Manifests.jvm(c.replace("failureThreshold: 2", "failureThreshold: 3"))), "L21");
        assertThat(old.message()).startsWith("when each probe times out, liveness gives up after 20s (periodSeconds 5 + 2 × 5s"
                + " + timeoutSeconds 5 = 20s), readiness after 51s").contains("31s before it would have been taken out");
        // strictly sooner is flagged on any runtime
        assertThat(rules(lint(deployment(c.replace("failureThreshold: 2", "failureThreshold: 3")) + Manifests.service("web", ""))))
                .contains("L21");
        // one failure fewer than the fix is still flagged: the fix is the smallest that holds
        assertThat(rules(lint(Manifests.jvm(c.replace("failureThreshold: 2", "failureThreshold: 9"))))).contains("L21");
    }

    private static java.util.Optional<String> fixCheck(String c, Finding f) {
        Target t = Manifests.target(Manifests.jvm(c));
        java.util.List<Finding> before = new java.util.ArrayList<>();
        Rules.all().forEach(x -> x.check(t, LintContext.empty(), before::add));
        return FixCheck.problem(f, t, before, Rules.all(), LintContext.empty());
    }

    @Test
    void l5FiresForALongDelayWithoutStartupProbe() {
        // case C11: liveness delay 30 s, no startup probe
        String c11 = "        livenessProbe:\n          httpGet: {path: /livez, port: 8080}\n          initialDelaySeconds: 30\n";
        Finding f = only(lint(deployment(c11)), "L5");
        // liveness allows 30 + 3 × 10 = 60 s today: the startup probe allows no less
        assertThat(f.fix()).contains("failureThreshold 6").contains("≥ the 60s").contains("initialDelaySeconds to 0");
        assertThat(f.severity()).isEqualTo(Severity.INFO);
        assertThat(rules(lint(deployment(c11.replace("30", "10"))))).doesNotContain("L5");
        String withStartup = c11 + "        startupProbe:\n          httpGet: {path: /livez, port: 8080}\n          failureThreshold: 30\n";
        assertThat(rules(lint(deployment(withStartup)))).doesNotContain("L5");
    }

    @Test
    void l2PredictsTheKillTimeWithTheKubeletModel() {
        // case C11: start-up 5 min; liveness delay 30 s, period 10 s, threshold 3, no startup probe
        String c11 = "        livenessProbe:\n          httpGet: {path: /livez, port: 8080}\n          initialDelaySeconds: 30\n"
                + "          periodSeconds: 10\n          failureThreshold: 3\n";
        LintContext ctx = new LintContext(Optional.of(Duration.ofMinutes(5)), Optional.empty(), Map.of());
        Finding f = only(lint(deployment(c11), ctx), "L2");
        assertThat(f.severity()).isEqualTo(Severity.ERROR);
        assertThat(f.message()).contains("killed by the liveness probe at 60.0s").contains("first probe at 40.0s");
        assertThat(f.fix()).contains("failureThreshold 45");
        String fixed = "        livenessProbe:\n          httpGet: {path: /livez, port: 8080}\n"
                + "        startupProbe:\n          httpGet: {path: /livez, port: 8080}\n          periodSeconds: 10\n"
                + "          failureThreshold: 45\n";
        assertThat(rules(lint(deployment(fixed), ctx))).doesNotContain("L2");
    }

    @Test
    void l6FiresForShellsTimeoutSubshellsPipesAndBackgroundJobs() {
        // case C19
        for (String cmd : List.of("[sh, -c, 'sleep 10000']", "[/bin/bash, -c, /ready-probe.sh]",
                "[timeout, '5', pg_isready]", "[/usr/bin/check, '$(cat /tmp/port)']", "[nodetool, status, '|', grep, UN]",
                "[run-check, '&']")) {
            String exec = "        readinessProbe:\n          exec:\n            command: " + cmd + "\n";
            assertThat(rules(lint(deployment(exec)))).as(cmd).contains("L6");
        }
        Finding f = only(lint(deployment("        livenessProbe:\n          exec:\n            command: [sh, -c, 'timeout 3 curl -f"
                + " localhost:8080 || exit 1']\n")), "L6");
        assertThat(f.message()).contains("a shell (sh)").contains("timeout");
        assertThat(f.field()).endsWith("livenessProbe.exec.command");
    }

    @Test
    void l6DoesNotFireForOneBinaryRunDirectly() {
        for (String cmd : List.of("[cat, /tmp/healthy]", "[/bin/grpc_health_probe, '-addr=:9555']", "[pg_isready, -U, app]",
                "[redis-cli, ping]")) {
            String exec = "        livenessProbe:\n          exec:\n            command: " + cmd + "\n";
            assertThat(rules(lint(deployment(exec)))).as(cmd).doesNotContain("L6");
        }
    }

    @Test
    void l7FiresForAnUndeclaredPortOnceForBothProbes() {
        // the ingress controller shape: probes on a health port missing from ports[]
        String c = "        ports:\n        - {name: http, containerPort: 80}\n        - {name: https, containerPort: 443}\n"
                + "        livenessProbe:\n          httpGet: {path: /healthz, port: 10254}\n"
                + "        readinessProbe:\n          httpGet: {path: /ready, port: 10254}\n";
        Finding f = only(lint(deployment(c)), "L7");
        assertThat(f.message()).contains("liveness and readiness probes connect to port 10254").contains("80 http, 443 https");
        assertThat(rules(lint(deployment(c.replace("containerPort: 443}", "containerPort: 443}\n        - {name: health,"
                + " containerPort: 10254}"))))).doesNotContain("L7");
        // no ports declared at all: nothing to compare with
        assertThat(rules(lint(deployment("        livenessProbe:\n          httpGet: {path: /healthz, port: 10254}\n"))))
                .doesNotContain("L7");
    }

    @Test
    void l8FiresForAServingContainerWithoutReadiness() {
        String c = "        ports:\n        - containerPort: 6379\n        livenessProbe:\n          tcpSocket: {port: 6379}\n";
        Finding f = only(lint(deployment(c)), "L8");
        assertThat(f.fix()).contains("tcpSocket {port: 6379}").doesNotContain("/readyz");
        // a job, a container without ports, and a container with readiness do not fire
        String job = "apiVersion: batch/v1\nkind: Job\nmetadata: {name: migrate}\nspec:\n  template:\n    spec:\n"
                + "      containers:\n      - name: app\n        image: x\n        ports:\n        - containerPort: 8080\n";
        assertThat(rules(lint(job))).doesNotContain("L8");
        assertThat(rules(lint(deployment("        args: [--log]\n")))).doesNotContain("L8");
        assertThat(rules(lint(deployment(c + "        readinessProbe:\n          tcpSocket: {port: 6379}\n"))))
                .doesNotContain("L8");
    }

    @Test
    void l8ReportsAPodOnceAndNotWhenAnyContainerHasReadiness() {
        // the exporter-with-proxy-sidecar shape: two serving containers, no readiness anywhere: one finding
        String two = "        ports:\n        - containerPort: 9115\n      - name: kube-rbac-proxy\n        image: proxy\n"
                + "        ports:\n        - {name: https, containerPort: 9443}\n";
        assertThat(only(lint(deployment(two)), "L8").container()).isEqualTo("app");
        // the main container has readiness: the pod waits for it; the sidecar does not fire
        String ready = "        ports:\n        - containerPort: 9115\n        readinessProbe:\n          tcpSocket: {port: 9115}\n"
                + "      - name: kube-rbac-proxy\n        image: proxy\n        ports:\n        - {name: https, containerPort: 9443}\n";
        assertThat(rules(lint(deployment(ready)))).doesNotContain("L8");
    }

    @Test
    void r22NamedPortThatMatchesNothingIsAnErrorAtItsLine() {
        String c = "        ports:\n        - {name: http, containerPort: 8080}\n"
                + "        livenessProbe:\n          httpGet: {path: /livez, port: htp}\n";
        Finding f = only(lint(deployment(c)), "R22");
        assertThat(f.severity()).isEqualTo(Severity.ERROR);
        assertThat(f.line()).isEqualTo(19);
        assertThat(f.field()).isEqualTo("containers[app].livenessProbe.httpGet.port");
        assertThat(f.message()).contains("'htp'").contains("http");
    }

    @Test
    void apiValidationErrorsNameTheFieldAndLine() {
        String c = "        livenessProbe:\n          httpGet: {path: /livez, port: 8080}\n          successThreshold: 2\n";
        Finding f = only(lint(deployment(c)), "api");
        assertThat(f.message()).doesNotContain("R9").contains("must be 1 for liveness");
        assertThat(f.line()).isEqualTo(18);
        assertThat(f.field()).isEqualTo("containers[app].livenessProbe.successThreshold");
    }

    @Test
    void containersWrittenAsAMappingIsAnError() {
        String yaml = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n    name: app\n    image: x\n";
        assertThat(only(lint(yaml), "api").message()).contains("containers must be a list");
    }

    @Test
    void anAnnotationWithAReasonSilencesARuleForThatObjectOnly() {
        // liveness 2 × 10 s on the endpoint readiness asks 3 × 10 s: L1 and L21 fire
        String early = SAME_HTTP.replace("httpGet: {path: /health, port: http}\n", "httpGet: {path: /health, port: http}\n"
                + "          failureThreshold: 2\n");
        String silenced = Manifests.jvm(early).replace("metadata:\n  name: web\n",
                "metadata:\n  name: web\n  annotations:\n    ignore-check.vitals.dev/L1: \"one endpoint on purpose: it checks"
                        + " nothing remote\"\n    ignore-check.vitals.dev/liveness-before-readiness: \"\"\n");
        LintReport r = lint(silenced);
        assertThat(rules(r)).doesNotContain("L1").contains("L21");
        assertThat(r.suppressed()).singleElement().satisfies(s -> {
            assertThat(s.finding().rule()).isEqualTo("L1");
            assertThat(s.reason()).startsWith("one endpoint on purpose");
        });
    }

    @Test
    void l15SaysHowOftenMeasuredLatencyBecomesAKill() {
        String c = "        livenessProbe:\n          httpGet: {path: /livez, port: 8080}\n          timeoutSeconds: 1\n";
        LintContext always = new LintContext(Optional.empty(), Optional.empty(),
                Map.of(ProbeType.LIVENESS, List.of(Duration.ofMillis(1200))));
        Finding f = only(lint(deployment(c), always), "L15");
        assertThat(f.severity()).isEqualTo(Severity.ERROR);
        assertThat(f.message()).contains("every measured liveness probe (1.20s)").contains("after 3 × 10s");
        LintContext some = new LintContext(Optional.empty(), Optional.empty(), Map.of(ProbeType.LIVENESS,
                List.of(Duration.ofMillis(100), Duration.ofMillis(200), Duration.ofMillis(1200), Duration.ofMillis(150))));
        Finding g = only(lint(deployment(c), some), "L15");
        assertThat(g.severity()).isEqualTo(Severity.WARNING);
        assertThat(g.message()).contains("25.0% of measured liveness probes").contains("needs 3 in a row").contains("per pod per day");
        LintContext fast = new LintContext(Optional.empty(), Optional.empty(),
                Map.of(ProbeType.LIVENESS, List.of(Duration.ofMillis(100), Duration.ofMillis(300))));
        assertThat(rules(lint(deployment(c), fast))).doesNotContain("L15");
        LintContext thin = new LintContext(Optional.empty(), Optional.empty(), Map.of(ProbeType.LIVENESS, List.of(Duration.ofMillis(700))));
        assertThat(only(lint(deployment(c), thin), "L15").message()).contains("passes half of timeoutSeconds 1");
    }

    @Test
    void disabledRulesDoNotRunAndEnableRunsOnlyTheNamedOnes() {
        List<Rule> noL1 = Rules.select(List.of(), List.of("L1,restart-before-shed"));
        LintReport r = new Linter(noL1, LintContext.empty(), Optional.empty())
                .lint(List.of(LintInput.text("d.yaml", Manifests.jvm(SAME_HTTP))));
        assertThat(rules(r)).doesNotContain("L1", "L4");
        List<Rule> onlyL1 = Rules.select(List.of("L1"), List.of());
        r = new Linter(onlyL1, LintContext.empty(), Optional.empty()).lint(List.of(LintInput.text("d.yaml", Manifests.jvm(SAME_HTTP))));
        assertThat(rules(r)).containsExactly("L1");
        // L7 is opt-in: not among the defaults, run when named
        assertThat(Rules.defaults()).extracting(Rule::id).doesNotContain("L7").contains("L1", "L21");
        assertThat(Rules.select(List.of("L7"), List.of())).extracting(Rule::id).containsExactly("L7");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Rules.select(List.of(), List.of("L99")))
                .isInstanceOf(dev.vitals.kubesim.input.InvalidInputException.class).hasMessageContaining("unknown rule 'L99'").hasMessageContaining("L15");
    }

    @Test
    void l16CpuStarvedLivenessFiresForSeparatePortsUnderACpuLimit() {
        // liveness on a probe port of its own 3 × 5 s, readiness on the app port 6 × 10 s, limits.cpu 250m
        String c = "        resources:\n          limits: {cpu: 250m, memory: 512Mi}\n"
                + "        livenessProbe:\n          httpGet: {path: /livez, port: 8081}\n          periodSeconds: 5\n"
                + "        readinessProbe:\n          httpGet: {path: /readyz, port: 8080}\n          periodSeconds: 10\n"
                + "          failureThreshold: 6\n";
        Finding f = only(lint(Manifests.jvm(c)), "L16");
        assertThat(f.message()).contains("limits.cpu 250m").contains("CPU-starved JVM").contains("after about 15s").contains("needs 60s");
        assertThat(f.fix()).contains("raise livenessProbe.failureThreshold to 13");
        assertThat(rules(lint(Manifests.jvm(c.replace("cpu: 250m, ", ""))))).doesNotContain("L16", "L4");
        assertThat(rules(lint(Manifests.jvm(c.replace("failureThreshold: 6", "failureThreshold: 1"))))).doesNotContain("L16");
        // C25's shape, both on one port: L21's error, not repeated as L16
        assertThat(rules(lint(Manifests.jvm(c.replace("port: 8081", "port: 8080"))))).contains("L21").doesNotContain("L16");
        // tcpSocket liveness: the kernel completes the connect for a throttled JVM
        assertThat(rules(lint(Manifests.jvm(c.replace("httpGet: {path: /livez, port: 8081}", "tcpSocket: {port: 8081}")))))
                .doesNotContain("L16");
        // not a JVM: C25 is a JVM's hazard, not claimed for nginx
        assertThat(rules(lint(Manifests.jvm(c).replace("eclipse-temurin:21-jre", "nginx:1.27")))).doesNotContain("L16");
    }

    @Test
    void l16AndL21ShareTheFixThatHoldsWhenEveryProbeTimesOut() {
        // readiness every 1 s with a 5 s timeout sheds after 1 + 9 × 5 + 5 = 51 s when timing out (spec R18); liveness on a
        // port of its own, 2 × 5 s: the periods alone would ask 3 failures (20 s when timing out), the fix asks 10 (55 s)
        String c = "        resources:\n          limits: {cpu: 250m, memory: 512Mi}\n"
                + "        livenessProbe:\n          httpGet: {path: /livez, port: 8081}\n          periodSeconds: 5\n"
                + "          timeoutSeconds: 5\n          failureThreshold: 2\n"
                + "        readinessProbe:\n          httpGet: {path: /readyz, port: 8080}\n          periodSeconds: 1\n"
                + "          timeoutSeconds: 5\n          failureThreshold: 10\n";
        String expected = "raise livenessProbe.failureThreshold to 10 (10 × 5s = 50s > 10s; timing out after 5s, 55s > 51s)";
        Finding l16 = only(lint(Manifests.jvm(c)), "L16");
        assertThat(l16.fix()).startsWith(expected);
        assertThat(l16.patch()).isPresent();
        // the same probes on one port: L21's error, with the same fix
        assertThat(only(lint(Manifests.jvm(c.replace("port: 8081", "port: 8080"))), "L21").fix()).startsWith(expected);
    }

    @Test
    void l17ProbeHostFiresForAHostOnHttpOrTcp() {
        String host = "        livenessProbe:\n          httpGet: {host: 10.0.0.1, path: /livez, port: 8081}\n"
                + "        readinessProbe:\n          tcpSocket: {host: db.internal, port: 5432}\n";
        List<Finding> fs = lint(deployment(host)).findings().stream().filter(x -> x.rule().equals("L17")).toList();
        assertThat(fs).hasSize(2);
        assertThat(fs.get(0).field()).endsWith("livenessProbe.httpGet.host");
        assertThat(fs.get(0).message()).contains("host 10.0.0.1").contains("1.34");
        assertThat(fs.get(1).field()).endsWith("readinessProbe.tcpSocket.host");
        String none = "        livenessProbe:\n          httpGet: {path: /livez, port: 8081, httpHeaders: [{name: Host, value: a.b}]}\n";
        assertThat(rules(lint(deployment(none)))).doesNotContain("L17");
    }

    @Test
    void l18AContainersRestartPolicyIsDroppedBefore135() {
        String c = "        restartPolicy: Never\n        restartPolicyRules:\n        - action: Restart\n"
                + "          exitCodes: {operator: In, values: [42]}\n";
        LintContext v134 = new LintContext(Optional.empty(), Optional.empty(), Map.of(),
                dev.vitals.kubesim.model.KubernetesVersion.parse("1.34"));
        List<Finding> fs = lint(deployment(c), v134).findings().stream().filter(x -> x.rule().equals("L18")).toList();
        assertThat(fs).hasSize(2);
        assertThat(fs.get(0).message()).contains("Kubernetes 1.34").contains("pod's restartPolicy (Always) decides");
        assertThat(rules(lint(deployment(c)))).doesNotContain("L18"); // the default, 1.36
    }

    @Test
    void l19AProbeKillUnderRestartPolicyNeverIsFinal_computePodActions() {
        String job = "apiVersion: batch/v1\nkind: Job\nmetadata: {name: migrate}\nspec:\n  template:\n    spec:\n"
                + "      restartPolicy: POLICY\n      containers:\n      - name: app\n        image: x\n"
                + "        livenessProbe:\n          exec: {command: [test, -e, /tmp/alive]}\n";
        Finding f = only(lint(job.replace("POLICY", "Never")), "L19");
        assertThat(f.field()).endsWith("livenessProbe");
        assertThat(f.message()).contains("pod's restartPolicy Never").contains("first kill is final");
        assertThat(rules(lint(job.replace("POLICY", "OnFailure")))).doesNotContain("L19");
        // a container's own Never (KEP-5307, 1.35+) decides over the pod's Always; its rules never match a probe kill
        String own = "        restartPolicy: Never\n        restartPolicyRules:\n        - action: Restart\n"
                + "          exitCodes: {operator: In, values: [42]}\n        livenessProbe:\n          tcpSocket: {port: 8080}\n";
        Finding g = only(lint(deployment(own)), "L19");
        assertThat(g.message()).contains("container's restartPolicy Never").contains("restartPolicyRules match exit codes");
        LintContext v134 = new LintContext(Optional.empty(), Optional.empty(), Map.of(),
                dev.vitals.kubesim.model.KubernetesVersion.parse("1.34"));
        assertThat(rules(lint(deployment(own), v134))).doesNotContain("L19"); // dropped before 1.35: the pod's Always
    }

    @Test
    void l20ASidecarStartupProbeInANeverPodRestartsForever_computeInitContainerActions() {
        String pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  restartPolicy: POLICY\n"
                + "  initContainers:\n  - name: proxy\n    image: proxy\n    restartPolicy: Always\n"
                + "    startupProbe:\n      tcpSocket: {port: 15021}\n"
                + "  containers:\n  - name: app\n    image: x\n";
        Finding f = only(lint(pod.replace("POLICY", "Never")), "L20");
        assertThat(f.container()).isEqualTo("proxy");
        assertThat(f.message()).contains("restarted with back-off for as long as the pod lives");
        assertThat(rules(lint(pod.replace("POLICY", "Always")))).doesNotContain("L20");
        assertThat(rules(lint(pod.replace("POLICY", "Never").replace("    restartPolicy: Always\n", ""))))
                .doesNotContain("L20"); // a plain init container: the pod fails instead
    }
}
