package dev.vitals.kubesim.cli;

import static org.assertj.core.api.Assertions.assertThat;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code vitals completion bash|zsh}; tools/check-launcher sources the script in a real bash. */
class CompletionCommandTest {
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        return VitalsCommand.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
    }

    @Test
    void bashScriptCompletesEveryCommandAndItsOptions() {
        assertThat(run("completion", "bash")).isZero();
        assertThat(out.toString())
                .contains("function _complete_vitals()")
                .contains("complete -F _complete_vitals -o default kubectl-vitals")
                .contains("lint").contains("simulate").contains("replay").contains("fleet").contains("completion")
                .contains("--format").contains("--filename").contains("--fail-on").contains("--sweep");
        assertThat(err.toString()).isEmpty();
    }

    /**
     * Issue 40, in a real bash: turning completion on replaced file names after {@code vitals lint}
     * and {@code -f} with nothing, and {@code --format}/{@code --fail-on} offered no values.
     */
    @Test
    void inRealBashCompletionKeepsFileNamesAndOffersEnumeratedValues(@TempDir Path dir) throws Exception {
        Path bash = Path.of("/bin/bash");
        assumeTrue(Files.isExecutable(bash), "bash is installed");
        assertThat(run("completion", "bash")).isZero();
        Path script = Files.writeString(dir.resolve("vitals.bash"), out.toString());
        Files.createFile(dir.resolve("deploy.yaml"));
        Files.createFile(dir.resolve("deployment.json"));
        String driver = "source " + script + "\n"
                + "complete_line() {\n"
                + "  COMP_LINE=\"$1\"; COMP_POINT=${#COMP_LINE}\n"
                + "  read -ra COMP_WORDS <<< \"$COMP_LINE\"\n"
                + "  if [[ \"$COMP_LINE\" == *\" \" ]]; then COMP_WORDS+=(\"\"); fi\n"
                + "  COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); COMPREPLY=()\n"
                + "  _complete_vitals vitals \"${COMP_WORDS[COMP_CWORD]}\" \"${COMP_WORDS[COMP_CWORD-1]}\"\n"
                + "  printf '%s|' \"${COMPREPLY[@]}\"; echo\n"
                + "}\n"
                + "complete_line 'vitals lint dep'\n"
                + "complete_line 'vitals lint -f dep'\n"
                + "complete_line 'vitals lint --format '\n"
                + "complete_line 'vitals lint --fail-on '\n"
                + "complete_line 'vitals lint --fail-on w'\n";
        Process p = new ProcessBuilder(bash.toString(), "-c", driver).directory(dir.toFile())
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        List<String> lines = List.of(new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).split("\n"));
        assertThat(lines).containsExactly(
                "deploy.yaml|deployment.json|",
                "deploy.yaml|deployment.json|",
                "text|json|sarif|junit|",
                "error|warning|info|never|",
                "warning|");
    }

    @Test
    void zshGetsTheScriptThatLoadsBashcompinit() {
        assertThat(run("completion", "zsh")).isZero();
        assertThat(out.toString()).contains("bashcompinit").contains("function _complete_vitals()");
    }

    @Test
    void anUnknownShellIsOneLineAndExitTwo() {
        assertThat(run("completion", "fish")).isEqualTo(2);
        assertThat(err.toString().strip()).isEqualTo("error: completion: unknown shell 'fish' (bash or zsh)");
        assertThat(out.toString()).isEmpty();
    }
}
