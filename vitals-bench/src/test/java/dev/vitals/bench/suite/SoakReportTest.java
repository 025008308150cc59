package dev.vitals.bench.suite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The soak's verdicts (tools/soak): per path against budget + margin, per resource flat or not, the table and the JSON. */
class SoakReportTest {
    private static SoakReport.Probe ok(double at, double ms) {
        return new SoakReport.Probe(at, ms, true, "200");
    }

    private static List<SoakReport.Probe> steady(int n, double ms) {
        List<SoakReport.Probe> l = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            l.add(ok(30 + i, ms));
        }
        return l;
    }

    @Test
    void aPathPassesWhenEveryProbeSucceededWithinBudgetPlusMargin() {
        List<SoakReport.Probe> probes = steady(99, 2);
        probes.add(ok(200, 1000)); // exactly at the limit: still in time

        SoakReport.PathSummary s = SoakReport.path("http /livez", 800, 200, probes, 20);

        assertThat(s.count()).isEqualTo(100);
        assertThat(s.p50Ms()).isEqualTo(2);
        assertThat(s.p99Ms()).isEqualTo(2); // nearest rank: the 99th of 100
        assertThat(s.worstMs()).isEqualTo(1000);
        assertThat(s.limitMs()).isEqualTo(1000);
        assertThat(s.late()).isZero();
        assertThat(s.pass()).isTrue();
        assertThat(s.problems()).isEmpty();
    }

    @Test
    void oneAnswerPastTheLimitFailsThePathAndIsNamed() {
        List<SoakReport.Probe> probes = steady(50, 3);
        probes.add(ok(81.5, 1214));

        SoakReport.PathSummary s = SoakReport.path("grpc readiness", 800, 200, probes, 20);

        assertThat(s.pass()).isFalse();
        assertThat(s.late()).isEqualTo(1);
        assertThat(s.failed()).isZero();
        assertThat(s.firstProblem()).isEqualTo("at 81.5 s: 200 in 1214 ms");
    }

    @Test
    void aFailedProbeFailsThePathEvenWhenFast() {
        List<SoakReport.Probe> probes = steady(10, 3);
        probes.add(new SoakReport.Probe(45, 4, false, "503"));

        SoakReport.PathSummary s = SoakReport.path("http /readyz", 800, 200, probes, 20);

        assertThat(s.pass()).isFalse();
        assertThat(s.failed()).isEqualTo(1);
        assertThat(s.late()).isZero();
        assertThat(s.firstProblem()).isEqualTo("at 45.0 s: 503 in 4 ms");
    }

    @Test
    void warmUpProbesAreReportedApartAndNotJudged() {
        List<SoakReport.Probe> probes = steady(10, 3);
        probes.add(ok(1, 5000));
        probes.add(new SoakReport.Probe(2, 9, false, "timeout"));

        SoakReport.PathSummary s = SoakReport.path("grpc liveness", 800, 200, probes, 20);

        assertThat(s.pass()).isTrue();
        assertThat(s.count()).isEqualTo(10);
        assertThat(s.warmUpCount()).isEqualTo(2);
        assertThat(s.warmUpWorstMs()).isEqualTo(5000);
    }

    @Test
    void byDefaultEveryProbeFromTheReadyLineIsJudged() {
        // issue 30: the first minute's gRPC answers (3.2-3.5 s at the first flood) were reported
        // apart; with no probe warm-up (the default) they count, and the table says so
        List<SoakReport.Probe> probes = steady(10, 3);
        probes.add(ok(0.5, 3500));

        SoakReport.PathSummary s = SoakReport.path("grpc liveness", 800, 200, probes, 0);

        assertThat(s.pass()).isFalse();
        assertThat(s.count()).isEqualTo(11);
        assertThat(s.warmUpCount()).isZero();
        assertThat(s.firstProblem()).isEqualTo("at 0.5 s: 200 in 3500 ms");
        String text = SoakReport.text(List.of(s), List.of(), 200, 0);
        assertThat(text).contains("every probe from the demo's ready line judged").doesNotContain("warm-up worst");
        assertThat(text.lines().filter(l -> l.startsWith("grpc liveness")).findFirst().orElseThrow())
                .endsWith("FAIL at 0.5 s: 200 in 3500 ms");
    }

    @Test
    void aPathWithNoProbeAfterTheWarmUpFails() {
        SoakReport.PathSummary s = SoakReport.path("http /startupz", 800, 200, List.of(ok(1, 2)), 20);

        assertThat(s.pass()).isFalse();
        assertThat(s.firstProblem()).isEqualTo("no probe after the warm-up");
    }

    @Test
    void onlyTheFirstProblemsAreKept() {
        List<SoakReport.Probe> probes = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            probes.add(ok(30 + i, 2000));
        }
        SoakReport.PathSummary s = SoakReport.path("p", 800, 200, probes, 20);

        assertThat(s.late()).isEqualTo(50);
        assertThat(s.problems()).hasSize(SoakReport.PathSummary.PROBLEMS_KEPT).first().isEqualTo("at 30.0 s: 200 in 2000 ms");
    }

    private static SoakReport.Sample sample(double at, int threads, int fds, long rssKiB, long log, boolean quiet) {
        return new SoakReport.Sample(at, threads, fds, rssKiB, log, quiet);
    }

    @Test
    void resourcesCompareTheFirstAndLastQuietSamplesAndReportTheMax() {
        List<SoakReport.Sample> samples = List.of(
                sample(0, 60, 40, 300_000, 1_000, false),
                sample(20, 80, 130, 400_000, 1_700, true),
                sample(22, 85, 1_900, 420_000, 1_800, false), // a flood: the max, not compared
                sample(50, 84, 140, 410_000, 2_000, true),
                sample(80, 88, 162, 440_000, 2_500, true));

        List<SoakReport.ResourceSummary> r = SoakReport.resources(samples);

        assertThat(r).extracting(SoakReport.ResourceSummary::name).containsExactly("threads", "descriptors", "rss", "log");
        SoakReport.ResourceSummary threads = r.get(0);
        assertThat(List.of(threads.atReady(), threads.first(), threads.last(), threads.max())).containsExactly(60L, 80L, 88L, 88L);
        assertThat(threads.pass()).isTrue(); // +8: at the allowance
        SoakReport.ResourceSummary fds = r.get(1);
        assertThat(fds.max()).isEqualTo(1_900);
        assertThat(fds.pass()).isTrue(); // +32
        // RSS: the last quiet sample against the middle one (non-heap memory grows to a plateau first)
        assertThat(r.get(2).first()).isEqualTo(410_000);
        assertThat(r.get(2).allowance()).isEqualTo(41_000); // 10 % of 410,000 KiB beats 32 MiB
        assertThat(r.get(2).pass()).isTrue();
        assertThat(r.get(3).allowance()).isEqualTo(8 * 1024 + 4 * 1024); // one minute between the quiet samples
        assertThat(r.get(3).pass()).isTrue();
    }

    @Test
    void growthPastTheAllowanceIsNotFlat() {
        List<SoakReport.Sample> samples = List.of(
                sample(0, 60, 40, 100_000, 1_000, false),
                sample(20, 80, 130, 100_000, 1_000, true),
                sample(140, 89, 163, 100_000 + 32 * 1024 + 1, 1_000 + 8 * 1024 + 8 * 1024 + 1, true));

        List<SoakReport.ResourceSummary> r = SoakReport.resources(samples);

        assertThat(r).extracting(SoakReport.ResourceSummary::pass).containsExactly(false, false, false, false);
        assertThat(r.get(2).allowance()).isEqualTo(32 * 1024); // 32 MiB beats 10 % of 100,000 KiB
        assertThat(SoakReport.text(List.of(), r, 200, 0)).contains("GROWING (+9)").contains("GROWING (+33)");
    }

    @Test
    void fewerThanTwoQuietSamplesCannotBeJudged() {
        assertThatThrownBy(() -> SoakReport.resources(List.of(sample(0, 1, 1, 1, 1, false), sample(20, 1, 1, 1, 1, true))))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("need at least two quiet samples, had 1");
    }

    @Test
    void theTableEndsWithOneVerdictLineAndTheJsonCarriesEveryFigure() throws Exception {
        SoakReport.PathSummary good = SoakReport.path("http /livez", 800, 200, steady(10, 2), 20);
        List<SoakReport.Probe> lateProbes = steady(10, 2);
        lateProbes.add(ok(40, 1500));
        SoakReport.PathSummary late = SoakReport.path("grpc readiness", 800, 200, lateProbes, 20);
        List<SoakReport.Sample> samples = List.of(sample(0, 60, 40, 1, 1, false), sample(20, 60, 40, 1, 1, true),
                sample(50, 60, 40, 1, 1, true));
        List<SoakReport.ResourceSummary> res = SoakReport.resources(samples);

        String text = SoakReport.text(List.of(good, late), res, 200, 20);
        assertThat(text).contains("limit = budget + margin 200 ms")
                .contains("probes in the first 20 s (--probe-warm-up) reported apart, not judged").contains("warm-up worst");
        assertThat(text.lines().filter(l -> l.startsWith("http /livez")).findFirst().orElseThrow()).endsWith("pass");
        assertThat(text.lines().filter(l -> l.startsWith("grpc readiness")).findFirst().orElseThrow())
                .endsWith("FAIL at 40.0 s: 200 in 1500 ms");
        assertThat(text.lines().filter(l -> l.startsWith("threads")).findFirst().orElseThrow()).endsWith("flat");
        assertThat(text.strip().lines().reduce((a, b) -> b).orElseThrow())
                .isEqualTo("soak: FAIL (1 of 2 paths within budget + margin, 4 of 4 resources flat)");
        assertThat(SoakReport.pass(List.of(good), res)).isTrue();

        JsonNode json = new ObjectMapper().valueToTree(SoakReport.json(Map.of("durationSeconds", 120), List.of(good, late), res, samples));
        assertThat(json.get("durationSeconds").asInt()).isEqualTo(120);
        assertThat(json.get("pass").asBoolean()).isFalse();
        assertThat(json.get("paths").get(1).get("worstMs").asDouble()).isEqualTo(1500);
        assertThat(json.get("paths").get(1).get("problems").get(0).asText()).isEqualTo("at 40.0 s: 200 in 1500 ms");
        assertThat(json.get("resources").get(1).get("name").asText()).isEqualTo("descriptors");
        assertThat(json.get("samples")).hasSize(3);
        assertThat(json.get("samples").get(1).get("quiet").asBoolean()).isTrue();
    }
}
