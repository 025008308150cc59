package dev.vitals.kubesim.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.vitals.kubesim.input.InvalidInputException;
import dev.vitals.kubesim.lint.AppConfig;
import dev.vitals.kubesim.lint.LintConfig;
import dev.vitals.kubesim.lint.LintContext;
import dev.vitals.kubesim.lint.LintFormat;
import dev.vitals.kubesim.lint.LintInput;
import dev.vitals.kubesim.lint.LintReport;
import dev.vitals.kubesim.lint.Linter;
import dev.vitals.kubesim.lint.Rule;
import dev.vitals.kubesim.lint.Rules;
import dev.vitals.kubesim.lint.Severity;
import dev.vitals.kubesim.model.Durations;
import dev.vitals.kubesim.model.ProbeType;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code vitals lint}: static findings about probe configurations, for people and for CI. */
@Command(name = "lint", mixinStandardHelpOptions = true, sortOptions = false, usageHelpAutoWidth = true,
        description = {"Find probe configurations that restart healthy pods, never act, or that the API server would reject.",
            "",
            "Reads any number of manifests, directories (recursively: *.yaml, *.yml, *.json) and - for standard input"
                    + " (helm template RELEASE CHART | vitals lint -), in one run. Inputs without workloads are reported; a named"
                    + " file with no Kubernetes object is bad input (--allow-empty accepts it); Kustomize files and patches"
                    + " are skipped and listed. Settings: .vitals.yaml above the first input, or --config. With --app-config it also reads the application's Spring Boot configuration and follows"
                    + " each probe to the health group it reaches. Rules, hazards and fixes: docs/lint.md; vitals lint"
                    + " --list-rules lists them.",
            "",
            "Exit code: 0 no finding at or above --fail-on, 1 such findings, 2 bad input (an unreadable or invalid file,"
                    + " a Helm template, an unknown rule, a bad .vitals.yaml)."})
final class LintCommand implements Callable<Integer> {
    // Path, not String: bash completion then offers file names (picocli completes by type; issue 40)
    @Parameters(paramLabel = "PATH", arity = "0..*", description = "manifest files, directories, or - for standard input")
    List<Path> paths = new ArrayList<>();

    /** kubectl's flag for the same inputs, so {@code kubectl vitals lint -f deploy.yaml} reads like kubectl. */
    @Option(names = {"-f", "--filename"}, paramLabel = "PATH",
            description = "a manifest file or directory, or - (kubectl's flag; the same as PATH, repeatable)")
    List<Path> filenames = new ArrayList<>();

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "text", completionCandidates = Formats.class,
            description = "text (default), json, sarif (code scanning) or junit")
    String format;

    @Option(names = {"-o", "--output"}, paramLabel = "FILE", description = "write the report to FILE instead of standard output")
    Path output;

    @Option(names = "--fail-on", paramLabel = "SEVERITY", defaultValue = "error", completionCandidates = Severities.class,
            description = "lowest severity that makes the exit code 1: error (default), warning, info, or never")
    String failOn;

    @Option(names = "--disable", paramLabel = "RULES", description = "rules not to run, by id or name, comma-separated (e.g. L4,L5)")
    List<String> disable = new ArrayList<>();

    /** Null when not given; split by {@link Rules#select}, so an empty item is seen and refused. */
    @Option(names = "--enable", paramLabel = "RULES", description = "run only these rules (ids or names, comma-separated)")
    List<String> enable;

    @Option(names = "--container", paramLabel = "NAME", description = "only containers of this name (or KIND/NAME:CONTAINER)")
    String container;

    @Option(names = {"--startup-seconds", "--boot-time"}, paramLabel = "TIME",
            description = "how long the application needs to start (e.g. 300 or 5m; default: the boot of a --from-run"
                    + " report, measured under its CPU limit): rule L2 predicts the kill time")
    String startupSeconds;

    @Option(names = "--app-config", paramLabel = "FILE",
            description = "the application's application.yaml/.yml/.properties (repeatable, lowest precedence first)")
    List<Path> appConfig = new ArrayList<>();

    @Option(names = "--profile", paramLabel = "NAME", split = ",",
            description = "active Spring profiles for --app-config (default: spring.profiles.active)")
    List<String> profiles = new ArrayList<>();

    @Option(names = "--probe-latency", paramLabel = "PROBE=TIME[/TIME...]",
            description = "measured probe latency, e.g. liveness=1.2s or readiness=80ms/1.4s/300ms (repeatable): rule L15")
    List<String> probeLatency = new ArrayList<>();

    @Option(names = "--kubernetes-version", paramLabel = "1.N",
            description = "the Kubernetes release the manifests are for, 1.29-1.37 (default: the newest the spec covers, 1.37):"
                    + " fields it drops are reported (rule L18); on 1.35-1.37 a note where a manifest relies on startup gating"
                    + " that kubernetes#141155 loses after a restart (rule L27)")
    String kubernetesVersion;

    @Option(names = "--from-run", paramLabel = "FILE", description = "probe latencies (rule L15) and the boot time (rule L2)"
            + " from a vitals simulate --json report")
    Path fromRun;

    @Option(names = "--config", paramLabel = "FILE", description = "lint settings (rules off, severities, kubernetesVersion);"
            + " default: the " + LintConfig.FILE_NAME + " nearest above the first input")
    Path config;

    @Option(names = "--allow-empty", description = "accept a named input that holds no Kubernetes object (default: bad input,"
            + " exit 2)")
    boolean allowEmpty;

    @Option(names = "--list-rules", description = "list the rules and exit")
    boolean listRules;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    /** Standard input, replaceable for tests. */
    InputStream stdin = System.in;

    /** The command's standard output while it runs (picocli's, or the caller's on the fast path). */
    private PrintWriter out;

    @Override
    public Integer call() throws IOException {
        return run(spec.commandLine().getOut(), spec.commandLine().getErr());
    }

    /**
     * {@code vitals lint PATH...} with nothing but paths, without building picocli's model (issue 37:
     * picocli's reflection was the larger part of a lint's start-up). The caller has checked that
     * every argument is a path picocli would take as one ({@link VitalsCommand}); the options keep
     * their defaults, and the run is the same as through picocli.
     *
     * @param paths the PATH arguments
     * @param out standard output
     * @param err standard error
     * @return the exit code
     * @throws IOException if writing the report fails
     */
    static int runPaths(List<String> paths, PrintWriter out, PrintWriter err) throws IOException {
        LintCommand c = new LintCommand();
        paths.forEach(p -> c.paths.add(Path.of(p))); // as picocli converts a PATH
        c.format = "text";
        c.failOn = "error";
        return c.run(out, err);
    }

    /**
     * What the options ask for, checked before any input is read.
     *
     * @param format the report's format
     * @param threshold the lowest severity that fails, empty for never
     * @param rules the rules that run
     * @param startup the application's start-up time, given or measured by a run
     * @param app the application's configuration to join
     * @param latencies the probe latencies a run measured, by probe
     */
    private record Settings(LintFormat format, Optional<Severity> threshold, List<Rule> rules, Optional<Duration> startup,
            Optional<AppConfig> app, Map<ProbeType, List<Duration>> latencies) {
    }

    private int run(PrintWriter out, PrintWriter err) throws IOException {
        this.out = out;
        if (listRules) {
            return listRules(out);
        }
        Settings opts = settings();
        checkFilenames();
        List<String> all = new ArrayList<>();
        paths.forEach(p -> all.add(p.toString()));
        filenames.forEach(p -> all.add(p.toString()));
        LintConfig settings = LintConfig.discover(all, Optional.ofNullable(config));
        List<LintInput> inputs = LintInput.collect(all, stdin, allowEmpty); // lists (and stats) the files, opens none
        checkOutput(inputs);
        Writer target = openOutput();
        dev.vitals.kubesim.model.KubernetesVersion version = kubernetesVersion == null
                ? settings.kubernetesVersion().orElse(dev.vitals.kubesim.model.KubernetesVersion.NEWEST)
                : dev.vitals.kubesim.model.KubernetesVersion.parse(kubernetesVersion);
        LintReport report = settings.apply(new Linter(opts.rules(), new LintContext(opts.startup(), opts.app(), opts.latencies(),
                version), Optional.ofNullable(container)).allowEmpty(allowEmpty).lint(inputs));
        refuseNothingLinted(report, target);
        write(opts, report, target);
        for (LintReport.FileSummary s : report.errors()) {
            err.println("error: " + s.error().get());
        }
        if (output != null && opts.format() != LintFormat.TEXT) {
            out.println("wrote " + output + ": " + report.findings().size() + " finding(s)");
        }
        out.flush();
        err.flush();
        return report.exitCode(opts.threshold());
    }

    private static int listRules(PrintWriter out) {
        for (Rule r : Rules.all()) {
            out.printf("%-4s %-32s %-7s %s%n     %s%n", r.id(), r.name(), r.severity().label(),
                    (r.optIn() ? "(off by default: --enable " + r.id() + ") " : "") + r.summary() + needs(r), r.docUrl());
        }
        out.flush();
        return VitalsCommand.OK;
    }

    /** @return the options checked, the app config loaded and --from-run's figures read */
    private Settings settings() throws IOException {
        LintFormat fmt = LintFormat.parse(format);
        Optional<Severity> threshold = failOn.equalsIgnoreCase("never") ? Optional.empty() : Optional.of(parseSeverity(failOn));
        List<Rule> rules = Rules.select(enable == null ? List.of() : enable, disable);
        Optional<Duration> startup = Optional.ofNullable(startupSeconds).map(s -> positive("--startup-seconds", s));
        if (profiles.stream().anyMatch(String::isBlank)) {
            throw new InvalidInputException("--profile: an empty profile name; give names separated by commas, e.g."
                    + " --profile postgres,k8s");
        }
        if (!profiles.isEmpty() && appConfig.isEmpty()) {
            throw new InvalidInputException("--profile needs --app-config");
        }
        Optional<AppConfig> app = appConfig.isEmpty() ? Optional.empty()
                : Optional.of(AppConfig.load(appConfig, new LinkedHashSet<>(profiles)));
        Map<ProbeType, List<Duration>> latencies = latencies();
        if (startup.isEmpty() && fromRun != null) {
            // the boot that run measured (under the pod's CPU limit when it applied one): rule L2
            JsonNode boot = new ObjectMapper().readTree(fromRun.toFile()).path("boot").path("seconds");
            if (boot.isNumber() && boot.asDouble() > 0) {
                startup = Optional.of(Duration.ofMillis(Math.round(boot.asDouble() * 1000)));
            }
        }
        return new Settings(fmt, threshold, rules, startup, app, latencies);
    }

    /** -f is --filename, as in kubectl: "-f json" naming no file is a format given the wrong way. */
    private void checkFilenames() {
        for (Path p : filenames) {
            String f = p.toString();
            if (List.of("text", "json", "sarif", "junit").contains(f) && !Files.exists(p)) {
                throw new InvalidInputException("-f " + f + ": no such file; -f is --filename (as in kubectl), the"
                        + " report format is --format " + f);
            }
        }
    }

    /**
     * A typo in --container, or a Kustomize overlay (kustomization + patches) given as is, must not
     * lint nothing and pass.
     *
     * @throws InvalidInputException then, after closing --output
     */
    private void refuseNothingLinted(LintReport report, Writer target) throws IOException {
        if (container != null && report.workloads() > 0 && report.containers() == 0) {
            if (output != null) {
                target.close();
            }
            throw new InvalidInputException("--container " + container + ": no container of that name (or KIND/NAME:CONTAINER)"
                    + " in " + report.workloads() + " workload(s)");
        }
        if (!allowEmpty && nothingLintedButSkipped(report)) {
            if (output != null) {
                target.close();
            }
            List<LintReport.Skipped> sk = report.inputs().skipped();
            String dir = paths.size() == 1 && Files.isDirectory(paths.get(0)) ? paths.get(0).toString() : "DIR";
            throw new InvalidInputException("nothing to lint: every input was skipped (" + sk.size() + ": " + sk.get(0).name()
                    + ", " + sk.get(0).reason() + (sk.size() > 1 ? ", and " + (sk.size() - 1) + " more" : "")
                    + "); render it first: kustomize build " + dir + " | vitals lint - (--allow-empty accepts this)");
        }
    }

    /** Writes the report in its format to stdout or --output (closed after). */
    private void write(Settings opts, LintReport report, Writer target) {
        try {
            try {
                opts.format().write(report, opts.threshold(), VitalsCommand.VERSION, target);
            } finally {
                if (output != null) {
                    target.close();
                }
            }
        } catch (java.io.UncheckedIOException e) {
            throw SimulateChecks.writeFailure(output, e.getCause());
        } catch (IOException e) {
            throw SimulateChecks.writeFailure(output, e);
        }
    }

    /** @return what a rule needs beyond the manifest, from its metadata: " (needs --app-config and a Service selecting the pod)" */
    static String needs(Rule r) {
        List<String> n = new ArrayList<>();
        if (r.needsAppConfig()) {
            n.add("--app-config");
        }
        if (r.needsService()) {
            n.add("a Service selecting the pod");
        }
        return n.isEmpty() ? "" : " (needs " + String.join(" and ", n) + ")";
    }

    /** @return true when no object at all was linted and something was skipped (a Kustomize overlay given as is) */
    static boolean nothingLintedButSkipped(LintReport report) {
        return !report.inputs().skipped().isEmpty() && report.errors().isEmpty() && report.workloads() == 0
                && report.files().stream().allMatch(f -> f.otherKinds().keySet().stream()
                        .allMatch(k -> k.equals("no kind") || k.startsWith("not an object")));
    }

    private static Severity parseSeverity(String s) {
        try {
            return Severity.parse(s);
        } catch (IllegalArgumentException e) {
            throw new InvalidInputException("--fail-on must be error, warning, info or never, was '" + s + "'");
        }
    }

    private static Duration positive(String option, String text) {
        Duration d;
        try {
            d = Durations.parse(text);
        } catch (IllegalArgumentException e) {
            throw new InvalidInputException(option + ": " + e.getMessage());
        }
        if (d.isZero() || d.isNegative()) {
            throw new InvalidInputException(option + " must be more than 0, was " + text);
        }
        if (d.compareTo(Duration.ofDays(1)) > 0) {
            throw new InvalidInputException(option + " must be at most 1 day, was " + text);
        }
        return d;
    }

    private Map<ProbeType, List<Duration>> latencies() throws IOException {
        Map<ProbeType, List<Duration>> out = new EnumMap<>(ProbeType.class);
        for (String spec : probeLatency) {
            int eq = spec.indexOf('=');
            if (eq <= 0) {
                throw new InvalidInputException("--probe-latency must be PROBE=TIME (e.g. liveness=1.2s), was '" + spec + "'");
            }
            ProbeType t;
            try {
                t = ProbeType.fromLabel(spec.substring(0, eq).strip());
            } catch (IllegalArgumentException e) {
                throw new InvalidInputException("--probe-latency: " + e.getMessage());
            }
            for (String v : spec.substring(eq + 1).split("/")) {
                Duration d;
                try {
                    d = Durations.parse(v.strip());
                } catch (IllegalArgumentException e) {
                    throw new InvalidInputException("--probe-latency " + spec + ": " + e.getMessage());
                }
                if (d.isNegative() || d.compareTo(Duration.ofHours(1)) > 0) {
                    throw new InvalidInputException("--probe-latency " + spec + ": latency must be 0..1h, was " + v);
                }
                out.computeIfAbsent(t, k -> new ArrayList<>()).add(d);
            }
        }
        if (fromRun != null) {
            JsonNode root;
            try {
                root = new ObjectMapper().readTree(fromRun.toFile());
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                throw new InvalidInputException("--from-run " + fromRun + ": not JSON (line "
                        + (e.getLocation() == null ? 0 : e.getLocation().getLineNr()) + "); expected a vitals simulate --json report");
            } catch (IOException e) {
                throw new InvalidInputException("--from-run " + fromRun + ": cannot read ("
                        + (e instanceof java.nio.file.NoSuchFileException || e instanceof java.io.FileNotFoundException
                                ? "no such file" : "I/O error") + ")");
            }
            int n = 0;
            for (JsonNode e : root.path("events")) {
                if (e.path("type").asText().equals("probe") && e.has("probe") && e.path("latencyMs").isNumber()) {
                    ProbeType t = ProbeType.fromLabel(e.path("probe").asText());
                    out.computeIfAbsent(t, k -> new ArrayList<>()).add(Duration.ofNanos((long) (e.path("latencyMs").asDouble() * 1e6)));
                    n++;
                }
            }
            if (n == 0) {
                throw new InvalidInputException("--from-run " + fromRun + ": no probe events (expected a vitals simulate --json report)");
            }
        }
        return out;
    }

    /**
     * {@code -o}: refused before any input is read or the file opened when it is a directory, sits in a
     * missing directory, is one of the inputs (also a file found in an input directory: it would be
     * emptied before it is read), or is not writable.
     */
    private void checkOutput(List<LintInput> inputs) {
        if (output == null) {
            return;
        }
        // a missing directory: refused by the shared check, as --json and --html are (one wording)
        List<Path> in = new ArrayList<>();
        inputs.stream().map(LintInput::name).filter(i -> !i.equals("-")).map(Path::of).forEach(in::add);
        in.addAll(appConfig);
        in.add(fromRun);
        in.add(config);
        SimulateChecks.checkOutputs(in, Map.of("--output", output));
    }

    private Writer openOutput() {
        if (output == null) {
            return new NonClosing(out);
        }
        try {
            return new OutputStreamWriter(SimulateChecks.open(output), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw SimulateChecks.writeFailure(output, e);
        }
    }

    /** The command's standard output, left open after the report. */
    private static final class NonClosing extends Writer {
        private final PrintWriter w;

        NonClosing(PrintWriter w) {
            this.w = w;
        }

        @Override
        public void write(char[] cbuf, int off, int len) {
            w.write(cbuf, off, len);
        }

        @Override
        public void flush() {
            w.flush();
        }

        @Override
        public void close() {
            w.flush();
        }
    }

    /** {@code --format}'s values, for shell completion. */
    static final class Formats extends ArrayList<String> {
        private static final long serialVersionUID = 1L;

        Formats() {
            super(List.of("text", "json", "sarif", "junit"));
        }
    }

    /** {@code --fail-on}'s values, for shell completion. */
    static final class Severities extends ArrayList<String> {
        private static final long serialVersionUID = 1L;

        Severities() {
            super(List.of("error", "warning", "info", "never"));
        }
    }
}
