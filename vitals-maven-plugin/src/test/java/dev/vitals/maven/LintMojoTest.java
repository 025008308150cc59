package dev.vitals.maven;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.maven.plugin.MojoExecutionException;
import org.apache.maven.plugin.MojoFailureException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The lint goal's own decisions, on real files in a module-shaped directory: which manifests and which
 * configuration it reads by default, and how bad input and failOn end the build. The whole goal in a real
 * Maven build: the sample projects in src/it (maven-invoker-plugin).
 */
class LintMojoTest {
    private static final String DEPLOYMENT = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n"
            + "  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n"
            + "      containers:\n      - name: app\n        image: x\n";
    /** The API server rejects successThreshold 3 on a liveness probe: an error whatever the rules' wording. */
    private static final String REJECTED = DEPLOYMENT + "        livenessProbe:\n          httpGet: {path: /livez, port: 8080}\n"
            + "          successThreshold: 3\n";

    private static Path write(Path dir, String name, String text) throws Exception {
        Path p = dir.resolve(name);
        Files.createDirectories(p.getParent());
        Files.writeString(p, text);
        return p;
    }

    private static LintMojo mojo(Path module) {
        LintMojo m = new LintMojo();
        m.basedir = module.toFile();
        m.buildDirectory = module.resolve("target").toFile();
        m.sarif = module.resolve("target/vitals-lint.sarif").toFile();
        m.failOn = "error";
        return m;
    }

    @Test
    void theDefaultsAreHandWrittenQuarkusAndJkubeManifestsThatExist(@TempDir Path module) throws Exception {
        assertThat(ProjectManifests.defaults(module, module.resolve("target"))).isEmpty();
        write(module, "src/main/k8s/a.yaml", DEPLOYMENT);
        write(module, "k8s/b.yaml", DEPLOYMENT);
        write(module, "target/kubernetes/kubernetes.yml", DEPLOYMENT);
        write(module, "target/kubernetes/kubernetes.json", "{}");
        write(module, "target/classes/META-INF/jkube/kubernetes.yml", DEPLOYMENT);
        write(module, "target/classes/META-INF/jkube/kubernetes/web-deployment.yml", DEPLOYMENT);
        assertThat(ProjectManifests.defaults(module, module.resolve("target"))).containsExactly(module.resolve("src/main/k8s"),
                module.resolve("k8s"), module.resolve("target/kubernetes/kubernetes.yml"),
                module.resolve("target/classes/META-INF/jkube/kubernetes.yml"));
        Files.delete(module.resolve("target/classes/META-INF/jkube/kubernetes.yml"));
        assertThat(ProjectManifests.defaults(module, module.resolve("target"))).endsWith(
                module.resolve("target/classes/META-INF/jkube"));
    }

    @Test
    void onlySpringBootOrVitalsSettingsAreJoinedYamlBeforeProperties(@TempDir Path module) throws Exception {
        write(module, "src/main/resources/application.properties", "quarkus.http.port=8080\n");
        assertThat(ProjectManifests.appConfig(module)).isEmpty();
        write(module, "src/main/resources/application.properties", "management.server.port=9090\n");
        write(module, "src/main/resources/application.yaml", "spring:\n  application:\n    name: web\n");
        assertThat(ProjectManifests.appConfig(module)).containsExactly(module.resolve("src/main/resources/application.yaml"),
                module.resolve("src/main/resources/application.properties"));
    }

    @Test
    void noManifestSkipsAndAFindingAtFailOnFailsTheBuildWithSarifWritten(@TempDir Path module) throws Exception {
        mojo(module).execute(); // nothing to lint: passes
        assertThat(module.resolve("target/vitals-lint.sarif")).doesNotExist();
        write(module, "k8s/deploy.yaml", REJECTED);
        assertThatThrownBy(() -> mojo(module).execute()).isInstanceOf(MojoFailureException.class)
                .hasMessageMatching("vitals:lint: \\d+ findings? at or above error \\(failOn\\); see above or .*vitals-lint\\.sarif");
        assertThat(Files.readString(module.resolve("target/vitals-lint.sarif"))).contains("\"version\" : \"2.1.0\"");
        LintMojo never = mojo(module);
        never.failOn = "never";
        never.execute();
        LintMojo skipped = mojo(module);
        skipped.skip = true;
        skipped.execute();
    }

    @Test
    void failOnAcceptsWhatTheCliAccepts() throws Exception {
        // --fail-on error|warning|info|never, note being SARIF's word for info
        assertThat(LintMojo.threshold("info")).contains(dev.vitals.kubesim.lint.Severity.INFO);
        assertThat(LintMojo.threshold("note")).contains(dev.vitals.kubesim.lint.Severity.INFO);
        assertThat(LintMojo.threshold(" Warning ")).contains(dev.vitals.kubesim.lint.Severity.WARNING);
        assertThat(LintMojo.threshold("error")).contains(dev.vitals.kubesim.lint.Severity.ERROR);
        assertThat(LintMojo.threshold("NEVER")).isEmpty();
        assertThatThrownBy(() -> LintMojo.threshold("")).isInstanceOf(MojoExecutionException.class);
    }

    @Test
    void badInputIsAnExecutionErrorWithTheCliLine(@TempDir Path module) throws Exception {
        write(module, "k8s/deploy.yaml", DEPLOYMENT);
        LintMojo bad = mojo(module);
        bad.failOn = "sometimes";
        assertThatThrownBy(bad::execute).isInstanceOf(MojoExecutionException.class)
                .hasMessage("vitals:lint: failOn must be error, warning, info or never, was 'sometimes'");
        write(module, ".vitals.yaml", "rules:\n  no-such-rule: off\n");
        assertThatThrownBy(() -> mojo(module).execute()).isInstanceOf(MojoExecutionException.class)
                .hasMessageStartingWith("vitals:lint: ").hasMessageContaining(".vitals.yaml:2: unknown rule 'no-such-rule'");
        Files.delete(module.resolve(".vitals.yaml"));
        LintMojo notManifest = mojo(module);
        notManifest.paths = List.of(write(module, "pom.json", "{\"name\": \"web\"}\n").toFile());
        assertThatThrownBy(notManifest::execute).isInstanceOf(MojoExecutionException.class)
                .hasMessageContaining("pom.json: not a Kubernetes manifest");
        LintMojo missing = mojo(module);
        missing.paths = List.of(new File(module.toFile(), "nope"));
        assertThatThrownBy(missing::execute).isInstanceOf(MojoExecutionException.class)
                .hasMessageContaining("nope: no such file or directory");
    }
}
