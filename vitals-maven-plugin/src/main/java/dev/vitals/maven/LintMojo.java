package dev.vitals.maven;

import dev.vitals.kubesim.cli.VitalsCommand;
import dev.vitals.kubesim.input.InvalidInputException;
import dev.vitals.kubesim.lint.AppConfig;
import dev.vitals.kubesim.lint.LintConfig;
import dev.vitals.kubesim.lint.LintContext;
import dev.vitals.kubesim.lint.LintFormat;
import dev.vitals.kubesim.lint.LintInput;
import dev.vitals.kubesim.lint.LintReport;
import dev.vitals.kubesim.lint.Linter;
import dev.vitals.kubesim.lint.Rules;
import dev.vitals.kubesim.lint.Severity;
import dev.vitals.kubesim.model.KubernetesVersion;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.maven.plugin.MojoExecutionException;
import org.apache.maven.plugin.MojoFailureException;
import org.apache.maven.plugins.annotations.LifecyclePhase;
import org.apache.maven.plugins.annotations.Mojo;
import org.apache.maven.plugins.annotations.Parameter;

/**
 * {@code vitals:lint}: lints the module's Kubernetes manifests, joined with its own Spring Boot
 * configuration, as {@code vitals lint} does; prints the text report, writes SARIF, and fails the
 * build when a finding reaches {@code failOn}. Honours {@code .vitals.yaml} (found upward from the
 * module, or {@code config}). Bad input (an unreadable or invalid manifest, a named file that is no
 * manifest, a bad {@code .vitals.yaml}) fails the build with its one line. docs/lint.md, "Running lint
 * in Maven".
 */
@Mojo(name = "lint", defaultPhase = LifecyclePhase.VERIFY, threadSafe = true)
public final class LintMojo extends VitalsMojo {
    /**
     * Manifest files and directories (directories recursively: *.yaml, *.yml, *.json). Default: those of
     * {@code src/main/k8s}, {@code k8s}, {@code target/kubernetes/*.yml} (Quarkus) and
     * {@code target/classes/META-INF/jkube} (Eclipse JKube) that exist; none existing skips the goal.
     */
    @Parameter(property = "vitals.lint.paths")
    List<File> paths = new ArrayList<>();

    /**
     * The application's configuration for the app-config join. Default: the module's
     * {@code src/main/resources/application.yaml|yml|properties} that hold Spring Boot or Vitals settings.
     */
    @Parameter(property = "vitals.lint.appConfig")
    List<File> appConfig = new ArrayList<>();

    /** Active Spring profiles for the join (default: the container's SPRING_PROFILES_ACTIVE, else spring.profiles.active). */
    @Parameter(property = "vitals.lint.profiles")
    List<String> profiles = new ArrayList<>();

    /** The lowest severity that fails the build: {@code error} (default), {@code warning}, {@code info} or {@code never}. */
    @Parameter(property = "vitals.lint.failOn", defaultValue = "error")
    String failOn;

    /** Where the SARIF report is written (code scanning upload). */
    @Parameter(property = "vitals.lint.sarif", defaultValue = "${project.build.directory}/vitals-lint.sarif")
    File sarif;

    /** Lint settings; default: the {@code .vitals.yaml} nearest above the first input. */
    @Parameter(property = "vitals.lint.config")
    File config;

    /** The Kubernetes release the manifests are for (e.g. 1.33); default: .vitals.yaml's, else the newest. */
    @Parameter(property = "vitals.lint.kubernetesVersion")
    String kubernetesVersion;

    /** Accept a named input that holds no Kubernetes object. */
    @Parameter(property = "vitals.lint.allowEmpty", defaultValue = "false")
    boolean allowEmpty;

    /** Skip the goal. */
    @Parameter(property = "vitals.lint.skip", defaultValue = "false")
    boolean skip;

    /** Made by Maven, which then sets the parameters. */
    public LintMojo() {
        super("vitals:lint");
    }

    @Override
    boolean skipped() {
        return skip;
    }

    @Override
    void run() throws MojoExecutionException, MojoFailureException {
        List<Path> inputs = inputs();
        if (inputs.isEmpty()) {
            getLog().info("vitals:lint: no manifests (looked in src/main/k8s, k8s, target/kubernetes/*.yml,"
                    + " target/classes/META-INF/jkube); set <paths> to lint others");
            return;
        }
        List<Path> app = appConfig();
        Optional<Severity> threshold = threshold(failOn);
        LintReport report;
        try {
            report = lint(inputs, app);
        } catch (InvalidInputException e) {
            throw new MojoExecutionException("vitals:lint: " + e.getMessage());
        }
        log(report, threshold);
        writeSarif(report, threshold);
        for (LintReport.FileSummary s : report.errors()) {
            getLog().error(s.error().orElseThrow());
        }
        verdict(report, threshold);
    }

    /** @return {@code <paths>}, else the module's manifests that exist (none: the goal has nothing to lint) */
    private List<Path> inputs() {
        List<Path> inputs = new ArrayList<>();
        paths.forEach(p -> inputs.add(p.toPath()));
        if (inputs.isEmpty()) {
            inputs.addAll(ProjectManifests.defaults(basedir.toPath(), buildDirectory.toPath()));
        }
        return inputs;
    }

    /** @return {@code <appConfig>}, else the module's Spring Boot configuration files that hold its settings */
    private List<Path> appConfig() {
        List<Path> app = new ArrayList<>();
        appConfig.forEach(f -> app.add(f.toPath()));
        if (app.isEmpty()) {
            app.addAll(ProjectManifests.appConfig(basedir.toPath()));
        }
        return app;
    }

    /**
     * Lints the inputs, joined with the application's configuration, under the settings found.
     *
     * @throws InvalidInputException on bad settings, a bad version or an unreadable configuration
     */
    private LintReport lint(List<Path> inputs, List<Path> app) {
        List<String> names = new ArrayList<>();
        inputs.forEach(p -> names.add(shown(p)));
        LintConfig settings = LintConfig.discover(names, Optional.ofNullable(config).map(File::toPath));
        KubernetesVersion version = kubernetesVersion == null || kubernetesVersion.isBlank()
                ? settings.kubernetesVersion().orElse(KubernetesVersion.NEWEST) : KubernetesVersion.parse(kubernetesVersion);
        Optional<AppConfig> join = app.isEmpty() ? Optional.empty()
                : Optional.of(AppConfig.load(app.stream().map(p -> Path.of(shown(p))).toList(),
                        new LinkedHashSet<>(profiles)));
        getLog().info("vitals:lint " + String.join(" ", names) + (app.isEmpty() ? ""
                : " --app-config " + String.join(" --app-config ", app.stream().map(this::shown).toList()))
                + settings.file().map(f -> " (settings: " + shown(f) + ")").orElse(""));
        List<LintInput> in = LintInput.collect(names, InputStream.nullInputStream());
        return settings.apply(new Linter(Rules.all(), new LintContext(Optional.empty(), join, Map.of(), version),
                Optional.empty()).allowEmpty(allowEmpty).lint(in));
    }

    /** The text report into the build log, each finding at its severity's level. */
    private void log(LintReport report, Optional<Severity> threshold) {
        StringWriter text = new StringWriter();
        LintFormat.TEXT.write(report, threshold, VitalsCommand.VERSION, text);
        for (String line : text.toString().split("\n")) {
            if (line.contains(": error ")) {
                getLog().error(line);
            } else if (line.contains(": warning ")) {
                getLog().warn(line);
            } else {
                getLog().info(line);
            }
        }
    }

    /**
     * @throws MojoExecutionException when an input was bad (its line, and how many more)
     * @throws MojoFailureException when a finding reaches {@code failOn}
     */
    private void verdict(LintReport report, Optional<Severity> threshold) throws MojoExecutionException, MojoFailureException {
        int exit = report.exitCode(threshold);
        if (exit == VitalsCommand.BAD_INPUT) {
            throw new MojoExecutionException("vitals:lint: " + report.errors().get(0).error().orElseThrow()
                    + (report.errors().size() > 1 ? " (and " + (report.errors().size() - 1) + " more inputs)" : ""));
        }
        if (exit == VitalsCommand.FAILED) {
            long n = report.findings().stream().filter(f -> f.severity().compareTo(threshold.orElseThrow()) >= 0).count();
            throw new MojoFailureException("vitals:lint: " + n + (n == 1 ? " finding" : " findings") + " at or above "
                    + threshold.get().label() + " (failOn); see above or " + shown(sarif.toPath()));
        }
    }

    private void writeSarif(LintReport report, Optional<Severity> threshold) throws MojoExecutionException {
        try {
            Path out = sarif.toPath();
            if (out.getParent() != null) {
                Files.createDirectories(out.getParent());
            }
            try (Writer w = Files.newBufferedWriter(out, StandardCharsets.UTF_8)) {
                LintFormat.SARIF.write(report, threshold, VitalsCommand.VERSION, w);
            }
            getLog().info("vitals:lint: wrote " + shown(out));
        } catch (IOException | java.io.UncheckedIOException e) {
            throw new MojoExecutionException("vitals:lint: cannot write " + sarif + ": " + e.getMessage());
        }
    }

    /**
     * @param failOn {@code error}, {@code warning}, {@code info} ({@code note}, SARIF's word) or {@code never}, as the
     *        CLI's {@code --fail-on} (case-insensitive)
     * @return the lowest severity that fails the build; empty for never
     * @throws MojoExecutionException for anything else, naming the accepted values
     */
    static Optional<Severity> threshold(String failOn) throws MojoExecutionException {
        String s = failOn == null ? "" : failOn.strip();
        if (s.equalsIgnoreCase("never")) {
            return Optional.empty();
        }
        try {
            return Optional.of(Severity.parse(s));
        } catch (IllegalArgumentException e) {
            throw new MojoExecutionException("vitals:lint: failOn must be error, warning, info or never, was '" + failOn + "'");
        }
    }

}
