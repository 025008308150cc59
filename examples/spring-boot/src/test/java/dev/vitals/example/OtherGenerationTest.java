package dev.vitals.example;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * This example started with the other Boot generation's Vitals module instead of its own (the
 * mistake a user makes by picking the wrong artifact; issue 13): the start fails with one line
 * that names the right module, in a real child JVM, before Spring trips over the other
 * generation's classes. One source for both examples (spring-shared/example-test, added by
 * build-helper); each example's pom names its application ({@code vitals.example.main}), its
 * own Vitals module ({@code vitals.own.artifact}) and the other one ({@code vitals.other.artifact},
 * {@code vitals.other.module}: that module's classes).
 */
class OtherGenerationTest {

    @Test
    void startWithTheOtherGenerationsModuleFailsWithOneLineNamingTheRightOne() throws Exception {
        String own = System.getProperty("vitals.own.artifact");
        String otherArtifact = System.getProperty("vitals.other.artifact");
        Path other = Path.of(System.getProperty("vitals.other.module"));
        assertThat(other).as("the other module's classes (built earlier in the reactor)").isDirectory();
        List<String> cp = new ArrayList<>();
        for (String e : System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")).split(File.pathSeparator)) {
            if (!e.contains(File.separator + own + File.separator)) {
                cp.add(e);
            }
        }
        cp.add(other.toString());
        String extra = System.getProperty("vitals.other.extra", "");
        if (!extra.isEmpty()) {
            assertThat(Path.of(extra)).isRegularFile();
            cp.add(extra);
        }
        Path out = Files.createTempFile("vitals-other-generation", ".log");
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", String.join(File.pathSeparator, cp), System.getProperty("vitals.example.main"),
                "--server.port=0", "--server.address=127.0.0.1", "--vitals.server.port=0", "--vitals.server.address=127.0.0.1",
                "--spring.main.banner-mode=off")
                .redirectErrorStream(true).redirectOutput(out.toFile()).start();
        try {
            assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("the application stops by itself").isTrue();
            String log = Files.readString(out, StandardCharsets.UTF_8);
            assertThat(p.exitValue()).as(log).isNotZero();
            assertThat(log).containsPattern(Pattern.quote(otherArtifact + " is for Spring Boot ") + "[^\n]+"
                            + Pattern.quote(" but this application runs Spring Boot " + System.getProperty("vitals.boot.version")
                            + ": depend on dev.vitals:" + own + " instead"))
                    .doesNotContain("\tat ");
        } finally {
            p.destroyForcibly();
            Files.deleteIfExists(out);
        }
    }
}
