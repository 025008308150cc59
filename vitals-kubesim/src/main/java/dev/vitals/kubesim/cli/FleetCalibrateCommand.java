package dev.vitals.kubesim.cli;

import dev.vitals.kubesim.fleet.Calibration;
import dev.vitals.kubesim.input.InvalidInputException;
import dev.vitals.kubesim.model.Durations;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code vitals fleet calibrate -- CMD}: measure one live replica for the model. */
@Command(name = "calibrate", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Measure one replica of CMD (start time, service time, capacity) and print the fleet model's fields.",
            "CMD gets PORT, PROBE_PORT and REPLICA=0 in its environment and must answer GET PATH on PORT.",
            "Exit code: 0 measured, 2 bad input or a command that never answers."})
final class FleetCalibrateCommand implements Callable<Integer> {
    @Parameters(arity = "1..*", paramLabel = "CMD", description = "after --: the replica's command")
    List<String> command = new ArrayList<>();

    @Option(names = "--path", paramLabel = "PATH", description = "the request to measure (default /)")
    String path = "/";

    @Option(names = "--requests", paramLabel = "N", description = "sequential requests for the service time (default 50)")
    int requests = 50;

    @Option(names = "--max-concurrency", paramLabel = "N", description = "highest concurrency tried for the capacity (default 256)")
    int maxConcurrency = 256;

    @Option(names = "--start-limit", paramLabel = "DURATION", description = "how long to wait for the first answer (default 120s)")
    String startLimit = "120s";

    @Option(names = "--logs", paramLabel = "DIR", description = "where CMD's output goes (default: a new directory <tmp>/vitals-calibrate-…)")
    Path logs;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        Path dir = logs != null ? logs : TempDirs.create("vitals-calibrate-");
        try {
            Files.createDirectories(dir);
            Path log = dir.resolve("replica.log");
            Calibration c;
            try {
                c = new Calibration(command, path, requests, maxConcurrency, Durations.parse(startLimit),
                        ProcessBuilder.Redirect.appendTo(log.toFile()));
            } catch (IllegalArgumentException e) {
                throw e instanceof InvalidInputException ? e : new InvalidInputException(e.getMessage());
            }
            out.println("vitals fleet calibrate: " + String.join(" ", command) + " (output: " + log + ")");
            out.flush();
            Calibration.Result r;
            try {
                r = c.run();
            } catch (IllegalStateException e) {
                TempDirs.keep(dir); // the run ended: its output explains the failure
                throw new InvalidInputException(e.getMessage() + " (output: " + log + ")");
            }
            TempDirs.keep(dir);
            out.print(r.text());
            out.println();
            out.print(r.yaml());
            out.flush();
            return VitalsCommand.OK;
        } finally {
            TempDirs.removeUnlessKept(dir); // bad input, an error before the run, an interrupt
        }
    }
}
