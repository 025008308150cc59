package dev.vitals.maven;

import dev.vitals.kubesim.cli.VitalsCommand;
import java.io.File;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.maven.plugin.MojoExecutionException;
import org.apache.maven.plugin.MojoFailureException;
import org.apache.maven.plugins.annotations.LifecyclePhase;
import org.apache.maven.plugins.annotations.Mojo;
import org.apache.maven.plugins.annotations.Parameter;

/**
 * {@code vitals:simulate}: runs the module's built jar ({@code java -jar}) under the probes of its
 * manifest, with the kubelet's rules, as {@code vitals simulate --manifest FILE -- java -jar JAR}
 * does (the same command, run in the build's JVM through {@code VitalsCommand.execute}); the build
 * fails when the verdict is FAIL (a probe kill, never Ready, or a failed {@code expect}). Writes the
 * JSON and HTML reports under {@code target/}. docs/lint.md, "Running lint in Maven".
 */
@Mojo(name = "simulate", defaultPhase = LifecyclePhase.INTEGRATION_TEST, threadSafe = true)
public final class SimulateMojo extends VitalsMojo {
    /** The manifest whose probes run. Default: the first manifest file vitals:lint would read. */
    @Parameter(property = "vitals.simulate.manifest")
    File manifest;

    /** The container of the manifest (needed when the pod has several). */
    @Parameter(property = "vitals.simulate.container")
    String container;

    /** The jar to run. */
    @Parameter(property = "vitals.simulate.jar", defaultValue = "${project.build.directory}/${project.build.finalName}.jar")
    File jar;

    /** How long the run lasts (e.g. 30s, 2m). */
    @Parameter(property = "vitals.simulate.duration", defaultValue = "30s")
    String duration;

    /** Expectations, as {@code --expect} (e.g. {@code restarts == 0}); none: the default verdict. */
    @Parameter
    List<String> expects = new ArrayList<>();

    /** Further {@code vitals simulate} options, e.g. {@code --cpu-limit}, {@code 500m}, {@code --scenario}, {@code s.yaml}. */
    @Parameter
    List<String> options = new ArrayList<>();

    /** Print the timeline (every probe) into the build log; by default only the summary and the verdict (the timeline is in the reports). */
    @Parameter(property = "vitals.simulate.timeline", defaultValue = "false")
    boolean timeline;

    /** The run's JSON report. */
    @Parameter(defaultValue = "${project.build.directory}/vitals-simulate.json")
    File json;

    /** The run's HTML report (timeline). */
    @Parameter(defaultValue = "${project.build.directory}/vitals-simulate.html")
    File html;

    /** Skip the goal (also {@code -DskipITs}). */
    @Parameter(property = "vitals.simulate.skip", defaultValue = "${skipITs}")
    boolean skip;

    /** Made by Maven, which then sets the parameters. */
    public SimulateMojo() {
        super("vitals:simulate");
    }

    @Override
    boolean skipped() {
        return skip;
    }

    @Override
    void run() throws MojoExecutionException, MojoFailureException {
        Path m = manifest != null ? manifest.toPath() : firstManifest();
        if (!Files.isRegularFile(jar.toPath())) {
            throw new MojoExecutionException("vitals:simulate: no jar at " + jar + " (run it after package, or set <jar>)");
        }
        // the command makes no report's parent directory (docs/simulator.md, "Report targets"); a build makes its own
        for (File f : List.of(json, html)) {
            File parent = f.getAbsoluteFile().getParentFile();
            if (parent != null && !parent.isDirectory() && !parent.mkdirs()) {
                throw new MojoExecutionException("vitals:simulate: cannot create the directory " + parent);
            }
        }
        List<String> args = new ArrayList<>(List.of("simulate", "--manifest", shown(m), "--duration", duration,
                "--json", shown(json.toPath()), "--html", shown(html.toPath())));
        if (!timeline) {
            args.add("--quiet");
        }
        if (container != null && !container.isBlank()) {
            args.add("--container");
            args.add(container);
        }
        for (String e : expects) {
            args.add("--expect");
            args.add(e);
        }
        args.addAll(options);
        args.addAll(List.of("--", Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar", shown(jar.toPath())));
        getLog().info("vitals " + String.join(" ", args));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = VitalsCommand.execute(new PrintWriter(out, true), new PrintWriter(err, true), args.toArray(String[]::new));
        out.toString().lines().forEach(getLog()::info);
        // a terminal's progress line (carriage returns, escape sequences) is not a message
        err.toString().lines().filter(l -> !l.contains("\033") && !l.contains("\r")).forEach(getLog()::error);
        if (exit == VitalsCommand.BAD_INPUT) {
            throw new MojoExecutionException("vitals:simulate: " + err.toString().strip().replaceFirst("^error: ", ""));
        }
        if (exit != VitalsCommand.OK) {
            throw new MojoFailureException("vitals:simulate: verdict " + (exit == VitalsCommand.FAILED ? "FAIL" : "exit " + exit)
                    + " (" + shown(html.toPath()) + ")");
        }
    }

    private Path firstManifest() throws MojoExecutionException {
        for (Path p : ProjectManifests.defaults(basedir.toPath(), buildDirectory.toPath())) {
            if (Files.isRegularFile(p)) {
                return p;
            }
            try (Stream<Path> files = Files.walk(p)) {
                Path first = files.filter(f -> Files.isRegularFile(f) && f.getFileName().toString().matches(".*\\.(ya?ml|json)"))
                        .sorted().findFirst().orElse(null);
                if (first != null) {
                    return first;
                }
            } catch (java.io.IOException e) {
                throw new MojoExecutionException("vitals:simulate: cannot list " + p + ": " + e.getMessage());
            }
        }
        throw new MojoExecutionException("vitals:simulate: no manifest (looked in src/main/k8s, k8s, target/kubernetes,"
                + " target/classes/META-INF/jkube); set <manifest>");
    }
}
