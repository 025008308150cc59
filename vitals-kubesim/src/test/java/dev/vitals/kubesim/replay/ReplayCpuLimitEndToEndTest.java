package dev.vitals.kubesim.replay;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.vitals.kubesim.cli.VitalsCommand;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code vitals replay cpu-limit} end to end, beside {@link ReplayEndToEndTest} (its own class: the
 * tag's two classes run in two test JVMs at once in .ci/run). Each demo instance runs in a real
 * cgroup here (v1 or v2, wherever one can be created).
 */
@Tag("replay")
class ReplayCpuLimitEndToEndTest {

    /**
     * {@code vitals replay cpu-limit}: the incident inside a 500m CPU limit, each demo instance in
     * its own cgroup, sized from the boot measured under the limit. About 2 minutes (130 s here). Where no
     * cgroup can be created here the case must be reported SKIP "limits not applied", never FAIL.
     */
    @Test
    void cpuLimitRunsTheIncidentUnderTheLimitWithTheThrottlingInTheRecord(@TempDir Path dir) throws Exception {
        Path jar = ReplayEndToEndTest.demoJar();
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
            JsonNode resources = ReplayEndToEndTest.run(runs, "cpu-limit", wiring).get("resources");
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
        assertThat(ReplayEndToEndTest.run(runs, "cpu-limit", "naive").get("restarts").asInt()).as(context).isGreaterThanOrEqualTo(1);
        assertThat(ReplayEndToEndTest.run(runs, "cpu-limit", "vitals").get("restarts").asInt()).as(context).isZero();
        assertThat(code).as(context).isEqualTo(VitalsCommand.OK);
    }
}
