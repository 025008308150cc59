package dev.vitals.example.spring3;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * This example started with the other Boot generation's Vitals module instead of its own (the
 * mistake a user makes by picking the wrong artifact; issue 13): the start fails with one line
 * that names the right module, in a real child JVM, before Spring trips over the other
 * generation's classes.
 */
class OtherGenerationTest {

    @Test
    void startWithTheOtherGenerationsModuleFailsWithOneLineNamingTheRightOne() throws Exception {
        Path other = Path.of(System.getProperty("vitals.other.module"));
        assertThat(other).as("the other module's classes (built earlier in the reactor)").isDirectory();
        List<String> cp = new ArrayList<>();
        for (String e : System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")).split(File.pathSeparator)) {
            if (!e.contains("vitals-spring-boot3")) {
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
                "-cp", String.join(File.pathSeparator, cp), "dev.vitals.example.spring3.ExampleApplication",
                "--server.port=0", "--server.address=127.0.0.1", "--vitals.server.port=0", "--vitals.server.address=127.0.0.1",
                "--spring.main.banner-mode=off")
                .redirectErrorStream(true).redirectOutput(out.toFile()).start();
        try {
            assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("the application stops by itself").isTrue();
            String log = Files.readString(out, StandardCharsets.UTF_8);
            assertThat(p.exitValue()).as(log).isNotZero();
            assertThat(log).contains("vitals-spring-boot is for Spring Boot 4.x (tested on 4.0 and 4.1) but this application runs Spring Boot " + System.getProperty("vitals.boot.version") + ": depend on dev.vitals:vitals-spring-boot3 instead").doesNotContain("\tat ");
        } finally {
            p.destroyForcibly();
            Files.deleteIfExists(out);
        }
    }
}
