package dev.vitals.kubesim.cli;

import dev.vitals.kubesim.input.InvalidInputException;
import java.util.concurrent.Callable;
import picocli.AutoComplete;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine;

/**
 * {@code vitals completion bash|zsh}: prints the shell completion script for every command and option
 * (picocli's {@link AutoComplete}). The script is bash's; zsh runs it through {@code bashcompinit}, which
 * the script loads itself. Usage: {@code source <(vitals completion bash)}.
 */
@Command(name = "completion", mixinStandardHelpOptions = true,
        description = {"Print the shell completion script for vitals (and kubectl-vitals).",
            "",
            "bash: source <(vitals completion bash)   (or save it under /etc/bash_completion.d/)",
            "zsh:  source <(vitals completion zsh)    (in ~/.zshrc)"})
final class CompletionCommand implements Callable<Integer> {
    @Parameters(paramLabel = "SHELL", description = "bash or zsh")
    String shell;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        if (!shell.equals("bash") && !shell.equals("zsh")) {
            throw new InvalidInputException("completion: unknown shell '" + shell + "' (bash or zsh)");
        }
        String script = AutoComplete.bash("vitals", spec.root().commandLine());
        // kubectl-vitals is the same program under kubectl's plugin name.
        script += "\ncomplete -F _complete_vitals -o default kubectl-vitals\n";
        spec.commandLine().getOut().print(script);
        spec.commandLine().getOut().flush();
        return VitalsCommand.OK;
    }
}
