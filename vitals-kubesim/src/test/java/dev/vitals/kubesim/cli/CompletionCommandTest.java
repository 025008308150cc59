package dev.vitals.kubesim.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

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
