package dev.vitals.kubesim.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 30: every command's outputs pass one check before anything is opened for writing (an output
 * that is an input, two outputs naming one file, an empty path), and a failed write is one line
 * naming the file and the OS's reason, exit 2. The rows of {@code bad-inputs.tsv} check the exit code
 * and the single line; these check the words and that the input is left as it was.
 */
class OutputChecksTest {
    private static final String POD = "kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: app\n    image: x\n"
            + "    livenessProbe: {tcpSocket: {port: 8080}, periodSeconds: 1}\n";

    @TempDir
    Path dir;
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        return VitalsCommand.execute(new PrintWriter(new StringWriter(), true), new PrintWriter(err, true), args);
    }

    @Test
    void lintRefusesToWriteItsReportOverItsInputAndLeavesItAsItWas() throws Exception {
        Path in = Files.writeString(dir.resolve("X.yaml"), POD, StandardCharsets.UTF_8);
        Path link = Files.createSymbolicLink(dir.resolve("L.yaml"), in);
        for (Path out : new Path[] {in, dir.resolve("./X.yaml"), link}) {
            err.getBuffer().setLength(0);
            assertThat(run("lint", "--format", "json", "-o", out.toString(), in.toString())).as(out.toString()).isEqualTo(2);
            assertThat(err.toString()).isEqualTo("error: --output " + out + ": is the input " + in
                    + "; writing the report there would destroy it, write it elsewhere\n");
        }
        assertThat(Files.readString(in)).isEqualTo(POD);
        // another file in the same directory is fine
        assertThat(run("lint", "--format", "json", "-o", dir.resolve("r.json").toString(), in.toString())).isZero();
        assertThat(Files.readString(dir.resolve("r.json"))).contains("\"findings\"");
    }

    @Test
    void lintRefusesAReportOverAFileItFindsInAnInputDirectory() throws Exception {
        Path k8s = Files.createDirectories(dir.resolve("k8s"));
        Path in = Files.writeString(k8s.resolve("pod.yaml"), POD, StandardCharsets.UTF_8);
        assertThat(run("lint", "--format", "json", "-o", in.toString(), k8s.toString())).isEqualTo(2);
        assertThat(err.toString()).startsWith("error: --output " + in + ": is the input ");
        assertThat(Files.readString(in)).isEqualTo(POD);
        // a new file there is no input: written
        assertThat(run("lint", "--format", "json", "-o", k8s.resolve("report.json").toString(), k8s.toString())).isZero();
        // a device as input and output destroys nothing (/dev/null as an input holds no object: --allow-empty)
        assertThat(run("lint", "--allow-empty", "-o", "/dev/null", in.toString(), "/dev/null")).isZero();
    }

    @Test
    void twoOutputsOfOneRunNamingOneFileAreRefusedBeforeTheRun() {
        Path out = dir.resolve("same.html");
        assertThat(run("simulate", "--liveness", "tcp://:1", "--json", out.toString(), "--html", dir + "/./same.html", "--",
                "true")).isEqualTo(2);
        assertThat(err.toString()).isEqualTo("error: --html " + dir + "/./same.html: the same file as --json " + out
                + "; give each output its own file\n");
        assertThat(out).doesNotExist();
    }

    @Test
    void anEmptyOutputPathIsNamedAsSuch() {
        assertThat(run("simulate", "--liveness", "tcp://:1", "--json", "", "--", "true")).isEqualTo(2);
        assertThat(err.toString()).isEqualTo("error: --json: empty path\n");
    }

    @Test
    void aFailedWriteIsOneLineWithTheFileAndTheReason() {
        Assumptions.assumeTrue(Files.exists(Path.of("/dev/full")), "/dev/full (Linux)");
        Path in = dir.resolve("X.yaml");
        assertThat(run("lint", "-o", "/dev/full", writePod(in).toString())).isEqualTo(2);
        assertThat(err.toString()).isEqualTo("error: /dev/full: No space left on device\n");
    }

    @Test
    void aGracePeriodFlagBelowThePreStopSleepIsRefusedAsInTheManifest() throws Exception {
        String hooks = POD + "    lifecycle: {preStop: {sleep: {seconds: 4}}}\n";
        Path flag = Files.writeString(dir.resolve("hooks.yaml"), hooks, StandardCharsets.UTF_8);
        assertThat(run("simulate", "--manifest", flag.toString(), "--termination-grace-period", "1", "--", "true")).isEqualTo(2);
        assertThat(err.toString()).isEqualTo("error: --termination-grace-period 1: lifecycle.preStop.sleep.seconds: must be"
                + " less than terminationGracePeriodSeconds of 1, was 4\n");
        err.getBuffer().setLength(0);
        Path manifest = Files.writeString(dir.resolve("grace.yaml"), hooks.replace("spec:\n", "spec:\n  terminationGracePeriodSeconds: 1\n"),
                StandardCharsets.UTF_8);
        assertThat(run("simulate", "--manifest", manifest.toString(), "--", "true")).isEqualTo(2);
        assertThat(err.toString()).contains("lifecycle.preStop.sleep.seconds: must be less than terminationGracePeriodSeconds"
                + " of 1, was 4");
    }

    private static Path writePod(Path p) {
        try {
            return Files.writeString(p, POD, StandardCharsets.UTF_8);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
