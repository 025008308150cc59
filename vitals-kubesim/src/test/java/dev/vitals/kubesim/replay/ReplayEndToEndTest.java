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
 * the kubelet model, judged from the JSON report. About 3 minutes. Run it alone with
 * {@code mvn -pl vitals-kubesim -am verify -Dgroups=replay}; the cpu-limit case is
 * {@link ReplayCpuLimitEndToEndTest}, a class of its own so that two test JVMs run the two side by
 * side (.ci/run).
 */
@Tag("replay")
class ReplayEndToEndTest {

    @Test
    void incidentAndDbOutageBehaveAsTheIssueExpects(@TempDir Path dir) throws Exception {
        Path jar = demoJar();
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
        assertThat(out.toString()).contains("PASS incident").contains("PASS db-outage").contains("verdict: PASS");
        dev.vitals.kubesim.report.VerdictLineTest.assertOneForm(out.toString());
        assertThat(html.resolve("index.html")).isRegularFile();
        assertThat(Files.readString(html.resolve("incident-naive.html"))).contains("<svg");
    }

    /** @return the demo jar the reactor built before this module (see the pom), checked to exist */
    static Path demoJar() {
        Path jar = Path.of(System.getProperty("vitals.demoJar", "../vitals-demo/target/vitals-demo.jar"));
        assertThat(jar).as("the demo jar is built before vitals-kubesim's tests run").isRegularFile();
        return jar;
    }

    static JsonNode run(JsonNode runs, String scenario, String wiring) {
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
