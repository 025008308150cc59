package dev.vitals.maven;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.maven.plugin.MojoExecutionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The simulate goal's bad input, each one line before anything runs. A real run: src/it/clean (maven-invoker-plugin). */
class SimulateMojoTest {
    private static final String POD = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: app\n"
            + "    image: x\n    livenessProbe: {httpGet: {path: /livez, port: 8080}}\n";

    private static SimulateMojo mojo(Path module) {
        SimulateMojo m = new SimulateMojo();
        m.basedir = module.toFile();
        m.buildDirectory = module.resolve("target").toFile();
        m.jar = module.resolve("target/app.jar").toFile();
        m.json = module.resolve("target/vitals-simulate.json").toFile();
        m.html = module.resolve("target/vitals-simulate.html").toFile();
        m.duration = "30s";
        return m;
    }

    @Test
    void noManifestNoJarAndABadDurationAreOneLineEach(@TempDir Path module) throws Exception {
        assertThatThrownBy(() -> mojo(module).execute()).isInstanceOf(MojoExecutionException.class)
                .hasMessage("vitals:simulate: no manifest (looked in src/main/k8s, k8s, target/kubernetes,"
                        + " target/classes/META-INF/jkube); set <manifest>");
        Files.createDirectories(module.resolve("k8s"));
        Files.writeString(module.resolve("k8s/pod.yaml"), POD);
        assertThatThrownBy(() -> mojo(module).execute()).isInstanceOf(MojoExecutionException.class)
                .hasMessageStartingWith("vitals:simulate: no jar at ").hasMessageEndingWith("(run it after package, or set <jar>)");
        Files.createDirectories(module.resolve("target"));
        Files.writeString(module.resolve("target/app.jar"), "not run: the duration is refused first");
        SimulateMojo bad = mojo(module);
        bad.duration = "-1s";
        assertThatThrownBy(bad::execute).isInstanceOf(MojoExecutionException.class)
                .hasMessageStartingWith("vitals:simulate: not a duration: '-1s'").hasMessageNotContaining("\n");
    }
}
