package dev.vitals.kubesim.cli;

import dev.vitals.kubesim.Targets;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code vitals} command line: exit codes, bad input, reports. */
class CliTest {
    private static final Path EXAMPLES = Path.of("..", "examples", "kubesim");
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        return VitalsCommand.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
    }

    private static Path write(Path dir, String name, String text) throws Exception {
        Path p = dir.resolve(name);
        Files.writeString(p, text);
        return p;
    }

    @Test
    void helpListsTheSubcommands() {
        assertThat(run("--help")).isZero();
        assertThat(out.toString()).contains("simulate").contains("lint");
        assertThat(run("simulate", "--help")).isZero();
        assertThat(out.toString()).contains("--manifest").contains("--scenario").contains("--json").contains("--html");
    }

    @Test
    void badManifestsExitTwoWithAClearError(@TempDir Path dir) throws Exception {
        String ok = "kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: app\n    ports: [{name: http, containerPort: 8080}]\n"
                + "    livenessProbe:\n      httpGet: {path: /livez, port: %s}\n      periodSeconds: %s\n";
        String[][] cases = {
            {"not-yaml.yaml", "kind: [unclosed\n  x: {", "not valid YAML"},
            {"no-containers.yaml", "kind: Service\nmetadata: {name: s}\n", "no containers found"},
            {"invalid.yaml", String.format(ok, "http", "-1"), "[R8]"},
            {"port-name.yaml", String.format(ok, "metrics", "1"), "port name 'metrics' matches no container port"},
        };
        for (String[] c : cases) {
            out.getBuffer().setLength(0);
            err.getBuffer().setLength(0);
            Path f = write(dir, c[0], c[1]);
            assertThat(run("simulate", "--manifest", f.toString(), "--", "true")).as(c[0]).isEqualTo(2);
            assertThat(err.toString()).as(c[0]).startsWith("error: ").contains(c[2]);
        }
        Path f = write(dir, "two.yaml", String.format(ok, "http", "1"));
        assertThat(run("simulate", "--manifest", f.toString(), "--container", "db", "--", "true")).isEqualTo(2);
        assertThat(err.toString()).contains("no container named 'db'");
        assertThat(run("simulate", "--manifest", dir.resolve("missing.yaml").toString(), "--", "true")).isEqualTo(2);
        assertThat(err.toString()).contains("cannot read manifest").contains("missing.yaml: no such file");
        err.getBuffer().setLength(0);
        assertThat(run("simulate", "--manifest", dir.toString(), "--", "true")).isEqualTo(2);
        assertThat(err.toString()).contains("cannot read manifest").doesNotContain("java.io.");
        err.getBuffer().setLength(0);
        Path caret = write(dir, "caret.yaml", "a: b\n  c: d\n");
        assertThat(run("lint", caret.toString())).isEqualTo(2);
        assertThat(err.toString().strip().lines().count()).as("one line: " + err).isEqualTo(1);
    }

    @Test
    void aTerminationGracePeriodBeyondTheLongestRunIsBadInputNamingTheBound() {
        // found by QA: --termination-grace-period 99999999999999 was taken (and overflowed the SIGKILL timer)
        for (String g : new String[] {"86401", "99999999999999", "-1"}) {
            err.getBuffer().setLength(0);
            assertThat(run("simulate", "--liveness", "tcp://:1", "--termination-grace-period", g, "--", "true")).as(g).isEqualTo(2);
            assertThat(err.toString()).as(g).isEqualTo("error: --termination-grace-period must be 0-86400 seconds"
                    + " (at most 24h, the longest run), was " + g + "\n");
        }
        err.getBuffer().setLength(0);
        assertThat(run("simulate", "--liveness", "tcp://:1", "--termination-grace-period", "99999999999999999999", "--",
                "true")).isEqualTo(2);
        assertThat(err.toString()).isEqualTo("error: Invalid value for option '--termination-grace-period':"
                + " '99999999999999999999' is not a long (see 'vitals simulate --help')\n");
    }

    @Test
    void anUnknownCommandIsNamedWithTheCommandsThereAre() {
        assertThat(run("nosuch")).isEqualTo(2);
        assertThat(err.toString()).contains("unknown command 'nosuch' (commands: ").contains("simulate").contains("lint")
                .contains("replay");
    }

    @Test
    void badScenariosFlagsAndMissingCommandExitTwo(@TempDir Path dir) throws Exception {
        Path bad = write(dir, "s.yaml", "actions:\n  - at: 1s\n    teleport: now\n");
        assertThat(run("simulate", "--liveness", "http://:8080/", "--scenario", bad.toString(), "--", "true")).isEqualTo(2);
        assertThat(err.toString()).contains("unknown action 'teleport'");
        Path undeclared = write(dir, "u.yaml", "actions:\n  - at: 1s\n    heal: db\n");
        assertThat(run("simulate", "--liveness", "http://:8080/", "--scenario", undeclared.toString(), "--", "true")).isEqualTo(2);
        assertThat(err.toString()).contains("names proxy 'db'");
        assertThat(run("simulate", "--liveness", "http://:8080/")).isEqualTo(2);
        assertThat(err.toString()).contains("no target command");
        assertThat(run("simulate", "--", "true")).isEqualTo(2);
        assertThat(err.toString()).contains("no probes");
        assertThat(run("simulate", "--liveness", "http://:8080/,successThreshold=3", "--", "true")).isEqualTo(2);
        assertThat(err.toString()).contains("R9");
        assertThat(run("simulate", "--bogus")).isEqualTo(2);
        assertThat(run("simulate", "--liveness", "http://:8080/", "--duration", "forever", "--", "true")).isEqualTo(2);
        assertThat(run("simulate", "--liveness", "http://:8080/", "--proxy", "db:1", "--", "true")).isEqualTo(2);
    }

    @Test
    void lintExitCodes(@TempDir Path dir) throws Exception {
        // case C11 on the example: without a startup probe, a 12 s start is killed at 10 s
        assertThat(run("lint", EXAMPLES.resolve("slow-start.yaml").toString(), "--startup-seconds", "12")).isEqualTo(1);
        assertThat(out.toString()).contains("error L2 startup-budget").contains("killed by the liveness probe at 10.0s")
                .contains("fix: ");
        out.getBuffer().setLength(0);
        assertThat(run("lint", EXAMPLES.resolve("slow-start-fixed.yaml").toString(), "--startup-seconds", "12")).isZero();
        assertThat(out.toString()).contains("1 workload, 1 container: 0 errors, 0 warnings");
        Path notYaml = write(dir, "x.yaml", "{{{");
        assertThat(run("lint", notYaml.toString())).isEqualTo(2);
    }

    @Test
    void simulateTheExampleWritesReportsAndChecksExpectations(@TempDir Path dir) throws Exception {
        int port = Targets.freePort();
        String manifest = Files.readString(EXAMPLES.resolve("slow-start-fixed.yaml")).replace("17480", Integer.toString(port));
        Path m = write(dir, "fixed.yaml", manifest);
        // Generous on purpose: the load must finish inside the run even on a loaded 2-core machine.
        Path scenario = write(dir, "s.yaml", "duration: 14s\nactions:\n  - at: 4s\n    load: {count: 20, concurrency: 4, path: /readyz, port: "
                + port + ", timeout: 2s}\nexpect:\n  - restarts == 0\n  - ready during 9s..14s\n  - readiness p99 < 1s\n");
        Path json = dir.resolve("r.json");
        Path html = dir.resolve("r.html");
        List<String> args = new ArrayList<>(List.of("simulate", "--manifest", m.toString(), "--scenario", scenario.toString(),
                "--json", json.toString(), "--html", html.toString(), "--"));
        args.addAll(Targets.command(port, "refuse:2,200"));
        int code = run(args.toArray(new String[0]));
        assertThat(code).as(out + "\n" + err).isZero();
        assertThat(out.toString()).contains("PASS restarts == 0").contains("load finished: 20 sent");
        JsonNode root = new ObjectMapper().readTree(json.toFile());
        assertThat(root.get("restarts").isInt()).isTrue();
        assertThat(root.get("restarts").asInt()).isZero();
        Set<String> types = Set.of("start", "probe", "ready", "not-ready", "kill", "exit");
        assertThat(root.get("events")).isNotEmpty().allSatisfy(e -> {
            assertThat(e.get("t").isNumber()).isTrue();
            assertThat(types).contains(e.get("type").asText());
            if (e.get("type").asText().equals("probe")) {
                assertThat(Set.of("startup", "liveness", "readiness")).contains(e.get("probe").asText());
                assertThat(Set.of("success", "failure")).contains(e.get("result").asText());
                assertThat(e.get("latencyMs").isNumber()).isTrue();
                assertThat(e.has("detail")).isTrue();
            }
        });
        String page = Files.readString(html);
        assertThat(page).contains("<svg").contains(">startup<").contains(">liveness<").contains(">readiness<").contains(">Ready<")
                .contains("<p class='verdict pass'>verdict: PASS</p>").contains("<td>restarts == 0</td>").contains("<td>scenario</td>");

        // the same run with an expectation that cannot hold exits 1
        out.getBuffer().setLength(0);
        Path strict = write(dir, "strict.yaml", "duration: 3s\nexpect:\n  - ready at 1s\n");
        List<String> args2 = new ArrayList<>(List.of("simulate", "-q", "--manifest", m.toString(), "--scenario", strict.toString(), "--"));
        args2.addAll(Targets.command(port, "refuse:2,200"));
        assertThat(run(args2.toArray(new String[0]))).isEqualTo(1);
        assertThat(out.toString()).contains("FAIL ready at 1s");
    }

    @Test
    void badResourceFlagsExitTwoWithOneLine() {
        String[][] cases = {
            {"--cpu-limit", "500 m", "--cpu-limit: '500 m' is not a Kubernetes quantity"},
            {"--cpu-request", "-1", "--cpu-request: '-1' is not a Kubernetes quantity"},
            {"--memory-limit", "0", "--memory-limit must be more than 0, was '0'"},
        };
        for (String[] c : cases) {
            out.getBuffer().setLength(0);
            err.getBuffer().setLength(0);
            assertThat(run("simulate", "--liveness", "tcp://:8080", c[0], c[1], "--", "true")).as(c[0]).isEqualTo(2);
            assertThat(err.toString()).as(c[0]).startsWith("error: ").contains(c[2]);
            assertThat(err.toString().strip().lines().count()).as(err.toString()).isEqualTo(1);
        }
    }

    @Test
    void kubernetesVersionDropsAContainersRestartPolicyBefore135AndRefusesUncoveredReleases(@TempDir Path dir) throws Exception {
        Path m = write(dir, "pod.yaml", "kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: app\n"
                + "    restartPolicy: Never\n    readinessProbe:\n      exec: {command: ['true']}\n");
        assertThat(run("simulate", "--manifest", m.toString(), "--kubernetes-version", "1.34", "--duration", "1s", "-q",
                "--", "sleep", "5")).isIn(0, 1);
        assertThat(out.toString()).contains("the container's restartPolicy/restartPolicyRules: dropped in Kubernetes 1.34");
        out.getBuffer().setLength(0);
        assertThat(run("simulate", "--manifest", m.toString(), "--duration", "1s", "-q", "--", "sleep", "5")).isIn(0, 1);
        assertThat(out.toString()).contains("container restartPolicy Never (overrides the pod's, KEP-5307)");
        out.getBuffer().setLength(0);
        assertThat(run("simulate", "--manifest", m.toString(), "--kubernetes-version", "1.37", "--duration", "1s", "-q",
                "--", "sleep", "5")).isIn(0, 1);
        assertThat(out.toString()).contains("container restartPolicy Never (overrides the pod's, KEP-5307)");
        for (String bad : new String[] {"1.99", "1.38", "2.0", "latest"}) {
            err.getBuffer().setLength(0);
            assertThat(run("simulate", "--manifest", m.toString(), "--kubernetes-version", bad, "--", "true")).as(bad).isEqualTo(2);
            assertThat(err.toString()).as(bad).startsWith("error: --kubernetes-version");
            err.getBuffer().setLength(0);
            assertThat(run("lint", "--kubernetes-version", bad, m.toString())).as(bad).isEqualTo(2);
            assertThat(err.toString()).as(bad).contains("--kubernetes-version");
        }
    }

    /** kuberuntime_container.go startContainer step 4, on a real process: a failing postStart exec kills the container. */
    @Test
    void simulateRunsAManifestsPostStartHookAndRefusesABadOne(@TempDir Path dir) throws Exception {
        String pod = "kind: Pod\nmetadata: {name: p}\nspec:\n  restartPolicy: Never\n  terminationGracePeriodSeconds: 3\n"
                + "  containers:\n  - name: app\n    lifecycle:\n%s    readinessProbe:\n      exec: {command: ['true']}\n";
        Path m = write(dir, "hooks.yaml", String.format(pod, "      postStart:\n        exec: {command: [sh, -c, 'exit 1']}\n"));
        assertThat(run("simulate", "--manifest", m.toString(), "--duration", "6s", "--", "sleep", "30")).isIn(0, 1);
        assertThat(out.toString()).contains("FailedPostStartHook").contains("exited with 1").contains("exit code 143");
        Path bad = write(dir, "bad.yaml", String.format(pod, "      preStop:\n        sleep: {seconds: 9}\n"));
        err.getBuffer().setLength(0);
        assertThat(run("simulate", "--manifest", bad.toString(), "--", "true")).isEqualTo(2);
        assertThat(err.toString()).startsWith("error: ").contains("must be less than terminationGracePeriodSeconds of 3");
    }
}
