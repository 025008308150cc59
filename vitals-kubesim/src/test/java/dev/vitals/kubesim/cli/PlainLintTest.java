package dev.vitals.kubesim.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code vitals lint PATH...} without picocli (issue 37: its reflection was most of a lint's start-up)
 * answers exactly as through picocli: same output, same errors, same exit code.
 */
class PlainLintTest {
    private static final String SAME = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 2\n"
            + "  template:\n    spec:\n      containers:\n      - name: app\n        image: x\n        ports:\n"
            + "        - containerPort: 8080\n        livenessProbe:\n          httpGet: {path: /health, port: 8080}\n"
            + "        readinessProbe:\n          httpGet: {path: /health, port: 8080}\n";
    private static final String ERROR = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: app\n"
            + "    image: x\n    livenessProbe:\n      httpGet: {path: /livez, port: 8080}\n      successThreshold: 3\n";

    /** One run: exit code, standard output, standard error. */
    private record Run(int exit, String out, String err) {
    }

    private static Run plain(String... args) {
        assertThat(VitalsCommand.isPlainLint(args)).as("takes the plain path").isTrue();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int rc = VitalsCommand.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
        return new Run(rc, out.toString(), err.toString());
    }

    private static Run picocli(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int rc = VitalsCommand.commandLine(new PrintWriter(out, true), new PrintWriter(err, true)).execute(args);
        return new Run(rc, out.toString(), err.toString());
    }

    @Test
    void pathsAloneAnswerAsPicocliDoes(@TempDir Path dir) throws Exception {
        Path same = Files.writeString(dir.resolve("deploy.yaml"), SAME);
        Path error = Files.writeString(dir.resolve("e.yaml"), ERROR);
        Path broken = Files.writeString(dir.resolve("broken.yaml"), "kind: [unclosed\n");
        Path sub = Files.createDirectories(dir.resolve("sub"));
        Files.writeString(sub.resolve("d.yaml"), SAME);
        List<String[]> cases = List.of(
                new String[] {"lint", same.toString()},                       // warnings: exit 0
                new String[] {"lint", same.toString(), error.toString()},     // an error: exit 1
                new String[] {"lint", broken.toString()},                     // invalid YAML: exit 2
                new String[] {"lint", dir.resolve("missing.yaml").toString()}, // no such file: exit 2
                new String[] {"lint", sub.toString()});                       // a directory
        for (String[] args : cases) {
            Run viaPicocli = picocli(args);
            assertThat(plain(args)).as(String.join(" ", args)).isEqualTo(viaPicocli);
        }
        assertThat(picocli(cases.get(1)).exit()).isEqualTo(1);
        assertThat(picocli(cases.get(2)).exit()).isEqualTo(2);
        assertThat(picocli(cases.get(3)).err()).startsWith("error: ").hasLineCount(1);
    }

    @Test
    void anythingElseGoesThroughPicocli() {
        assertThat(VitalsCommand.isPlainLint("lint")).isFalse(); // no path: picocli says what lint needs
        assertThat(VitalsCommand.isPlainLint("lint", "--help")).isFalse();
        assertThat(VitalsCommand.isPlainLint("lint", "a.yaml", "--format", "json")).isFalse();
        assertThat(VitalsCommand.isPlainLint("lint", "-f", "a.yaml")).isFalse();
        assertThat(VitalsCommand.isPlainLint("lint", "@args.txt")).isFalse(); // picocli's argument file
        assertThat(VitalsCommand.isPlainLint("lint", "")).isFalse();
        assertThat(VitalsCommand.isPlainLint("simulate", "a.yaml")).isFalse();
        assertThat(VitalsCommand.isPlainLint("lint", "a.yaml", "-")).isTrue(); // - is standard input, a path
    }
}
