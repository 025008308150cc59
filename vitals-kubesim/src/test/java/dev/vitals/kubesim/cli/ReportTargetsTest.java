package dev.vitals.kubesim.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One rule for report targets across simulate, replay and fleet (docs/simulator.md, "Reports"):
 * {@code --html} ending in {@code .html} is the page, anything else a directory for
 * {@code index.html} (made if missing, never its parents); a report file's missing directory is
 * refused, one line, exit 2, before the run.
 */
class ReportTargetsTest {
    private static final String MODEL = Path.of("..", "examples", "kubesim", "fleet-shared-cache.yaml").toString();

    @TempDir
    Path dir;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        out.getBuffer().setLength(0);
        err.getBuffer().setLength(0);
        return VitalsCommand.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
    }

    @Test
    void aPathEndingInHtmlIsThePageAnyOtherADirectoryWithAnIndex() {
        HtmlOutput page = HtmlOutput.of(Path.of("out", "Report.HTML"));
        assertThat(page.directory()).isFalse();
        assertThat(page.index()).isEqualTo(Path.of("out", "Report.HTML"));
        assertThat(page.page("run.html")).isEqualTo(Path.of("out", "run.html"));
        HtmlOutput folder = HtmlOutput.of(Path.of("out", "report"));
        assertThat(folder.directory()).isTrue();
        assertThat(folder.index()).isEqualTo(Path.of("out", "report", "index.html"));
        assertThat(folder.page("run.html")).isEqualTo(Path.of("out", "report", "run.html"));
        assertThat(HtmlOutput.of(Path.of("r.html")).page("x.html")).isEqualTo(Path.of("x.html"));
        assertThat(HtmlOutput.of(null)).isNull();
    }

    @Test
    void fleetWritesThePageOrTheDirectorysIndex() throws Exception {
        Path page = dir.resolve("fleet.html");
        assertThat(run("fleet", MODEL, "--html", page.toString())).as(err.toString()).isIn(0, 1);
        assertThat(Files.readString(page)).startsWith("<!DOCTYPE html>");
        assertThat(out.toString()).contains("wrote " + page + "\n");
        Path folder = dir.resolve("fleet-report");
        assertThat(run("fleet", MODEL, "--html", folder.toString())).as(err.toString()).isIn(0, 1);
        assertThat(Files.readString(folder.resolve("index.html"))).startsWith("<!DOCTYPE html>");
        assertThat(out.toString()).contains("wrote " + folder.resolve("index.html") + "\n");
    }

    @Test
    void aFleetReplayWritesAnIndexBesideItsScenarioPages() throws Exception {
        Path index = dir.resolve("replay.html");
        assertThat(run("replay", "rebalance", "--runs", "1", "--html", index.toString())).as(out + "\n" + err).isZero();
        assertThat(Files.readString(index)).contains("href='fleet-rebalance.html'").contains("rebalance naive")
                .contains("rebalance vitals").contains("PASS");
        assertThat(dir.resolve("fleet-rebalance.html")).exists();
        assertThat(out.toString()).contains("wrote " + index + " and 1 scenario page(s) beside it");
    }

    @Test
    void aReportIntoAMissingDirectoryIsOneLineAndExit2BeforeTheRun() {
        Path missing = dir.resolve("no").resolve("such");
        String[][] cases = {
            {"--json", missing.resolve("r.json").toString(), "no such directory " + missing + " (make it first)"},
            {"--html", missing.resolve("r.html").toString(), "no such directory " + missing + " (make it first)"},
            {"--html", missing.resolve("report").toString(),
                "no such directory " + missing + " (vitals makes the report's own directory, not its parents)"}};
        for (String[] c : cases) {
            for (String command : new String[] {"fleet", "replay"}) {
                int code = command.equals("fleet") ? run("fleet", MODEL, c[0], c[1]) : run("replay", "rebalance", c[0], c[1]);
                assertThat(code).as(command + " " + c[0] + " " + c[1]).isEqualTo(2);
                assertThat(err.toString()).as(command).isEqualTo("error: " + c[0] + " " + c[1] + ": " + c[2] + "\n");
                assertThat(out.toString()).as(command + ": refused before the run").isEmpty();
            }
        }
        assertThat(dir.resolve("no")).doesNotExist();
        // another output refused: the --html directory is not made either
        assertThat(run("fleet", MODEL, "--json", missing.resolve("r.json").toString(), "--html", dir.resolve("pages").toString()))
                .isEqualTo(2);
        assertThat(dir.resolve("pages")).doesNotExist();
        assertThat(run("lint", "-o", missing.resolve("r.sarif").toString(), MODEL)).isEqualTo(2);
        assertThat(err.toString()).isEqualTo("error: --output " + missing.resolve("r.sarif") + ": no such directory " + missing
                + " (make it first)\n");
    }

    @Test
    void anHtmlDirectoryThatIsAFileIsRefused() throws Exception {
        Path file = Files.writeString(dir.resolve("notes.txt"), "keep me");
        assertThat(run("fleet", MODEL, "--html", file.toString())).isEqualTo(2);
        assertThat(err.toString()).isEqualTo("error: --html " + file + ": not a directory (a page's path ends in .html)\n");
        assertThat(Files.readString(file)).isEqualTo("keep me");
    }
}
