package dev.vitals.kubesim.replay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vitals.kubesim.model.Resources;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code cpu-limit} case's wiring, its sizing from the boot under the limit, and its skip paths; no run. */
class CpuLimitCaseTest {

    private static ReplayCase named(List<ReplayCase> cases, String name) {
        return cases.stream().filter(c -> c.name().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void cpuLimitIsTheIncidentInsideA500mLimit() {
        List<ReplayCase> all = ReplayCatalog.all();
        ReplayCase c = named(all, "cpu-limit");
        ReplayCase incident = named(all, "incident");
        assertThat(c.scenario()).isEqualTo("cpu-limit");
        assertThat(c.resources().cpuLimitMillis()).hasValue(500);
        assertThat(c.resources().memoryLimitBytes()).isEmpty();
        assertThat(ReplayCatalog.SCENARIOS).contains("cpu-limit");
        assertThat(ReplayCatalog.select(List.of("cpu-limit"))).containsExactly(c);
        // the same probes, demo flags, load and expectations as the incident row
        assertThat(c.liveness()).isEqualTo(incident.liveness());
        assertThat(c.readiness()).isEqualTo(incident.readiness());
        assertThat(c.demoFlags()).isEqualTo(incident.demoFlags());
        assertThat(c.steps()).isEqualTo(incident.steps());
        assertThat(c.wirings()).containsExactly(Wiring.NAIVE, Wiring.VITALS);
        for (Wiring w : c.wirings()) {
            assertThat(c.expectations(w)).extracting(RunExpectation::text)
                    .isEqualTo(incident.expectations(w).stream().map(RunExpectation::text).toList());
        }
        // only this case runs under limits
        assertThat(all).filteredOn(x -> !x.name().equals("cpu-limit"))
                .allSatisfy(x -> assertThat(x.resources()).as(x.name()).isEqualTo(Resources.NONE));
    }

    @Test
    void itIsSizedFromTheBootUnderTheLimitNotTheUnconstrainedOne() {
        List<ReplayCase> cases = ReplayCatalog.all(Sizing.given(2), Sizing.measured(List.of(9.0, 11.0)), Optional.empty());
        ReplayCase c = named(cases, "cpu-limit");
        ReplayCase incident = named(cases, "incident");
        // startup budget 4x and Ready allowance 3x the slowest boot under the limit (11 s), not the 2 s boot
        assertThat(c.startup(Wiring.NAIVE).orElseThrow().failureThreshold()).isEqualTo(44);
        assertThat(c.startup(Wiring.VITALS).orElseThrow().failureThreshold()).isEqualTo(44);
        assertThat(c.readyAllowanceSeconds()).isEqualTo(33.0);
        assertThat(c.duration().toSeconds()).isEqualTo(33 + 2 + 40 + 8);
        assertThat(incident.startup(Wiring.VITALS).orElseThrow().failureThreshold()).isEqualTo(30);
        assertThat(incident.readyAllowanceSeconds()).isEqualTo(6.0);
        assertThat(c.margins()).anySatisfy(m -> {
            assertThat(m.what()).isEqualTo("startup budget vs boot under 500m");
            assertThat(m.need()).isEqualTo(11.0);
            assertThat(m.ratio()).isEqualTo(4.0);
        });
        assertThat(c.margins()).anySatisfy(m -> assertThat(m.what()).isEqualTo("Ready allowance vs boot under 500m"));
        assertThat(c.margins()).allSatisfy(m -> assertThat(m.holds()).as(m.describe()).isTrue());
        assertThat(c.skip()).isEmpty();
        // where the boot under the limit is not measured, it is assumed 4x the unconstrained one
        assertThat(named(ReplayCatalog.all(Sizing.given(2)), "cpu-limit").readyAllowanceSeconds()).isEqualTo(24.0);
    }

    @Test
    void aBootUnderTheLimitTooSlowForTheLongestRunSkipsItWithTheReason() {
        ReplayCase c = named(ReplayCatalog.all(Sizing.given(2), Sizing.given(40), Optional.empty()), "cpu-limit");
        assertThat(c.skip()).hasValueSatisfying(why -> assertThat(why).contains("needs a").contains("longest allowed 150 s"));
    }

    @Test
    void whereNoCgroupCanBeCreatedItIsSkippedAsLimitsNotAppliedNotFailed(@TempDir Path dir) throws Exception {
        List<ReplayCase> cases = ReplayCatalog.select(List.of("cpu-limit", "incident"), Sizing.given(2), Sizing.given(8),
                Optional.of("limits not applied: no writable cgroup hierarchy (/sys/fs/cgroup is read-only)"));
        ReplayCase c = named(cases, "cpu-limit");
        assertThat(c.skip()).hasValue("limits not applied: no writable cgroup hierarchy (/sys/fs/cgroup is read-only)");
        assertThat(named(cases, "incident").skip()).isEmpty(); // the other scenarios are not affected
        String verdicts = ReplayReport.verdicts(List.of(), List.of(c));
        assertThat(verdicts).startsWith("SKIP cpu-limit").contains("cpu-limit not run: limits not applied: no writable cgroup")
                .doesNotContain("FAIL");
        // a bare reason gets the words too
        ReplayCase bare = named(ReplayCatalog.all(Sizing.given(2), Sizing.given(8), Optional.of("cgroup v2 not delegated")), "cpu-limit");
        assertThat(bare.skip()).hasValue("limits not applied: cgroup v2 not delegated");
        // the replay does not start a skipped case: no demo is spawned (the "jar" is not even a jar)
        Path jar = Files.writeString(dir.resolve("not-a-demo.jar"), "x");
        assertThat(Replay.builder(jar).logDir(dir.resolve("logs")).build().run(List.of(c))).isEmpty();
    }
}
