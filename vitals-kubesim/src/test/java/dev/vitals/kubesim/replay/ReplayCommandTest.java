package dev.vitals.kubesim.replay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vitals.kubesim.cli.VitalsCommand;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The command's unhappy paths: no demo process is started by these. */
class ReplayCommandTest {
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        return VitalsCommand.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
    }

    @Test
    void anUnknownScenarioIsBadInput(@TempDir Path dir) throws IOException {
        Path jar = Files.write(dir.resolve("vitals-demo.jar"), new byte[] {'P', 'K', 3, 4});
        assertThat(run("replay", "incidnet", "--demo-jar", jar.toString())).isEqualTo(VitalsCommand.BAD_INPUT);
        assertThat(err.toString()).contains("unknown scenario 'incidnet'").contains("incident, db-outage, slow-start, stall");
    }

    @Test
    void aMissingDemoJarIsBadInputWithAHint(@TempDir Path dir) {
        assertThat(run("replay", "incident", "--demo-jar", dir.resolve("nope.jar").toString())).isEqualTo(VitalsCommand.BAD_INPUT);
        assertThat(err.toString()).contains("--demo-jar").contains("no such file");
    }

    @Test
    void aDemoJarThatIsNotAJarOrIsADirectoryIsBadInputAtOnce(@TempDir Path dir) throws IOException {
        Path notAJar = Files.writeString(dir.resolve("README.md"), "# not a jar");
        assertThat(run("replay", "incident", "--demo-jar", notAJar.toString())).isEqualTo(VitalsCommand.BAD_INPUT);
        assertThat(err.toString()).contains("--demo-jar").contains("not a jar (zip) file");
        assertThat(run("replay", "incident", "--demo-jar", dir.toString())).isEqualTo(VitalsCommand.BAD_INPUT);
        assertThat(err.toString()).contains("is a directory, not a jar");
    }

    @Test
    void anHtmlDirectoryPathThatIsAFileIsBadInput(@TempDir Path dir) throws IOException {
        // --html PATH: a path not ending in .html is a directory (cli.HtmlOutput); an existing plain file there is refused
        Path jar = Files.write(dir.resolve("vitals-demo.jar"), new byte[] {'P', 'K', 3, 4});
        Path file = Files.writeString(dir.resolve("report"), "x");
        assertThat(run("replay", "stall", "--demo-jar", jar.toString(), "--html", file.toString())).isEqualTo(VitalsCommand.BAD_INPUT);
        assertThat(err.toString()).contains("not a directory");
    }

    @Test
    void aJsonOrLogsPathThatCannotBeWrittenIsBadInputBeforeAnyBoot(@TempDir Path dir) throws IOException {
        // found by QA: --json under a path that cannot be made was found after the whole replay
        // ("error: java.nio.file.NoSuchFileException", exit 1, the report lost); --logs naming a file
        // gave "error: java.lang.IllegalStateException: cannot create the log directory …" and exit 1
        Path jar = Files.write(dir.resolve("vitals-demo.jar"), new byte[] {'P', 'K', 3, 4});
        Path file = Files.writeString(dir.resolve("plain-file"), "x");
        List<List<String>> bad = List.of(
                List.of("replay", "stall", "--demo-jar", jar.toString(), "--json", file.resolve("r.json").toString()),
                List.of("replay", "stall", "--demo-jar", jar.toString(), "--json", dir.toString()),
                List.of("replay", "stall", "--demo-jar", jar.toString(), "--logs", file.toString()));
        for (List<String> args : bad) {
            err.getBuffer().setLength(0);
            assertThat(run(args.toArray(new String[0]))).as(args + "\n" + err).isEqualTo(VitalsCommand.BAD_INPUT);
            assertThat(err.toString().strip()).as(args.toString()).startsWith("error: --").doesNotContain("Exception")
                    .doesNotContain("\n");
        }
    }

    @Test
    void anUnknownFlagIsBadInput() {
        assertThat(run("replay", "--frobnicate")).isEqualTo(VitalsCommand.BAD_INPUT);
        assertThat(err.toString()).contains("Unknown option").contains("--frobnicate");
    }

    @Test
    void helpNamesTheScenariosAndTheExitCodes() {
        assertThat(run("replay", "--help")).isZero();
        assertThat(out.toString()).contains("incident", "db-outage", "slow-start", "stall", "--demo-jar", "--json", "--html",
                "Exit code: 0");
    }

    @Test
    void helpIsWrappedByTheLibraryNotByHand() {
        // found by QA: hand-wrapped description lines re-wrapped by picocli left stubs such as
        // "so that each" and "when one does not" on lines of their own (issue 18's --help complaint)
        assertThat(run("replay", "--help")).isZero();
        String text = out.toString();
        String description = text.substring(text.indexOf("Replay each"), text.indexOf("[SCENARIO...]", text.indexOf("Replay each")));
        for (String line : description.strip().split("\n")) {
            assertThat(line.isBlank() || line.length() >= 50 || line.endsWith(".")).as("ragged line: '" + line + "'").isTrue();
        }
    }

    @Test
    void bootSizingFlagsOutOfRangeAreBadInputBeforeAnyBoot(@TempDir Path dir) throws IOException {
        Path jar = Files.write(dir.resolve("vitals-demo.jar"), new byte[] {'P', 'K', 3, 4});
        assertThat(run("replay", "stall", "--demo-jar", jar.toString(), "--boot-seconds", "0")).isEqualTo(VitalsCommand.BAD_INPUT);
        assertThat(err.toString()).contains("--boot-seconds must be > 0 and at most 3600, was 0.0");
        assertThat(run("replay", "stall", "--demo-jar", jar.toString(), "--boot-rounds", "11")).isEqualTo(VitalsCommand.BAD_INPUT);
        assertThat(err.toString()).contains("--boot-rounds must be 1-10, was 11");
        assertThat(out.toString()).doesNotContain("measuring");
    }

    @Test
    void aDemoThatCannotBootFailsTheReplayWithOneLine(@TempDir Path dir) throws IOException {
        // a real zip without a main class: `java -jar` exits 1 at once, in a real child process
        Path jar = dir.resolve("vitals-demo.jar");
        try (java.util.zip.ZipOutputStream z = new java.util.zip.ZipOutputStream(Files.newOutputStream(jar))) {
            z.putNextEntry(new java.util.zip.ZipEntry("README.txt"));
            z.write("not the demo".getBytes(java.nio.charset.StandardCharsets.UTF_8));
            z.closeEntry();
        }
        int code = run("replay", "stall", "--demo-jar", jar.toString(), "--boot-rounds", "1", "--logs", dir.resolve("logs").toString());

        assertThat(code).isEqualTo(VitalsCommand.FAILED);
        assertThat(err.toString().strip()).startsWith("error: cannot measure the demo's boot: the demo (")
                .contains("exited with code 1 while booting").doesNotContain("\tat ");
        assertThat(err.toString().strip().lines()).hasSize(1);
        assertThat(dir.resolve("logs")).isDirectoryContaining(p -> p.getFileName().toString().startsWith("boot-"));
    }

    @Test
    void aGivenBootTimeTooSlowForTheLongestRunSkipsEveryCaseAndFails(@TempDir Path dir) throws IOException {
        Path jar = Files.write(dir.resolve("vitals-demo.jar"), new byte[] {'P', 'K', 3, 4});
        int code = run("replay", "stall", "--demo-jar", jar.toString(), "--boot-seconds", "90", "--quiet");

        assertThat(code).as(out + "\n" + err).isEqualTo(VitalsCommand.FAILED);
        assertThat(out.toString()).contains("sizing: boot 90.0 s (given").contains("SKIPPED: needs a")
                .contains("SKIP stall");
    }
}
