package dev.vitals.bench.suite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import org.junit.jupiter.api.Test;

/** The suite's table and JSON output, and its small helpers (percentiles, wrk parsing). */
class ResultTableTest {
    static final Row P99 = Row.of("saturation c=50", "probe p99", "ms", 1.234, "actuator main port", 3001.7)
            .withGoal("vitals < 5 ms", true);
    static final Row FAILURES = Row.of("saturation c=50", "probe failures of 30", "", 0, "actuator main port", 14)
            .withGoal("vitals 0, reference > 0", true).withNote("app requests ok: 180 / 175");
    static final Row JAR = new Row("jars", "vitals-core jar", "KiB", OptionalDouble.of(151.25), "-", OptionalDouble.empty(),
            "", Optional.empty(), "");

    @Test
    void textTableHasAHeaderARuleAndOneAlignedLinePerRow() {
        String text = ResultTable.text(List.of(P99, FAILURES, JAR));
        List<String> lines = text.lines().toList();
        assertThat(lines).hasSize(5);
        assertThat(lines.get(0)).startsWith("| scenario ").contains("| vitals ").contains("| ratio ").endsWith(" |");
        assertThat(lines.get(1)).matches("\\|( -+ \\|)+");
        assertThat(lines).extracting(String::length).containsOnly(lines.get(0).length());
        assertThat(lines.get(2)).contains("| 1.23 ms ").contains("| 3002 ms ").contains("| 0.000411 ")
                .contains("| vitals < 5 ms ").contains("| yes ");
        // no unit, a zero ratio; the note follows the verdict
        assertThat(lines.get(3)).contains("| 0 ").contains("| 14 ").contains("yes (app requests ok: 180 / 175)");
        // no reference, no goal
        assertThat(lines.get(4)).contains("| 151 KiB ").contains("| - ").doesNotContain("yes").doesNotContain("NO");
        assertThat(ResultTable.text(List.of(P99.withGoal("vitals < 5 ms", false)))).contains("| NO ");
        // a zero reference gives no ratio
        assertThat(ResultTable.text(List.of(Row.of("s", "m", "", 0, "r", 0))).lines().skip(2).findFirst().orElseThrow())
                .isEqualTo("| s        | m      | 0      | r         | 0         | -     | -    | -   |");
    }

    @Test
    void markdownTableHasTheSameColumnsAndEscapesPipes() {
        List<String> lines = ResultTable.markdown(List.of(P99, FAILURES.withNote("a | b"))).lines().toList();
        assertThat(lines).hasSize(4);
        assertThat(lines.get(0)).isEqualTo("| scenario | metric | vitals | reference | ref value | ratio | goal | met |");
        assertThat(lines.get(1)).isEqualTo("|---|---|---|---|---|---|---|---|");
        assertThat(lines.get(2)).isEqualTo("| saturation c=50 | probe p99 | 1.23 ms | actuator main port | 3002 ms | 0.000411 | vitals < 5 ms | yes |");
        assertThat(lines.get(3)).endsWith("| yes (a \\| b) |");
    }

    @Test
    void numbersHaveThreeSignificantDigitsBelow100AndNoneAfterThePointAbove() {
        assertThat(ResultTable.format(0)).isEqualTo("0");
        assertThat(ResultTable.format(1.23456)).isEqualTo("1.23");
        assertThat(ResultTable.format(0.000123456)).isEqualTo("0.000123");
        assertThat(ResultTable.format(12.0)).isEqualTo("12");
        assertThat(ResultTable.format(99.94)).isEqualTo("99.9");
        assertThat(ResultTable.format(100.4)).isEqualTo("100");
        assertThat(ResultTable.format(41234.6)).isEqualTo("41235");
        assertThat(ResultTable.format(-2.5)).isEqualTo("-2.5");
        assertThatThrownBy(() -> ResultTable.format(Double.NaN)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("NaN");
    }

    @Test
    void jsonHoldsTheRunAndEveryRowWithNullsForMissingFigures() throws Exception {
        Map<String, Object> meta = new LinkedHashMap<>();
        meta.put("mode", "quick");
        meta.put("loadAverageStart", "3.2");
        JsonNode root = new ObjectMapper().readTree(ResultTable.json(meta, List.of(P99, JAR)));
        assertThat(root.get("run").get("mode").asText()).isEqualTo("quick");
        assertThat(root.get("run").get("loadAverageStart").asText()).isEqualTo("3.2");
        JsonNode first = root.get("rows").get(0);
        assertThat(first.get("scenario").asText()).isEqualTo("saturation c=50");
        assertThat(first.get("metric").asText()).isEqualTo("probe p99");
        assertThat(first.get("unit").asText()).isEqualTo("ms");
        assertThat(first.get("vitals").asDouble()).isEqualTo(1.234);
        assertThat(first.get("reference").asText()).isEqualTo("actuator main port");
        assertThat(first.get("referenceValue").asDouble()).isEqualTo(3001.7);
        assertThat(first.get("ratio").asDouble()).isEqualTo(0.0004); // 4 decimals
        assertThat(first.get("goal").asText()).isEqualTo("vitals < 5 ms");
        assertThat(first.get("goalMet").asBoolean()).isTrue();
        JsonNode jar = root.get("rows").get(1);
        assertThat(jar.get("referenceValue").isNull()).isTrue();
        assertThat(jar.get("ratio").isNull()).isTrue();
        assertThat(jar.get("goal").isNull()).isTrue();
        assertThat(jar.get("goalMet").isNull()).isTrue();
        assertThat(root.get("rows")).hasSize(2);
    }

    @Test
    void ratioIsVitalsOverReferenceAndAbsentWithoutBothOrForAZeroReference() {
        assertThat(Row.of("s", "m", "", 2, "r", 8).ratio()).hasValue(0.25);
        assertThat(FAILURES.ratio()).hasValue(0);
        assertThat(Row.of("s", "m", "", 3, "r", 0).ratio()).isEmpty();
        assertThat(JAR.ratio()).isEmpty();
        assertThatThrownBy(() -> Row.of("s", "m", "", Double.POSITIVE_INFINITY, "r", 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("s m: vitals figure must be finite");
        assertThatThrownBy(() -> new Row("s", "m", "", OptionalDouble.empty(), null, OptionalDouble.empty(), "", Optional.empty(), ""))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("reference");
    }

    @Test
    void percentilesAreNearestRank() {
        double[] v = {5, 1, 4, 2, 3, 10, 9, 8, 7, 6};
        assertThat(Stats.percentile(v, 50)).isEqualTo(5);
        assertThat(Stats.percentile(v, 99)).isEqualTo(10);
        assertThat(Stats.percentile(v, 10)).isEqualTo(1);
        assertThat(Stats.percentile(v, 0)).isEqualTo(1);
        assertThat(Stats.max(new double[] {3})).isEqualTo(3);
        assertThat(v[0]).isEqualTo(5); // the sample is not sorted in place
        assertThatThrownBy(() -> Stats.percentile(new double[0], 50)).hasMessage("empty sample");
        assertThatThrownBy(() -> Stats.percentile(v, 101)).hasMessage("percentile must be 0-100, was 101.0");
    }

    @Test
    void wrkLatencyReportIsRead() {
        String report = "Running 10s test @ http://127.0.0.1:1/livez\n  2 threads and 16 connections\n"
                + "  Latency Distribution\n     50%  312.00us\n     75%  500.00us\n     90%    1.20ms\n     99%   15.31ms\n"
                + "  412345 requests in 10.00s, 40.00MB read\nRequests/sec:  41234.50\nTransfer/sec:      4.00MB\n";
        Wrk.Figures f = Wrk.parse(report);
        assertThat(f.rps()).isEqualTo(41234.5);
        assertThat(f.p50()).isEqualTo(0.312);
        assertThat(f.p99()).isEqualTo(15.31);
        assertThat(Wrk.parse(report.replace("15.31ms", "1.50s")).p99()).isEqualTo(1500);
        assertThatThrownBy(() -> Wrk.parse(report + "  Non-2xx or 3xx responses: 12\n")).hasMessageStartingWith("wrk saw errors");
        assertThatThrownBy(() -> Wrk.parse("garbage")).hasMessageContaining("Requests/sec");
    }
}
