package dev.vitals.kubesim.replay;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.vitals.kubesim.cli.VitalsCommand;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code vitals replay incident db-outage} end to end: the real demo jar (built by the reactor
 * before this module, see the pom), real child JVMs, real loopback sockets, the fault proxy and
 * the kubelet model, judged from the JSON report. About 2.5 minutes. Run it alone with
 * {@code mvn -pl vitals-kubesim -am verify -Dgroups=replay}.
 */
@Tag("replay")
class ReplayEndToEndTest {

    @Test
    void incidentAndDbOutageBehaveAsTheIssueExpects(@TempDir Path dir) throws Exception {
        Path jar = Path.of(System.getProperty("vitals.demoJar", "../vitals-demo/target/vitals-demo.jar"));
        assertThat(jar).as("the demo jar is built before vitals-kubesim's tests run").isRegularFile();
        Path json = dir.resolve("replay.json");
        Path html = dir.resolve("html");
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();

        int code = VitalsCommand.execute(new PrintWriter(out, true), new PrintWriter(err, true), "replay", "incident",
                "db-outage", "--demo-jar", jar.toString(), "--json", json.toString(), "--html", html.toString(),
                "--logs", dir.resolve("logs").toString(), "--quiet");

        String context = out + "\n" + err;
        assertThat(json).as(context).exists();
        JsonNode runs = new ObjectMapper().readTree(json.toFile()).get("runs");
        assertThat(runs).as(context).hasSize(6);
        // incident: the sustained load restarts the naive wiring, never the Vitals wiring
        assertThat(run(runs, "incident", "naive").get("restarts").asInt()).as(context).isGreaterThanOrEqualTo(1);
        assertThat(run(runs, "incident", "vitals").get("restarts").asInt()).as(context).isZero();
        assertThat(run(runs, "incident-burst", "vitals").get("restarts").asInt()).as(context).isZero();
        // db-outage: naive restarts for a remote outage; Vitals is not ready during it, ready after it, never restarted
        assertThat(run(runs, "db-outage", "naive").get("restarts").asInt()).as(context).isGreaterThanOrEqualTo(1);
        JsonNode vitalsDb = run(runs, "db-outage", "vitals");
        assertThat(vitalsDb.get("restarts").asInt()).as(context).isZero();
        assertThat(check(vitalsDb, "not ready during the db-outage").get("passed").asBoolean()).as(context).isTrue();
        assertThat(check(vitalsDb, "ready at the end").get("passed").asBoolean()).as(context).isTrue();
        assertThat(vitalsDb.get("notReadySeconds").asDouble()).as(context).isPositive();
        // and the command agrees: every expectation held
        assertThat(code).as(context).isEqualTo(VitalsCommand.OK);
        assertThat(out.toString()).contains("PASS incident").contains("PASS db-outage");
        assertThat(html.resolve("index.html")).isRegularFile();
        assertThat(Files.readString(html.resolve("incident-naive.html"))).contains("<svg");
    }

    /**
     * {@code vitals replay cpu-limit}: the incident inside a 500m CPU limit, each demo instance in
     * its own cgroup, sized from the boot measured under the limit. About 2 minutes (130 s here). Where no
     * cgroup can be created here the case must be reported SKIP "limits not applied", never FAIL.
     */
    @Test
    void cpuLimitRunsTheIncidentUnderTheLimitWithTheThrottlingInTheRecord(@TempDir Path dir) throws Exception {
        Path jar = Path.of(System.getProperty("vitals.demoJar", "../vitals-demo/target/vitals-demo.jar"));
        assertThat(jar).as("the demo jar is built before vitals-kubesim's tests run").isRegularFile();
        Path json = dir.resolve("replay.json");
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();

        int code = VitalsCommand.execute(new PrintWriter(out, true), new PrintWriter(err, true), "replay", "cpu-limit",
                "--demo-jar", jar.toString(), "--json", json.toString(), "--logs", dir.resolve("logs").toString(), "--quiet");

        String context = out + "\n" + err;
        if (!dev.vitals.kubesim.runtime.ResourceLimits.of(ReplayCatalog.CPU_LIMIT).applied()) {
            assertThat(out.toString()).as(context).contains("limits not applied").contains("SKIP cpu-limit").doesNotContain("FAIL");
            return;
        }
        assertThat(out.toString()).as(context).contains("sizing under cpu limit 500m: boot");
        JsonNode runs = new ObjectMapper().readTree(json.toFile()).get("runs");
        assertThat(runs).as(context).hasSize(2);
        for (String wiring : new String[] {"naive", "vitals"}) {
            JsonNode resources = run(runs, "cpu-limit", wiring).get("resources");
            assertThat(resources).as(context).isNotNull();
            assertThat(resources.get("cpuLimitMillis").asLong()).isEqualTo(500);
            assertThat(resources.get("applied").asBoolean()).as(context).isTrue();
            // every instance ran in its cgroup: the cgroup's own counters saw its CPU and its periods
            assertThat(resources.get("instances")).as(context).isNotEmpty().allSatisfy(i -> {
                assertThat(i.get("cpuSeconds").asDouble()).isPositive();
                assertThat(i.get("periods").asLong()).isPositive();
            });
        }
        assertThat(out.toString()).as(context).contains("resources (each demo instance's cgroup counters at its exit)");
        // the incident's expectations, under the limit
        assertThat(run(runs, "cpu-limit", "naive").get("restarts").asInt()).as(context).isGreaterThanOrEqualTo(1);
        assertThat(run(runs, "cpu-limit", "vitals").get("restarts").asInt()).as(context).isZero();
        assertThat(code).as(context).isEqualTo(VitalsCommand.OK);
    }

    private static JsonNode run(JsonNode runs, String scenario, String wiring) {
        for (JsonNode r : runs) {
            if (r.get("scenario").asText().equals(scenario) && r.get("wiring").asText().equals(wiring)) {
                return r;
            }
        }
        throw new AssertionError("no run " + scenario + "/" + wiring + " in " + runs);
    }

    private static JsonNode check(JsonNode run, String expect) {
        for (JsonNode c : run.get("checks")) {
            if (c.get("expect").asText().equals(expect)) {
                return c;
            }
        }
        throw new AssertionError("no check '" + expect + "' in " + run);
    }
}
