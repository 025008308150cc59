package dev.vitals.kubesim.lint;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Benchmark (tag {@code benchmark}, left out of the default build): lint a 50 MB
 * multi-document stream with 2,000 workloads, generated at run time into {@code target/}
 * (never committed), in a child JVM capped at 256 MiB of heap. Goal on the 2-core machine:
 * under 3 s and under 256 MiB. Reports lint time and peak heap, with the references of the
 * same JVM (reading the text; snakeyaml-engine's parser alone). Run:
 * <pre>{@code mvn -B -pl vitals-kubesim -am test -Dvitals.excludedTestGroups= -Dgroups=benchmark \
 *     -Dtest=LintStreamBenchmarkTest -Dsurefire.failIfNoSpecifiedTests=false}</pre>
 * Results go to stdout and {@code target/lint-stream-benchmark.txt}. No timing asserts: the
 * test checks only that the run finished inside the heap cap and found what was planted.
 */
@Tag("benchmark")
class LintStreamBenchmarkTest {
    @Test
    void lintFiftyMegabytesOfTwoThousandWorkloads() throws Exception {
        Path target = Path.of("target");
        Files.createDirectories(target);
        Path stream = target.resolve("lint-stream-50mb.yaml");
        long bytes = LintStreamBench.generate(stream, 2000, 50L * 1000 * 1000);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        StringBuilder out = new StringBuilder();
        int exit = 0;
        // the references first, each in a fresh JVM like lint: reading the text, snakeyaml-engine's parser alone
        for (String mode : List.of("read", "parse", "lint")) {
            Process p = new ProcessBuilder(java, "-Xmx256m", "-cp", System.getProperty("java.class.path"),
                    LintStreamBench.class.getName(), stream.toString(), mode).redirectErrorStream(true).start();
            out.append(new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
            assertThat(p.waitFor(5, TimeUnit.MINUTES)).isTrue();
            exit |= p.exitValue();
        }
        String load = Files.exists(Path.of("/proc/loadavg")) ? Files.readString(Path.of("/proc/loadavg")).strip() : "n/a";
        String report = String.format("stream: %.1f MB, 2000 workloads, %d cores, load %s%n%s", bytes / 1e6,
                Runtime.getRuntime().availableProcessors(), load, out);
        System.out.println(report);
        Files.writeString(target.resolve("lint-stream-benchmark.txt"), report);
        assertThat(exit).as(out.toString()).isZero();
        assertThat(out.toString()).contains("2000 workloads, 2000 containers").doesNotContain("OutOfMemoryError");
        new File(stream.toString()).delete();
        assertThat(List.of(out.toString().split("\n"))).hasSize(3);
    }
}
