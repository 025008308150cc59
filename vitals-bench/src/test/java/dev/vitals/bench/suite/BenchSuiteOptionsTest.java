package dev.vitals.bench.suite;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** Bad options of {@code bench/run}: exit 2 and one line, before any target starts. */
class BenchSuiteOptionsTest {
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        CommandLine cl = BenchSuite.commandLine();
        cl.setErr(new PrintWriter(err, true));
        return cl.execute(args);
    }

    @Test
    void footprintStartsOutOfRangeIsRefused() {
        assertThat(run("--footprint-starts", "0", "--only", "footprint")).isEqualTo(2);
        assertThat(err.toString()).isEqualTo("bench/run: --footprint-starts must be 1-20, was 0 (try --help)" + System.lineSeparator());
    }

    @Test
    void footprintStartsNotANumberIsRefused() {
        assertThat(run("--footprint-starts", "many")).isEqualTo(2);
        assertThat(err.toString()).contains("--footprint-starts");
    }

    @Test
    void quickWithSmokeIsRefused() {
        assertThat(run("--quick", "--smoke")).isEqualTo(2);
        assertThat(err.toString()).contains("--quick and --smoke exclude each other");
    }
}
