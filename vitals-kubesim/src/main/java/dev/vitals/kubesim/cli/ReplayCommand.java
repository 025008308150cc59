package dev.vitals.kubesim.cli;

import dev.vitals.kubesim.input.InvalidInputException;
import dev.vitals.kubesim.replay.DemoJar;
import dev.vitals.kubesim.replay.ProbeTiming;
import dev.vitals.kubesim.replay.Replay;
import dev.vitals.kubesim.replay.ReplayStep;
import dev.vitals.kubesim.replay.ReplayCase;
import dev.vitals.kubesim.replay.ReplayCatalog;
import dev.vitals.kubesim.replay.ReplayReport;
import dev.vitals.kubesim.replay.RunRecord;
import dev.vitals.kubesim.replay.Sizing;
import dev.vitals.kubesim.replay.Wiring;
import dev.vitals.kubesim.model.Resources;
import dev.vitals.kubesim.runtime.CodeSources;
import dev.vitals.kubesim.runtime.ResourceLimits;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code vitals replay}: each probe failure reproduced on the demo service, and its absence with Vitals. */
@Command(name = "replay", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Replay each probe failure on the demo service, wired naively and with Vitals."
            + " Runs the demo twice per scenario, --wiring naive and --wiring vitals, under the same kubelet probes"
            + " and the same faults, and compares restarts, time not ready, probe failures and liveness latency"
            + " side by side. Needs only the built jars (vitals.jar and vitals-demo.jar).",
            "",
            "Scenarios: incident, db-outage, slow-start, stall, grpc, agent, cpu-limit, all (default). Before the runs the demo's boot is"
            + " measured (--boot-rounds) and every delay, budget and run length sized from it, so that each"
            + " expectation has at least a 2x margin; a scenario that cannot get its margins here is skipped, with the reason."
            + " cpu-limit runs each demo in a cgroup with a 500m CPU limit, sized from the boot measured under that limit;"
            + " where no cgroup can be created it is skipped (limits not applied).",
            "",
            "Exit code: 0 when every judged scenario holds (and at least one was judged), 1 when one does not"
            + " or nothing could be judged, 2 on bad input."})
final class ReplayCommand implements Callable<Integer> {
    @Parameters(paramLabel = "SCENARIO", arity = "0..*",
            description = "incident | db-outage | slow-start | stall | grpc | agent | cpu-limit | all (default all); a single row such as incident-burst also works")
    List<String> scenarios = new ArrayList<>();

    @Option(names = "--demo-jar", paramLabel = "FILE",
            description = "the demo jar (default: vitals-demo/target/vitals-demo.jar next to this jar's module, or under the working directory)")
    Path demoJar;

    @Option(names = "--json", paramLabel = "FILE", description = "write {\"runs\":[{\"scenario\",\"wiring\",\"restarts\",\"notReadySeconds\",\"probeFailures\",…}]}")
    Path json;

    @Option(names = "--html", paramLabel = "PATH", description = "write the index (the side-by-side table) and one page per run beside it (SVG timeline): PATH ending in .html is the index, else a directory (made if missing) for index.html")
    Path html;

    @Option(names = "--logs", paramLabel = "DIR", description = "where the demo's output goes, one file per run (default: a new directory <tmp>/vitals-replay-…)")
    Path logs;

    @Option(names = "--sequential", description = "run naive and vitals one after the other instead of side by side (slower; for a 1-core machine)")
    boolean sequential;

    @Option(names = "--boot-seconds", paramLabel = "S",
            description = "size the scenarios for this boot time instead of measuring it (0 < S <= 3600; default: measure)")
    Double bootSeconds;

    @Option(names = "--boot-rounds", paramLabel = "N", defaultValue = "2",
            description = "boots of each wiring measured before the runs to size the scenarios (1-10, default ${DEFAULT-VALUE})")
    int bootRounds;

    @Option(names = {"-q", "--quiet"}, description = "no progress line")
    boolean quiet;

    @Option(names = "--replicas", paramLabel = "N",
            description = "replay across a fleet of N replicas on the fleet model: incident (with incident-pinned and incident-pinned-sustained), incident-stress, shared-dependency (C21), rebalance (C22), rollout; docs/fleet.md")
    Integer replicas;

    @Option(names = "--runs", paramLabel = "N",
            description = "fleet replays: runs per scenario and wiring, seeds 1..N; median and range reported (1-1000, default 5)")
    Integer runs;

    @Option(names = "--live",
            description = "fleet replay rollout on the live engine: real replicas (the synthetic replica, as the scenario declares them) behind the real Service, naive then vitals, once each (--replicas 1-64, default 3); docs/fleet.md")
    boolean live;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    /**
     * How the cases are sized: from the demo's boot measured here (or --boot-seconds), and for
     * cpu-limit from its boot under the limit.
     *
     * @param sizing every case's sizing but cpu-limit's
     * @param underLimit cpu-limit's sizing
     * @param limitsNotApplied why no cgroup limit applies here, when cpu-limit must be skipped
     * @param cpuLimit whether a selected case runs under a CPU limit
     */
    private record Sizings(Sizing sizing, Sizing underLimit, Optional<String> limitsNotApplied, boolean cpuLimit) {
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        // before any run: the report must not be lost at the end, nor overwrite the demo or the pages
        SimulateChecks.checkOutputs(java.util.Arrays.asList(demoJar), json == null ? Map.of() : Map.of("--json", json),
                HtmlOutput.of(html));
        if (live) {
            return FleetReplayCommand.runLive(scenarios, replicas, runs, json, html, out, err, quiet);
        }
        if (replicas != null || FleetReplayCommand.fleetOnly(scenarios)) {
            return FleetReplayCommand.run(scenarios, replicas, runs, json, html, out);
        }
        checkOptions();
        Path jar = demoJar();
        Path logDir = directories();
        Replay.Builder b = Replay.builder(jar).parallel(!sequential).logDir(logDir);
        Optional<Sizings> sizings = sizings(b, out, err);
        if (sizings.isEmpty()) {
            return VitalsCommand.FAILED; // the demo did not boot; the reason is told
        }
        Sizings s = sizings.get();
        List<ReplayCase> cases = ReplayCatalog.select(scenarios, s.sizing(), s.underLimit(), s.limitsNotApplied());
        announce(cases, jar, s, out);
        List<RunRecord> records;
        long started = System.nanoTime();
        boolean tty = System.console() != null;
        StatusLine status = new StatusLine(err, tty);
        if (!quiet) {
            b.progress(status::show, tty ? Duration.ofMillis(500) : Duration.ofSeconds(10));
        }
        try {
            records = b.build().run(cases);
        } catch (Replay.Interrupted e) {
            Thread.interrupted();
            return interrupted(e.finished(), (System.nanoTime() - started) / 1e9, out, err);
        } finally {
            if (!quiet) {
                status.clear();
            }
        }
        return report(records, cases.stream().filter(c -> c.skip().isPresent()).toList(), logDir, out);
    }

    /** The options of a replay on the demo, checked before any boot (names first: a typo costs no boot). */
    private void checkOptions() {
        if (runs != null) {
            throw new InvalidInputException("--runs is for the fleet replays (with --replicas, or incident-pinned, incident-pinned-sustained, incident-stress, shared-dependency, rebalance, rollout)");
        }
        try {
            ReplayCatalog.select(scenarios);
        } catch (IllegalArgumentException e) {
            throw new InvalidInputException(e.getMessage());
        }
        if (bootSeconds != null && !(bootSeconds > 0 && bootSeconds <= 3600)) {
            throw new InvalidInputException("--boot-seconds must be > 0 and at most 3600, was " + bootSeconds);
        }
        if (bootRounds < 1 || bootRounds > 10) {
            throw new InvalidInputException("--boot-rounds must be 1-10, was " + bootRounds);
        }
    }

    /**
     * Creates --logs (--html is checked with the other outputs, before anything runs).
     *
     * @return where the demo's output goes: --logs, else a fresh directory per run, so that concurrent
     *         replays never overwrite each other's logs (removed at exit unless the runs end and the
     *         output names it: TempDirs, issue 40)
     */
    private Path directories() throws IOException {
        if (logs == null) {
            return TempDirs.create("vitals-replay-");
        }
        if (Files.exists(logs) && !Files.isDirectory(logs)) {
            throw new InvalidInputException("--logs " + logs + ": not a directory");
        }
        try {
            Files.createDirectories(logs);
        } catch (java.io.IOException | SecurityException e) {
            throw new InvalidInputException("--logs " + logs + ": cannot create the directory");
        }
        return logs;
    }

    /**
     * Measures the demo's boot (unless --boot-seconds) and, when cpu-limit runs and a limit applies
     * here, its boot under that limit.
     *
     * @return the sizings, or empty when the demo could not boot (said on {@code err})
     */
    private Optional<Sizings> sizings(Replay.Builder b, PrintWriter out, PrintWriter err) throws InterruptedException {
        Sizing sizing;
        if (bootSeconds != null) {
            sizing = Sizing.given(bootSeconds);
        } else {
            out.printf(Locale.ROOT, "vitals replay: measuring the demo's boot on this machine (%d round(s), both wirings%s)…%n",
                    bootRounds, sequential ? ", one after the other" : " side by side");
            out.flush();
            Optional<Sizing> measured = measureBoot(b, Resources.NONE, err);
            if (measured.isEmpty()) {
                return Optional.empty();
            }
            sizing = measured.get();
        }
        Sizing underLimit = ReplayCatalog.assumedUnderLimit(sizing);
        boolean cpuLimit = ReplayCatalog.select(scenarios).stream().anyMatch(c -> !c.resources().isEmpty());
        if (!cpuLimit) {
            return Optional.of(new Sizings(sizing, underLimit, Optional.empty(), false));
        }
        ResourceLimits limits = ResourceLimits.of(ReplayCatalog.CPU_LIMIT);
        if (!limits.applied()) {
            out.println("vitals replay: " + limits.status() + " (cpu-limit is skipped)");
            return Optional.of(new Sizings(sizing, underLimit, Optional.of(limits.status()), true));
        }
        if (bootSeconds == null) {
            out.printf(Locale.ROOT, "vitals replay: measuring the demo's boot under %s (%d round(s))…%n",
                    ReplayCatalog.CPU_LIMIT.describe(), bootRounds);
            out.flush();
            Optional<Sizing> measured = measureBoot(b, ReplayCatalog.CPU_LIMIT, err);
            if (measured.isEmpty()) {
                return Optional.empty();
            }
            underLimit = measured.get();
        }
        return Optional.of(new Sizings(sizing, underLimit, Optional.empty(), true));
    }

    /** @param limit the cgroup limits to boot under, or {@link Resources#NONE} */
    private Optional<Sizing> measureBoot(Replay.Builder b, Resources limit, PrintWriter err) throws InterruptedException {
        try {
            return Optional.of(b.build().measureBoot(bootRounds, limit));
        } catch (IllegalStateException e) {
            err.println("error: cannot measure the demo's boot" + (limit.isEmpty() ? "" : " under " + limit.describe()) + ": "
                    + e.getMessage());
            err.flush();
            return Optional.empty();
        }
    }

    /** What will run: the cases, how long, the sizing, each case's probes and faults, and every margin. */
    private void announce(List<ReplayCase> cases, Path jar, Sizings s, PrintWriter out) {
        long judged = cases.stream().filter(c -> c.skip().isEmpty()).count();
        long seconds = 0;
        for (ReplayCase c : cases) {
            if (c.skip().isEmpty()) {
                seconds += sequential ? 2 * c.duration().toSeconds() : c.duration().toSeconds();
            }
        }
        out.printf(Locale.ROOT, "vitals replay: %d case(s), each run once per wiring (naive, vitals; the agent case naive-agent, vitals)%s, about %d s%n",
                judged, sequential ? " one after the other" : " side by side", seconds + 4L * judged);
        out.println("  demo: " + jar);
        out.println("  sizing: " + s.sizing().describe());
        if (s.cpuLimit() && s.limitsNotApplied().isEmpty()) {
            out.println("  sizing under " + ReplayCatalog.CPU_LIMIT.describe() + (bootSeconds == null ? "" : " (assumed "
                    + (int) ReplayCatalog.ASSUMED_LIMIT_SLOWDOWN + "x the given boot)") + ": " + s.underLimit().describe());
        }
        for (ReplayCase c : cases) {
            out.println(describe(c));
            c.skip().ifPresent(why -> out.printf(Locale.ROOT, "  %-16s SKIPPED: %s%n", "", why));
        }
        out.println("  margins (each expectation's distance from going the other way; every one must be at least 2x):");
        out.print(ReplayReport.margins(cases));
        out.flush();
    }

    /** The side-by-side table, the cgroup counters, the verdicts, the reports asked for, and the overall verdict. */
    private int report(List<RunRecord> records, List<ReplayCase> skipped, Path logDir, PrintWriter out) throws IOException {
        out.println();
        out.print(ReplayReport.table(records));
        out.println();
        String throttling = ReplayReport.throttling(records);
        if (!throttling.isEmpty()) {
            out.println("resources (each demo instance's cgroup counters at its exit):");
            out.print(throttling);
            out.println();
        }
        out.print(ReplayReport.verdicts(records, skipped));
        out.flush();
        writeReports(records, () -> ReplayReport.json(records), () -> ReplayReport.index(records), out);
        boolean ok = ReplayReport.passed(records);
        if (!ok) {
            TempDirs.keep(logDir);
            out.println("demo output of each run: " + logDir);
        }
        out.println(dev.vitals.kubesim.report.VerdictLine.overall(ReplayReport.verdict(records)));
        out.flush();
        return ok ? VitalsCommand.OK : VitalsCommand.FAILED;
    }

    /**
     * The replay was stopped by a signal (issue 30): the table and the reports asked for, of the
     * runs that had finished, marked interrupted; no verdict.
     */
    private int interrupted(List<RunRecord> runs, double ran, PrintWriter out, PrintWriter err) throws java.io.IOException {
        String after = String.format(Locale.ROOT, "%.1f", ran);
        out.println();
        if (!runs.isEmpty()) {
            out.print(ReplayReport.table(runs));
        }
        out.println("verdict: INTERRUPTED (" + Interrupts.what() + " after " + after + " s of runs; " + runs.size()
                + " run(s) finished)");
        out.flush();
        writeReports(runs, () -> Interrupts.markJson(ReplayReport.json(runs), ran),
                () -> Interrupts.markHtml(ReplayReport.index(runs), ran), out);
        out.flush();
        Interrupts.report(err, "replay stopped after " + after + " s of runs, " + runs.size() + " finished"
                + (json != null || html != null ? "; reports written, marked interrupted" : ""));
        return Interrupts.interruptedExitCode();
    }

    /** A report's text, made only when it is asked for. */
    private interface Text {
        String get() throws IOException;
    }

    /** --json, and --html's pages: one per run and the index. */
    private void writeReports(List<RunRecord> runs, Text jsonText, Text index, PrintWriter out) throws IOException {
        if (json != null) {
            write(json, jsonText.get());
            out.println("wrote " + json);
        }
        if (html != null) {
            HtmlOutput target = HtmlOutput.of(html);
            for (RunRecord r : runs) {
                write(target.page(ReplayReport.pageName(r)), ReplayReport.page(r));
            }
            write(target.index(), index.get());
            out.println("wrote " + target.index() + " and " + runs.size() + " run pages beside it");
        }
    }

    private Path demoJar() {
        if (demoJar != null) {
            if (Files.isDirectory(demoJar)) {
                throw new InvalidInputException("--demo-jar " + demoJar + ": is a directory, not a jar");
            }
            if (!Files.isRegularFile(demoJar)) {
                throw new InvalidInputException("--demo-jar " + demoJar + ": no such file");
            }
            if (!DemoJar.looksLikeJar(demoJar)) {
                throw new InvalidInputException("--demo-jar " + demoJar + ": not a jar (zip) file");
            }
            return demoJar.toAbsolutePath();
        }
        Optional<Path> src = CodeSources.codeSourceOf(ReplayCommand.class);
        Path cwd = Path.of("").toAbsolutePath();
        return DemoJar.find(src, cwd).orElseThrow(() -> new InvalidInputException("cannot find the demo jar; looked at "
                + DemoJar.candidates(src, cwd) + ". Build it (mvn -B -q package -DskipTests) or pass --demo-jar FILE"));
    }

    static String describe(ReplayCase c) {
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "  %-16s %s%n", c.name(), c.title()));
        sb.append(String.format(Locale.ROOT, "  %-16s probes (period/timeout/failureThreshold): liveness %s; readiness %s", "", timing(c.liveness()),
                timing(c.readiness())));
        Optional<ProbeTiming> sn = c.startup(Wiring.NAIVE);
        Optional<ProbeTiming> sv = c.startup(Wiring.VITALS);
        if (sn.equals(sv) && sn.isPresent()) {
            sb.append("; startup ").append(timing(sn.get())).append(" (both)");
        } else {
            for (Wiring w : Wiring.values()) {
                c.startup(w).ifPresent(t -> sb.append("; startup (").append(w.flag()).append(" only) ").append(timing(t)));
            }
        }
        List<String> acts = new ArrayList<>();
        for (ReplayStep a : c.steps()) {
            acts.add(a.description() + " at Ready+" + a.after().toSeconds() + "s");
        }
        sb.append(String.format(Locale.ROOT, "%n  %-16s %s; %ds per run", "", acts.isEmpty() ? "no faults" : String.join(", ", acts),
                c.duration().toSeconds()));
        return sb.toString();
    }

    private static String timing(ProbeTiming t) {
        return t.periodSeconds() + "s/" + t.timeoutSeconds() + "s/" + t.failureThreshold();
    }

    private static void write(Path file, String text) throws IOException {
        try (java.io.OutputStream o = SimulateChecks.open(file)) {
            o.write(text.getBytes(StandardCharsets.UTF_8));
        }
    }
}
