package dev.vitals.bench.suite;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The side-by-side benchmark suite (issue 9): Vitals against Spring Boot Actuator, the demo's
 * naive wiring and a fixed-200 Netty handler, in one run on this machine, as ratios. Run it with
 * {@code bench/run} (which builds the jars first); see docs/benchmarks.md, section "Benchmark suite".
 *
 * <p>Exit codes: 0 when every scenario ran (goals missed are reported in the table, not as a
 * failure), 1 when a scenario could not run, 2 for a bad option.
 */
@Command(name = "bench/run", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Runs the side-by-side benchmark scenarios on 127.0.0.1, prints a table and writes JSON.",
                "Scenarios: saturation, slow-checks, hung-check, throughput, footprint."})
public final class BenchSuite implements Callable<Integer> {
    @Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--quick", description = "Shorter runs (about 6 minutes instead of 15): saturation only at concurrency 100 for 20 s, fewer samples.")
    boolean quick;

    @Option(names = "--smoke", description = "Every scenario once with the smallest load (seconds each, plus the targets' start-ups): checks only that each scenario runs; its figures mean nothing. CI runs it (.ci/run).")
    boolean smoke;

    @Option(names = "--only", split = ",", paramLabel = "SCENARIO",
            description = "Run only these scenarios (comma-separated): saturation, slow-checks, hung-check, throughput, footprint.")
    List<String> only = new ArrayList<>();

    @Option(names = "--load", paramLabel = "auto|wrk|java|both", defaultValue = "auto",
            description = "Load generator of the throughput scenario: wrk, the Java keep-alive generator, or both (auto: both when wrk is installed, else java). Default: ${DEFAULT-VALUE}.")
    String load;

    @Option(names = "--footprint-starts", paramLabel = "N",
            description = "Starts of each side in the footprint scenario, alternating (1-20; default 3, 1 with --smoke): medians of more starts read start-up and RSS differences that one start's noise hides.")
    Integer footprintStarts;

    @Option(names = "--out", paramLabel = "DIR", defaultValue = "bench/results",
            description = "Where the JSON, the table and the targets' logs go. Default: ${DEFAULT-VALUE}.")
    Path out;

    @Option(names = "--root", paramLabel = "DIR", defaultValue = ".",
            description = "The repository root (where the built jars are). Default: the current directory.")
    Path root;

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** @return the command, a bad option answered with one line on its error stream and exit code 2 */
    static CommandLine commandLine() {
        return new CommandLine(new BenchSuite()).setParameterExceptionHandler((e, args) -> {
            e.getCommandLine().getErr().println("bench/run: " + e.getMessage() + " (try --help)");
            return 2;
        });
    }

    @Override
    public Integer call() throws Exception {
        List<String> scenarios = only.isEmpty() ? Scenarios.NAMES : only;
        checkOptions(scenarios);
        String tools = tools();
        String stamp = LocalDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
        Path logs = out.resolve("logs-" + stamp);
        Files.createDirectories(logs);
        Map<String, Object> meta = new LinkedHashMap<>();
        meta.put("date", LocalDateTime.now(ZoneOffset.UTC).withNano(0) + "Z");
        meta.put("mode", smoke ? "smoke" : quick ? "quick" : "full");
        meta.put("scenarios", scenarios);
        meta.put("jdk", System.getProperty("java.version"));
        meta.put("cores", Runtime.getRuntime().availableProcessors());
        meta.put("targetJvmOptions", ChildJvm.JVM_OPTIONS);
        meta.put("load", tools);
        meta.put("loadAverageStart", loadAverage());
        System.out.printf(Locale.ROOT, "Vitals benchmark suite (%s): %s; JDK %s, %d cores, load average %s; logs in %s%n",
                meta.get("mode"), String.join(", ", scenarios), meta.get("jdk"), meta.get("cores"), meta.get("loadAverageStart"), logs);
        Scenarios runner = new Scenarios(new Target.Paths(root, logs),
                smoke ? Scenarios.Scale.SMOKE : quick ? Scenarios.Scale.QUICK : Scenarios.Scale.FULL, tools, System.out,
                footprintStarts != null ? footprintStarts : smoke ? 1 : 3);
        List<Row> rows = new ArrayList<>();
        Map<String, Object> seconds = new LinkedHashMap<>();
        Map<String, Object> loadAverages = new LinkedHashMap<>();
        boolean failed = false;
        for (String s : scenarios) {
            long t0 = System.nanoTime();
            loadAverages.put(s, loadAverage());
            Optional<Row> failure = run(runner, s, logs, rows);
            failure.ifPresent(rows::add);
            failed |= failure.isPresent();
            seconds.put(s, Math.round(Duration.ofNanos(System.nanoTime() - t0).toMillis() / 1000.0));
        }
        meta.put("loadAverageAtScenarioStart", loadAverages);
        meta.put("loadAverageEnd", loadAverage());
        meta.put("scenarioSeconds", seconds);
        write(meta, rows, stamp);
        if (smoke) {
            System.out.println(failed ? "smoke: a scenario failed (see above)" : "smoke: every scenario ran (" + String.join(", ", scenarios) + ")");
        }
        return failed ? 1 : 0;
    }

    /** @throws CommandLine.ParameterException on an unknown scenario, a bad --load, or --quick with --smoke */
    private void checkOptions(List<String> scenarios) {
        for (String s : scenarios) {
            if (!Scenarios.NAMES.contains(s)) {
                throw new CommandLine.ParameterException(spec.commandLine(),
                        "unknown scenario '" + s + "'; known: " + String.join(", ", Scenarios.NAMES));
            }
        }
        if (!List.of("auto", "wrk", "java", "both").contains(load)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--load must be auto, wrk, java or both, was '" + load + "'");
        }
        if (quick && smoke) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--quick and --smoke exclude each other");
        }
        if (footprintStarts != null && (footprintStarts < 1 || footprintStarts > 20)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--footprint-starts must be 1-20, was " + footprintStarts);
        }
    }

    /** @return the load tools to use: --load, with auto as both where wrk is installed, else java (said) */
    private String tools() {
        boolean wrk = Wrk.installed();
        if (load.equals("auto")) {
            if (!wrk) {
                System.out.println("wrk is not installed (apt-get install -y wrk): the throughput scenario uses the Java load generator only.");
            }
            return wrk ? "both" : "java";
        }
        if (!wrk && !load.equals("java")) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--load " + load + " needs wrk: apt-get install -y wrk");
        }
        return load;
    }

    /**
     * Runs one scenario, its rows added to {@code rows}.
     *
     * @return the failed scenario's row, if it failed: one line on the terminal, the stack trace in the run's log directory
     */
    private static Optional<Row> run(Scenarios runner, String s, Path logs, List<Row> rows) throws IOException {
        try {
            rows.addAll(runner.run(s));
            return Optional.empty();
        } catch (Exception e) {
            Path trace = logs.resolve(s + "-failure.txt");
            try (java.io.PrintWriter w = new java.io.PrintWriter(Files.newBufferedWriter(trace))) {
                e.printStackTrace(w);
            }
            System.out.println("scenario " + s + " failed: " + String.valueOf(e.getMessage()).lines().findFirst().orElse(e.toString())
                    + " (stack trace in " + trace + ")");
            return Optional.of(new Row(s, "(scenario failed)", "", OptionalDouble.empty(), "-", OptionalDouble.empty(), "",
                    Optional.empty(), String.valueOf(e.getMessage()).lines().findFirst().orElse(e.toString())));
        }
    }

    /** Prints the table and writes it: bench-STAMP.json, latest.json, latest.txt and latest.md. */
    private void write(Map<String, Object> meta, List<Row> rows, String stamp) throws IOException {
        String table = ResultTable.text(rows);
        String header = String.format(Locale.ROOT, "%s, %s, JDK %s, %d cores, load average %s at start, %s at end%n",
                meta.get("date"), meta.get("mode"), meta.get("jdk"), meta.get("cores"), meta.get("loadAverageStart"), meta.get("loadAverageEnd"));
        System.out.println();
        System.out.print(header);
        System.out.print(table);
        Path json = out.resolve("bench-" + stamp + ".json");
        Files.writeString(json, ResultTable.json(meta, rows));
        Files.writeString(out.resolve("latest.json"), ResultTable.json(meta, rows));
        Files.writeString(out.resolve("latest.txt"), header + table);
        Files.writeString(out.resolve("latest.md"), header + "\n" + ResultTable.markdown(rows));
        System.out.println("written: " + json + " (and latest.json, latest.txt, latest.md)");
    }

    /** @return the 1-minute load average, as /proc/loadavg says (other builds skew every figure) */
    static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        } catch (IOException | RuntimeException e) {
            return "n/a";
        }
    }
}
