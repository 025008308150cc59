package dev.vitals.kubesim.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code --help} of every command and subcommand prints its usage and no warning: picocli
 * reports a help text it cannot format (an unescaped {@code %}, a bad {@code ${...}}) as a
 * {@code [picocli WARN]} line on {@link System#err}, which this test captures too.
 */
class HelpWarningsTest {
    private static void names(CommandLine cl, List<String> prefix, List<List<String>> out) {
        out.add(prefix);
        cl.getSubcommands().forEach((name, sub) -> {
            if (sub.getParent() == cl && sub.getCommandName().equals(name)) { // once per command, not per alias
                List<String> p = new ArrayList<>(prefix);
                p.add(name);
                names(sub, p, out);
            }
        });
    }

    @Test
    void everyCommandsHelpPrintsNoWarning() {
        List<List<String>> commands = new ArrayList<>();
        names(VitalsCommand.commandLine(new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter())), List.of(), commands);
        assertThat(commands).contains(List.of("simulate"), List.of("lint"), List.of("replay"), List.of("fleet"),
                List.of("fleet", "calibrate"), List.of("completion"));
        PrintStream stdout = System.out;
        PrintStream stderr = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        try {
            PrintStream both = new PrintStream(captured, true, StandardCharsets.UTF_8);
            System.setOut(both);
            System.setErr(both);
            for (List<String> c : commands) {
                if (c.equals(List.of("help"))) {
                    continue; // `help --help` is picocli's own
                }
                StringWriter out = new StringWriter();
                StringWriter err = new StringWriter();
                List<String> args = new ArrayList<>(c);
                args.add("--help");
                int code = VitalsCommand.execute(new PrintWriter(out, true), new PrintWriter(err, true), args.toArray(new String[0]));
                String all = out + "\n" + err + "\n" + captured.toString(StandardCharsets.UTF_8);
                assertThat(code).as(String.join(" ", args) + "\n" + all).isZero();
                assertThat(out.toString()).as(String.join(" ", args)).contains("Usage: vitals");
                // nothing on standard error, nothing outside the command's own writers (where picocli's tracer warns),
                // and no warning in the usage ("warning" as a lint severity is the help's own word, hence upper case)
                assertThat(err.toString()).as(String.join(" ", args) + "\n" + all).isEmpty();
                assertThat(captured.toString(StandardCharsets.UTF_8)).as(String.join(" ", args) + "\n" + all).isEmpty();
                assertThat(out.toString()).as(String.join(" ", args)).doesNotContain("[picocli").doesNotContain("WARN");
                captured.reset();
            }
        } finally {
            System.setOut(stdout);
            System.setErr(stderr);
        }
    }
}
