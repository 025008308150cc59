package dev.vitals.kubesim.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vitals.kubesim.input.InvalidInputException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code vitals fleet} and {@code vitals replay --replicas}: exit codes, one-line errors, reports. */
class FleetCliTest {
    private static final String MODEL = String.join("\n",
            "replicas: 6",
            "duration: 2m",
            "replica: {workers: 40, startTime: 3s}",
            "probes:",
            "  server: isolated",
            "  readiness: {periodSeconds: 10, failureThreshold: 3, dependency: critical}",
            "dependency: {name: cache, outages: [{at: 20s, duration: 60s}]}",
            "clients: [{name: users, rate: 300, serviceTime: 20ms, timeout: 2s, retries: 1}]",
            "expect: [EXPECT]",
            "");
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();
    @TempDir
    Path dir;

    private int run(String... args) {
        return VitalsCommand.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
    }

    private Path model(String expect) throws Exception {
        Path p = dir.resolve("fleet.yaml");
        Files.writeString(p, MODEL.replace("EXPECT", expect));
        return p;
    }

    @Test
    void anUnreadIngressAnnotationIsANoticeOnStandardErrorNotAnError() throws Exception {
        Path m = model("'zero-endpoint seconds > 10'");
        Files.writeString(m, Files.readString(m) + "ingress:\n  kind: Ingress\n  metadata:\n    name: front\n    annotations:\n"
                + "      nginx.ingress.kubernetes.io/proxy-read-timeout: \"120\"\n");
        assertThat(run("fleet", m.toString())).as(err.toString()).isZero();
        assertThat(err.toString()).isEqualTo("notice: " + m + ":15: Ingress front: annotation nginx.ingress.kubernetes.io/"
                + "proxy-read-timeout is not modelled (the simulator reads load-balance, affinity, upstream-hash-by only): its effect"
                + " is left out\n");
        assertThat(out.toString()).contains("routing: ingress round_robin");
    }

    @Test
    void aHeldExpectationExitsZeroAndWritesTheReports() throws Exception {
        Files.createDirectories(dir.resolve("out")); // a report's directory is not made for it (docs/simulator.md, Reports)
        Path json = dir.resolve("out/fleet.json");
        Path html = dir.resolve("out/fleet.html");
        int code = run("fleet", model("'zero-endpoint seconds > 10'").toString(), "--json", json.toString(), "--html", html.toString());
        assertThat(code).as(err.toString()).isZero();
        assertThat(out.toString()).contains("fleet.yaml (model engine): 6 replicas").contains("PASS zero-endpoint seconds > 10").contains("verdict: PASS");
        dev.vitals.kubesim.report.VerdictLineTest.assertOneForm(out.toString());
        JsonNode runs = new ObjectMapper().readTree(json.toFile()).get("runs");
        assertThat(runs).hasSize(1);
        assertThat(runs.get(0).get("zeroEndpointSeconds").asDouble()).isGreaterThan(10);
        assertThat(runs.get(0).get("lanes")).hasSize(6);
        assertThat(runs.get(0).get("series")).hasSize(120);
        String page = Files.readString(html);
        assertThat(page).contains("<svg").contains("One lane per replica").doesNotContain("<script").doesNotContain("src=");
    }

    @Test
    void theExampleShowsTheZeroEndpointWindowAndItsFix() throws Exception {
        // case C21, docs/fleet.md: critical → no endpoint for a while (exit 1); non-critical → all six stay (exit 0)
        Path example = Path.of("..", "examples", "kubesim", "fleet-shared-cache.yaml");
        assertThat(run("fleet", example.toString())).as(out.toString()).isEqualTo(1);
        assertThat(out.toString()).contains("FAIL endpoints > 0 always (actual 0)").contains("PASS restarts == 0");
        Path fixed = dir.resolve("fixed.yaml");
        Files.writeString(fixed, Files.readString(example).replace("dependency: critical}", "dependency: non-critical}"));
        out.getBuffer().setLength(0);
        assertThat(run("fleet", fixed.toString())).as(out.toString()).isZero();
        assertThat(out.toString()).contains("PASS endpoints > 0 always (actual 6)");
    }

    @Test
    void aFailedExpectationExitsOne() throws Exception {
        // case C21: a critical shared dependency in readiness takes every replica out of the endpoints
        assertThat(run("fleet", model("'endpoints > 0 always'").toString())).isEqualTo(1);
        assertThat(out.toString()).contains("FAIL endpoints > 0 always (actual 0)").contains("verdict: FAIL");
        dev.vitals.kubesim.report.VerdictLineTest.assertOneForm(out.toString());
    }

    @Test
    void badInputIsOneLineAndExitTwo() throws Exception {
        Path m = model("'restarts == 0'");
        assertThat(run("fleet", m.toString(), "--replicas", "0")).isEqualTo(2);
        assertThat(err.toString()).isEqualTo("error: --replicas must be 1-1000000, was 0" + System.lineSeparator());
        err.getBuffer().setLength(0);
        assertThat(run("fleet", dir.resolve("nope.yaml").toString())).isEqualTo(2);
        assertThat(err.toString().strip()).isEqualTo("error: " + dir.resolve("nope.yaml") + ": cannot read: no such file");
        err.getBuffer().setLength(0);
        Files.writeString(m, MODEL.replace("EXPECT", "'restarts == 0'").replace("replica: {workers: 40, startTime: 3s}", "replica: {startTime: 3s}"));
        assertThat(run("fleet", m.toString())).isEqualTo(2);
        assertThat(err.toString().strip()).isEqualTo("error: " + m + ":3: replica.workers: missing"); // the line of replica:
        err.getBuffer().setLength(0);
        assertThat(run("fleet")).isEqualTo(2);
        assertThat(err.toString().strip()).startsWith("error: fleet: give a model FILE");
        err.getBuffer().setLength(0);
        assertThat(run("fleet", m.toString(), "--container", "app")).isEqualTo(2);
        assertThat(err.toString().lines().count()).isEqualTo(1);
    }

    @Test
    void aSweepReportsWhereEachExpectationFlipsAndWritesItsReports() throws Exception {
        // the hand-computed case of FleetSweepTest: W = 4, S = 1 s, T = 3 s; C = 11 holds, C = 20 fails
        Path m = dir.resolve("hand.yaml");
        Files.writeString(m, String.join("\n", "replicas: 1", "duration: 60s", "replica: {workers: 4, startTime: 1s}", "probes:",
                "  server: app-pool", "  startup: {periodSeconds: 1, failureThreshold: 30}",
                "  liveness: {periodSeconds: 2, timeoutSeconds: 3, failureThreshold: 3}",
                "clients: [{name: load, concurrency: 8, serviceTime: 1s, timeout: 60s}]", "expect: ['restarts == 0']", ""));
        Files.createDirectories(dir.resolve("out"));
        Path json = dir.resolve("out/sweep.json");
        Path html = dir.resolve("out/sweep.html");
        int code = run("fleet", m.toString(), "--sweep", "clients.concurrency=2..29:4", "--runs", "2", "--json", json.toString(),
                "--html", html.toString());
        assertThat(code).as(err.toString()).isZero();
        assertThat(out.toString()).contains("hand.yaml (model engine): sweep clients.concurrency 2..29 (4 points), 2 runs per point (seeds 1-2), 1 replica")
                .contains("  restarts == 0: holds up to clients.concurrency=11; fails in some run from 20, fails in every run from 20");
        JsonNode b = new ObjectMapper().readTree(json.toFile()).get("boundaries").get(0);
        assertThat(b.get("held").asInt()).isEqualTo(11);
        assertThat(b.get("failed").asInt()).isEqualTo(20);
        assertThat(Files.readString(html)).contains("<svg").contains("boundary: 11 | 20");
    }

    @Test
    void aBadSweepIsOneLineAndExitTwo() throws Exception {
        Path m = model("'restarts == 0'");
        String[][] cases = {
            {"--sweep", "replica.workers=40"},
            {"--sweep", "replica.nope=1..3"},
            {"--sweep", "probes.server=1..3"},
            {"--sweep", "replicas=6..1"},
            {"--sweep", "replicas=1..6:200"},
            {"--sweep", "replicas=1..6", "--replicas", "3"},
            {"--sweep", "replicas=1..6", "--runs", "0"},
            {"--sweep", "replicas=1..6", "--sweep", "duration=1m..2m", "--sweep", "seed=1..2"},
            {"--sweep", "probes.readiness.periodSeconds=1..5", "--manifest", "deploy.yaml"},
        };
        for (String[] c : cases) {
            err.getBuffer().setLength(0);
            String[] args = new String[c.length + 2];
            args[0] = "fleet";
            args[1] = m.toString();
            System.arraycopy(c, 0, args, 2, c.length);
            assertThat(run(args)).as(String.join(" ", c)).isEqualTo(2);
            assertThat(err.toString().lines().count()).as(err.toString()).isEqualTo(1);
            assertThat(err.toString()).startsWith("error: --").doesNotContain("Exception");
        }
        err.getBuffer().setLength(0);
        assertThat(run("fleet", m.toString(), "--sweep", "replicas=1..6", "--", "/bin/true")).isEqualTo(2);
        assertThat(err.toString().strip()).isEqualTo("error: --sweep is for the model engine: vitals fleet FILE --sweep PATH=FROM..TO[:STEPS]"
                + " (without a command after --)");
    }

    @Test
    void aServicePortInUseIsOneLineAndExitTwo() throws Exception {
        Path m = dir.resolve("live.yaml");
        Files.writeString(m, MODEL.replace("EXPECT", "'restarts == 0'").replace("dependency: {name: cache, outages: [{at: 20s, duration: 60s}]}\n", "")
                .replace(", dependency: critical", ""));
        try (java.net.ServerSocket busy = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            int code = run("fleet", m.toString(), "--service-port", Integer.toString(busy.getLocalPort()), "--logs", dir.toString(),
                    "--", "/bin/true");
            assertThat(code).as(out + "\n" + err).isEqualTo(2);
            assertThat(err.toString()).startsWith("error: service port " + busy.getLocalPort() + ": ");
            assertThat(err.toString().lines().count()).isEqualTo(1);
        }
    }

    @Test
    void theLiveEngineRejectsWhatItDoesNotModel() throws Exception {
        // the model above has a shared dependency without a target: a live run has nothing to put a fault proxy in front of
        assertThat(run("fleet", model("'restarts == 0'").toString(), "--", "/bin/true")).isEqualTo(2);
        assertThat(err.toString().strip()).startsWith("error: the live engine needs dependency.target (host:port");
        err.getBuffer().setLength(0);
        assertThat(run("fleet", model("'restarts == 0'").toString(), "--replicas", "65", "--", "/bin/true")).isEqualTo(2);
        assertThat(err.toString().strip()).isEqualTo("error: --replicas must be 1-64 for the live engine, was 65");
    }

    private static final String MANIFEST = String.join("\n",
            "apiVersion: apps/v1",
            "kind: Deployment",
            "metadata: {name: app}",
            "spec:",
            "  template:",
            "    spec:",
            "      containers:",
            "        - name: app",
            "          image: app",
            "          ports: [{name: http, containerPort: 8080}, {name: probe, containerPort: 8081}]",
            "          livenessProbe: {httpGet: {path: /livez, port: probe}, periodSeconds: 1}",
            "          readinessProbe: {httpGet: {path: /readyz, port: probe}, periodSeconds: 1}",
            "");

    @Test
    void aLiveRunFromAManifestAloneChecksItsSizeFirst() throws Exception {
        Path m = dir.resolve("deploy.yaml");
        Files.writeString(m, MANIFEST);
        assertThat(run("fleet", "--replicas", "65", "--manifest", m.toString(), "--", "/bin/true")).isEqualTo(2);
        assertThat(err.toString().strip()).isEqualTo("error: --replicas must be 1-64 for the live engine, was 65");
        err.getBuffer().setLength(0);
        assertThat(run("fleet", "--replicas", "2", "--", "/bin/true")).isEqualTo(2);
        assertThat(err.toString().strip()).startsWith("error: fleet: give a model FILE");
    }

    @Test
    @org.junit.jupiter.api.Tag("fleet-live")
    void aLiveRunFromAManifestAlone() throws Exception {
        Path m = dir.resolve("deploy.yaml");
        Files.writeString(m, MANIFEST);
        List<String> args = new java.util.ArrayList<>(List.of("fleet", "--replicas", "2", "--manifest", m.toString(), "--duration", "4s",
                "--expect", "endpoints > 0 always", "--logs", dir.toString(), "-q", "--"));
        args.addAll(dev.vitals.kubesim.fleet.FleetTestServers.command(4, 10, 0));
        int code = run(args.toArray(new String[0]));
        assertThat(code).as(out + "\n" + err).isZero();
        assertThat(out.toString()).contains("deploy.yaml (live engine): 2 replicas").contains("PASS endpoints > 0 always (actual 2)");
    }

    @Test
    @org.junit.jupiter.api.Tag("fleet-live")
    void aLiveReplicasExecProbeExpandsTheContainersEnvironment() throws Exception {
        // issue 38: $(VAR) in an exec probe expands from the container's env (R68, as simulate does), here
        // the manifest's MARK and the engine's PORT; unexpanded, sh would run the commands MARK and PORT and the
        // replica would never be Ready
        Path m = dir.resolve("exec.yaml");
        Files.writeString(m, String.join("\n", "apiVersion: v1", "kind: Pod", "metadata: {name: app}", "spec:", "  containers:",
                "    - name: app", "      image: app", "      env: [{name: MARK, value: 'yes'}]",
                "      readinessProbe: {exec: {command: [sh, -c, 'test \"$(MARK)\" = yes && test $(PORT) -gt 0']}, periodSeconds: 1}",
                ""));
        int code = run("fleet", "--replicas", "1", "--manifest", m.toString(), "--duration", "3s", "--expect", "endpoints > 0 always",
                "--logs", dir.toString(), "-q", "--", "/bin/sleep", "60");
        assertThat(code).as(out + "\n" + err).isZero();
        assertThat(out.toString()).contains("PASS endpoints > 0 always (actual 1)");
    }

    @Test
    void calibrateRejectsACommandThatCannotStart() {
        assertThat(run("fleet", "calibrate", "--logs", dir.toString(), "--", "/nonexistent/replica")).isEqualTo(2);
        assertThat(err.toString().strip()).startsWith("error: cannot start /nonexistent/replica: ").doesNotContain("\n");
        err.getBuffer().setLength(0);
        assertThat(run("fleet", "calibrate", "--requests", "1", "--", "/bin/true")).isEqualTo(2);
        assertThat(err.toString().strip()).isEqualTo("error: --requests must be 5-10000, was 1");
    }

    @Test
    void replayWithReplicasRunsTheFleetScenarios() throws Exception {
        Path json = dir.resolve("r.json");
        int code = run("replay", "rebalance", "shared-dependency", "--json", json.toString(), "--html", dir.toString());
        assertThat(code).as(out + "\n" + err).isZero();
        assertThat(out.toString()).contains("rebalance naive").contains("rebalance vitals").contains("shared-dependency vitals")
                .contains("run 5 time(s) with seeds 1-5");
        JsonNode root = new ObjectMapper().readTree(json.toFile());
        assertThat(root.get("passed").asBoolean()).isTrue();
        JsonNode ensembles = root.get("ensembles");
        assertThat(ensembles).hasSize(4);
        for (JsonNode e : ensembles) {
            assertThat(e.has("scenario")).isTrue();
            assertThat(e.get("wiring").asText()).isIn("naive", "vitals");
            assertThat(e.get("figures").has("crashLoopSeconds")).isTrue();
            assertThat(e.get("passed").asBoolean()).isTrue();
        }
        JsonNode runs = root.get("runs");
        assertThat(runs).hasSize(20);
        for (JsonNode r : runs) {
            assertThat(r.has("seed")).isTrue();
            assertThat(r.has("restarts")).isTrue();
            assertThat(r.has("maxDown")).isTrue();
        }
        assertThat(dir.resolve("fleet-rebalance.html")).exists();
        assertThat(dir.resolve("fleet-shared-dependency.html")).exists();
        // --html DIR: an index beside the scenario pages, linking each
        assertThat(Files.readString(dir.resolve("index.html"))).contains("href='fleet-rebalance.html'")
                .contains("href='fleet-shared-dependency.html'").contains("rebalance naive");
        assertThat(out.toString()).contains("wrote " + dir.resolve("index.html") + " and 2 scenario page(s) beside it");
    }

    @Test
    void replayRolloutComparesTheVersionsOfBothWirings() throws Exception {
        Path json = dir.resolve("ro.json");
        int code = run("replay", "rollout", "--runs", "2", "--json", json.toString(), "--html", dir.toString());
        assertThat(code).as(out + "\n" + err).isZero();
        assertThat(out.toString()).contains("rollout naive, the median run").contains("rollout vitals, the median run")
                .contains("    new version: attempts answered").contains("PASS rollout vitals: rollout stalled == 0 (2 of 2 runs")
                .contains("PASS rollout naive: new version errors >= 1% (2 of 2 runs");
        JsonNode runs = new ObjectMapper().readTree(json.toFile()).get("runs");
        assertThat(runs).hasSize(4);
        for (JsonNode r : runs) {
            assertThat(r.get("rollout").get("condition").asText()).isEqualTo("Progressing=True reason NewReplicaSetAvailable");
            assertThat(r.get("rollout").get("versions")).hasSize(2);
            assertThat(r.get("lanes")).hasSize(12);
        }
        assertThat(Files.readString(dir.resolve("fleet-rollout.html"))).contains(">new 6<");
    }

    @Test
    void theRolloutExampleFailsColdAndPassesWarmed() throws Exception {
        Path example = Path.of("..", "examples", "kubesim", "fleet-rollout.yaml");
        assertThat(run("fleet", example.toString())).as(out.toString()).isEqualTo(1);
        assertThat(out.toString()).contains("FAIL new version errors < 1%").contains("PASS rollout stalled == 0");
        Path fixed = dir.resolve("warmed.yaml");
        Files.writeString(fixed, Files.readString(example).replace("readiness: port-open", "readiness: warmed"));
        out.getBuffer().setLength(0);
        assertThat(run("fleet", fixed.toString())).as(out.toString()).isZero();
        assertThat(out.toString()).contains("PASS new version errors < 1% (actual 0)");
    }

    @Test
    void aBadRolloutIsOneLineAndExitTwo() throws Exception {
        String base = String.join("\n", "replicas: 3", "duration: 1m", "replica: {workers: 4, startTime: 1s}",
                "probes: {server: isolated}", "clients: [{name: u, rate: 10, serviceTime: 20ms, timeout: 2s}]", "");
        Path p = dir.resolve("ro.yaml");
        Files.writeString(p, base + "rollout: {at: 10s, strategy: {maxSurge: 0, maxUnavailable: 0}}\n");
        assertThat(run("fleet", p.toString())).isEqualTo(2);
        assertThat(err.toString().strip()).isEqualTo("error: " + p + ": rollout: maxSurge and maxUnavailable may not both be 0 "
                + "(the rollout could never proceed; Kubernetes rejects it too)");
    }

    @Test
    void theMainJobRunsTheSeedLoadAndPrintsTheWriteUpBesideTheModel() {
        int code = run("replay", "incident", "--replicas", "12", "--runs", "2");
        assertThat(code).as(out + "\n" + err).isZero();
        // row 1: the load as written, spread per connection, kills nothing; row 2: the same load pinned by ClientIP kills a
        // pod; row 2b: the pinned script kept in flight moves the hot spot from pod to pod; row 3: Vitals kills nothing
        assertThat(out.toString()).contains("53 exports over 50 kept connections")
                .contains("the write-up: 11 pods killed, 31 restarts in six minutes")
                .contains("  1. as written, kube-proxy iptables, naive:\n     kills 0, pods killed 0, restarts 0, 0 s without endpoints")
                .contains("  2. the same 53 exports from one source address, kube-proxy iptables, sessionAffinity ClientIP (10800 s)")
                .contains("PASS incident-pinned naive: pods killed >= 1 in 80% of runs (2 of 2 runs, needs 80%; actual 1)")
                .contains("PASS incident-pinned-sustained naive: pods killed >= 2 (2 of 2 runs")
                .contains("key 0 of 'finance script (53 exports, 50 connections, one source address)' held by r")
                .contains("incident-pinned vitals: kills 0, pods killed 0, restarts 0")
                .contains("incident-pinned-sustained vitals: kills 0, pods killed 0, restarts 0")
                .contains("PASS incident vitals: restarts == 0 (2 of 2 runs; actual 0)");
        dev.vitals.kubesim.report.VerdictLineTest.assertOneForm(out.toString());
    }

    @Test
    void runsAreCheckedAndOnlyForFleetReplays() throws Exception {
        assertThat(run("replay", "incident", "--replicas", "3", "--runs", "0")).isEqualTo(2);
        assertThat(err.toString().strip()).isEqualTo("error: --runs must be 1-1000, was 0");
        err.getBuffer().setLength(0);
        assertThat(run("replay", "stall", "--runs", "3")).isEqualTo(2);
        assertThat(err.toString().strip()).startsWith("error: --runs is for the fleet replays");
        err.getBuffer().setLength(0);
        assertThat(run("fleet", model("'restarts == 0'").toString(), "--runs", "1001")).isEqualTo(2);
        assertThat(err.toString().strip()).isEqualTo("error: --runs must be 1-1000, was 1001");
        err.getBuffer().setLength(0);
        assertThat(run("fleet", model("'restarts == 0'").toString(), "--runs", "3")).isZero();
        assertThat(out.toString()).contains("6 replicas, 3 runs (seeds 1-3)").contains("PASS fleet.yaml: restarts == 0 (3 of 3 runs; actual 0)");
        dev.vitals.kubesim.report.VerdictLineTest.assertOneForm(out.toString());
    }

    @Test
    void aFleetBeyondTheHeapIsRefusedNamingTheBytesPerReplicaAndTheRoom() {
        long heap = 512L << 20;
        FleetCommand.checkHeap(65_536, 1, heap); // 8 KiB each with the collector's room: exactly fits
        assertThatThrownBy(() -> FleetCommand.checkHeap(65_537, 1, heap))
                .isInstanceOf(InvalidInputException.class)
                .hasMessage("fleet: 65537 replicas need about 512 MiB of heap (4 KiB per replica, as much again for the collector);"
                        + " this JVM's heap is 512 MiB, room for 65536: model fewer replicas, or give java more heap"
                        + " (VITALS_JAVA_OPTS=-Xmx1g for the vitals command, java -Xmx… -jar vitals.jar)");
        assertThatThrownBy(() -> FleetCommand.checkHeap(40_000, 2, heap))
                .isInstanceOf(InvalidInputException.class)
                .hasMessageContaining("40000 replicas need about 625 MiB of heap (4 KiB per replica, as much again for the collector, 2 runs at once)")
                .hasMessageContaining("room for 32768");
    }

    @Test
    void replayRejectsUnknownFleetScenariosAndSizes() {
        assertThat(run("replay", "stall", "--replicas", "3")).isEqualTo(2);
        assertThat(err.toString()).startsWith("error: unknown fleet scenario 'stall'");
        err.getBuffer().setLength(0);
        assertThat(run("replay", "incident", "--replicas", "1000001")).isEqualTo(2);
        assertThat(err.toString().strip()).isEqualTo("error: --replicas must be 1-1000000, was 1000001");
    }

    @Test
    void kubernetesVersionIsValidatedAndAcceptedAsForSimulateAndLint() throws Exception {
        Path m = model("'restarts == 0'");
        assertThat(run("fleet", m.toString(), "--kubernetes-version", "1.99")).isEqualTo(2);
        assertThat(err.toString().strip()).startsWith("error: --kubernetes-version must be 1.29 to 1.37");
        err.getBuffer().setLength(0);
        assertThat(run("fleet", m.toString(), "--kubernetes-version", "latest")).isEqualTo(2);
        assertThat(err.toString().strip()).isEqualTo("error: --kubernetes-version: 'latest' is not a release like 1.34");
        assertThat(run("fleet", m.toString(), "--kubernetes-version", "1.34")).isIn(0, 1);
        assertThat(out.toString()).contains("restarts == 0");
    }
}
