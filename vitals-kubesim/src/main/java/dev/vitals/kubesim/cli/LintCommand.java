package dev.vitals.kubesim.cli;

import dev.vitals.kubesim.model.Durations;
import dev.vitals.kubesim.lint.Lint;
import dev.vitals.kubesim.manifest.ManifestReader;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code vitals lint}: static findings about probe configurations. */
@Command(name = "lint", mixinStandardHelpOptions = true,
        description = {"Find probe configurations that restart healthy pods or that the API server would reject.",
            "Checks the probes of every container in a manifest: values the API server would reject,",
            "liveness and readiness on one endpoint, liveness timeout shorter than readiness, restarts before",
            "readiness can shed traffic, a missing startupProbe with a long initialDelaySeconds, and (with",
            "--startup-seconds) the kill time of a start-up that is slower than the probes allow.",
            "Exit code: 0 no findings, 1 findings, 2 bad input."})
final class LintCommand implements Callable<Integer> {
    @Parameters(paramLabel = "FILE", description = "Kubernetes manifest")
    Path file;

    @Option(names = "--container", paramLabel = "NAME", description = "only this container")
    String container;

    @Option(names = "--startup-seconds", paramLabel = "TIME", description = "how long the application needs to start (e.g. 300 or 5m)")
    String startupSeconds;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        ManifestReader.Manifest m = ManifestReader.read(file);
        List<Lint.Finding> findings = Lint.lint(m, Optional.ofNullable(container),
                Optional.ofNullable(startupSeconds).map(Durations::parse));
        for (Lint.Finding f : findings) {
            out.println(f);
        }
        out.println(findings.isEmpty() ? file + ": no findings" : file + ": " + findings.size() + " finding(s)");
        out.flush();
        return findings.isEmpty() ? VitalsCommand.OK : VitalsCommand.FAILED;
    }
}
