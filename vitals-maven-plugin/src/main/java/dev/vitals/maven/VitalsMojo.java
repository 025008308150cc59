package dev.vitals.maven;

import java.io.File;
import java.nio.file.Path;
import org.apache.maven.plugin.AbstractMojo;
import org.apache.maven.plugin.MojoExecutionException;
import org.apache.maven.plugin.MojoFailureException;
import org.apache.maven.plugins.annotations.Parameter;

/**
 * What the plugin's goals share: the module's directories, the skip switch, and paths shown
 * relative to the module. A goal gives its name, says whether it is skipped (each goal has its own
 * {@code skip} property) and does its work in {@link #run()}.
 */
abstract class VitalsMojo extends AbstractMojo {
    @Parameter(defaultValue = "${project.basedir}", readonly = true, required = true)
    File basedir;

    @Parameter(defaultValue = "${project.build.directory}", readonly = true, required = true)
    File buildDirectory;

    private final String goal;

    /** @param goal the goal as the build log names it, e.g. {@code vitals:lint} */
    VitalsMojo(String goal) {
        this.goal = goal;
    }

    /** @return whether the goal is skipped (its {@code skip} parameter) */
    abstract boolean skipped();

    /**
     * The goal's work, when it is not skipped.
     *
     * @throws MojoExecutionException on bad input, with its one line
     * @throws MojoFailureException when the verdict fails the build
     */
    abstract void run() throws MojoExecutionException, MojoFailureException;

    @Override
    public final void execute() throws MojoExecutionException, MojoFailureException {
        if (skipped()) {
            getLog().info(goal + " skipped");
            return;
        }
        run();
    }

    /** @return {@code p} as the build shows it: relative to the module when inside it */
    final String shown(Path p) {
        return ProjectManifests.shown(basedir.toPath(), p);
    }
}
