package dev.vitals.kubesim.replay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vitals.kubesim.cli.VitalsCommand;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
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
        Path jar = Files.writeString(dir.resolve("vitals-demo.jar"), "jar");
        assertThat(run("replay", "incidnet", "--demo-jar", jar.toString())).isEqualTo(VitalsCommand.BAD_INPUT);
        assertThat(err.toString()).contains("unknown scenario 'incidnet'").contains("incident, db-outage, slow-start, stall");
    }

    @Test
    void aMissingDemoJarIsBadInputWithAHint(@TempDir Path dir) {
        assertThat(run("replay", "incident", "--demo-jar", dir.resolve("nope.jar").toString())).isEqualTo(VitalsCommand.BAD_INPUT);
        assertThat(err.toString()).contains("--demo-jar").contains("no such file");
    }

    @Test
    void anHtmlPathThatIsAFileIsBadInput(@TempDir Path dir) throws IOException {
        Path jar = Files.writeString(dir.resolve("vitals-demo.jar"), "jar");
        Path file = Files.writeString(dir.resolve("report.html"), "x");
        assertThat(run("replay", "stall", "--demo-jar", jar.toString(), "--html", file.toString())).isEqualTo(VitalsCommand.BAD_INPUT);
        assertThat(err.toString()).contains("not a directory");
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
}
