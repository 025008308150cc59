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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code vitals replay rollout --live}: what the live engine cannot honour is one line and exit 2, before any process starts. */
class ReplayLiveCommandTest {
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        return VitalsCommand.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "replay incident --live | error: --live replays rollout only, was incident",
        "replay rebalance --live --replicas 6 | error: --live replays rollout only, was rebalance",
        "replay rollout shared-dependency --live | error: --live replays rollout only, was rollout shared-dependency",
        "replay all --live | error: --live replays rollout only, was all",
        "replay rollout --live --runs 5 | error: --runs is for the model engine; with --live each wiring runs once",
        "replay rollout --live --replicas 65 | error: --replicas must be 1-64 with --live, was 65",
        "replay rollout --live --replicas 0 | error: --replicas must be 1-64 with --live, was 0",
        "replay rollot --live | error: unknown fleet scenario 'rollot': with --replicas, expected one of incident, incident-pinned, incident-pinned-sustained, incident-stress, "
            + "shared-dependency, rebalance, rollout, all",
    })
    void whatTheLiveEngineCannotHonourIsOneLine(String args, String message) {
        assertThat(run(args.split(" "))).as(out + "\n" + err).isEqualTo(VitalsCommand.BAD_INPUT);
        assertThat(err.toString().strip()).isEqualTo(message);
        assertThat(out.toString()).isEmpty();
    }

    @Test
    void anHtmlDirectoryPathThatIsAFileIsBadInputBeforeAnyProcess(@TempDir Path dir) throws IOException {
        // --html PATH not ending in .html is a directory (cli.HtmlOutput); a plain file there is refused before anything runs
        Path file = Files.writeString(dir.resolve("report"), "x");
        assertThat(run("replay", "rollout", "--live", "--html", file.toString())).isEqualTo(VitalsCommand.BAD_INPUT);
        assertThat(err.toString().strip()).isEqualTo("error: --html " + file + ": not a directory (a page's path ends in .html)");
        assertThat(out.toString()).isEmpty();
    }
}
