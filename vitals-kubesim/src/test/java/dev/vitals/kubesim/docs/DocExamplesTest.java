package dev.vitals.kubesim.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vitals.kubesim.cli.VitalsCommand;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * The worked examples in the guides match today's output. A fenced block preceded by the line
 * {@code <!-- rendered: vitals ARGS -->} is the output of that command line, run here in-process
 * from the repository's root ({@code <!-- rendered in DIR: vitals ARGS -->}: from DIR, relative to it) (fast, deterministic commands only: {@code lint}, {@code fleet} and
 * the fleet replays on the model engine with their fixed seeds). The block may open with the
 * command line ({@code $ vitals ARGS}) and close with {@code exit N}; lines are compared with
 * their whitespace normalised, and a model run's wall time, {@code (model engine: 1.9 s)}, is
 * left out. Run with {@code -Dvitals.docs.regenerate=true} to rewrite the drifted blocks.
 * Blocks of live runs (real processes, timing) carry no marker and say so in their guide.
 */
class DocExamplesTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final List<String> GUIDES = List.of("simulator.md", "lint.md", "replay.md", "fleet.md");
    private static final Pattern MARKER = Pattern.compile("<!-- rendered(?: in (\\S+))?: vitals (.+?) -->");
    private static final Set<String> OUTPUT_OPTIONS = Set.of("--html", "--json", "-o", "--output");
    private static final Pattern WALL_TIME = Pattern.compile("\\(model engine: [0-9.]+ s\\)");

    @TempDir
    static Path out;

    /** A marked block: its guide, the marker's line (0-based), its command line, its text. */
    record Block(Path guide, int marker, Path dir, String command, int from, int to, List<String> lines) {
    }

    static List<Block> blocks(Path guide) throws IOException {
        List<String> lines = Files.readAllLines(guide, StandardCharsets.UTF_8);
        List<Block> out = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            Matcher m = MARKER.matcher(lines.get(i).strip());
            if (!m.matches()) {
                continue;
            }
            assertThat(lines.get(i + 1)).as(guide + ":" + (i + 2) + " a marker stands right above its fenced block").startsWith("```");
            int end = i + 2;
            while (!lines.get(end).startsWith("```")) {
                end++;
            }
            Path dir = m.group(1) == null ? ROOT : ROOT.resolve(m.group(1)).normalize();
            assertThat(dir).as(guide + ":" + (i + 1)).isDirectory();
            out.add(new Block(guide, i, dir, m.group(2), i + 2, end, List.copyOf(lines.subList(i + 2, end))));
        }
        return out;
    }

    /**
     * @param dir where the command runs: its file arguments are resolved there, and the paths it prints are relative to it
     * @param command the command line after {@code vitals}
     * @return the command's output as the guide shows it: the command line, the output, the exit code when not 0
     */
    static List<String> render(Path dir, String command) {
        List<String> args = new ArrayList<>(List.of(command.split(" +")));
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (i > 0 && OUTPUT_OPTIONS.contains(args.get(i - 1))) {
                args.set(i, out.resolve(a).toString());
            } else if (!a.startsWith("-") && Files.exists(dir.resolve(a))) {
                args.set(i, dir.resolve(a).toString());
            }
        }
        StringWriter o = new StringWriter();
        StringWriter e = new StringWriter();
        int code = VitalsCommand.execute(new PrintWriter(o, true), new PrintWriter(e, true), args.toArray(new String[0]));
        assertThat(e.toString()).as(command).isEmpty();
        List<String> shown = new ArrayList<>();
        shown.add("$ vitals " + command);
        for (String l : o.toString().replace(out + "/", "").replace(out.toString(), "").replace(dir + "/", "").split("\n", -1)) {
            shown.add(l);
        }
        while (!shown.isEmpty() && shown.get(shown.size() - 1).isBlank()) {
            shown.remove(shown.size() - 1);
        }
        if (code != 0) {
            shown.add("exit " + code);
        }
        return shown;
    }

    static List<String> normalise(List<String> lines) {
        List<String> n = new ArrayList<>();
        for (String l : lines) {
            String s = WALL_TIME.matcher(l.strip().replaceAll("\\s+", " ")).replaceAll("(model engine: wall time)");
            if (!s.isEmpty()) {
                n.add(s);
            }
        }
        return n;
    }

    @TestFactory
    Stream<DynamicTest> everyMarkedBlockIsTodaysOutput() throws IOException {
        boolean regenerate = Boolean.getBoolean("vitals.docs.regenerate");
        List<DynamicTest> tests = new ArrayList<>();
        int marked = 0;
        for (String name : GUIDES) {
            Path guide = ROOT.resolve("docs").resolve(name);
            List<Block> blocks = blocks(guide);
            marked += blocks.size();
            List<String> text = new ArrayList<>(Files.readAllLines(guide, StandardCharsets.UTF_8));
            boolean changed = false;
            // bottom-up, so that rewriting a block keeps the line numbers of those above
            for (int k = blocks.size() - 1; k >= 0; k--) {
                Block b = blocks.get(k);
                List<String> now = render(b.dir(), b.command());
                boolean rewrite = regenerate && !normalise(now).equals(normalise(b.lines()));
                if (rewrite) {
                    List<String> section = text.subList(b.from(), b.to());
                    section.clear();
                    section.addAll(now);
                    changed = true;
                }
                tests.add(DynamicTest.dynamicTest(name + ":" + (b.marker() + 1) + " vitals " + b.command(), () -> {
                    List<String> shown = rewrite ? now : b.lines();
                    assertThat(shown).as("opens with its command line").isNotEmpty();
                    assertThat(shown.get(0).strip()).isEqualTo("$ vitals " + b.command());
                    assertThat(String.join("\n", normalise(shown)))
                            .as(b.guide() + ":" + (b.marker() + 1) + " (regenerate: -Dvitals.docs.regenerate=true)")
                            .isEqualTo(String.join("\n", normalise(now)));
                }));
            }
            if (changed) {
                Files.write(guide, text, StandardCharsets.UTF_8);
            }
        }
        assertThat(marked).as("marked blocks in " + GUIDES).isGreaterThanOrEqualTo(3);
        return tests.stream();
    }
}
