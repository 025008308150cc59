package dev.vitals;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A user check that spins forever must cost only its own thread: it must not delay any other
 * check, liveness included, nor the application's virtual threads (issue 19, fault 2). Runs a
 * real child JVM with {@code -XX:ActiveProcessorCount=1} (one carrier thread on Java 21+), on
 * the JDK running the tests: CI runs this on 17 and on 25.
 */
class CheckStarvationTest {
    @Test
    void spinningUserCheckStarvesNeitherLivenessNorApplicationVirtualThreadsOnOneCpu() throws Exception {
        Map<String, String> out = runChild();
        System.out.println("spinning-check child JVM: " + out);

        assertThat(out.get("processors")).isEqualTo("1");
        assertThat(Integer.parseInt(out.get("liveness-samples"))).isGreaterThan(10);
        assertThat(Integer.parseInt(out.get("liveness-failing")))
                .as("liveness reads while a user check spins; first failing report: %s", out.get("first-failure"))
                .isZero();
        assertThat(out.get("readiness")).as("the spinner itself reports its timeout").isEqualTo("DOWN");
        // The application's 20 ms sleeper would manage ~140 rounds in 2.8 s; starved, none at all.
        assertThat(Long.parseLong(out.get("app-iterations"))).as("application thread rounds").isGreaterThan(20);
        assertThat(Long.parseLong(out.get("app-max-late-ms"))).as("application thread lateness").isLessThan(1000);
        assertThat(out.get("executor")).as("user checks run on platform threads").isEqualTo("platform");
    }

    static Map<String, String> runChild() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Path base = Path.of(System.getProperty("user.dir"), "target");
        String cp = base.resolve("test-classes") + File.pathSeparator + base.resolve("classes");
        Process p = new ProcessBuilder(List.of(java, "-XX:ActiveProcessorCount=1", "-Xmx64m",
                "-Djava.util.logging.config.file=" + Path.of(System.getProperty("user.dir"), "src/test/resources/logging.properties"),
                "-cp", cp, SpinningCheckChild.class.getName()))
                .redirectErrorStream(true).start();
        Thread watchdog = new Thread(() -> {
            try {
                if (!p.waitFor(60, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
            }
        }, "child-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
        Map<String, String> out = new HashMap<>();
        StringBuilder all = new StringBuilder();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                all.append(line).append('\n');
                int eq = line.indexOf('=');
                if (eq > 0 && !line.startsWith(" ")) {
                    out.put(line.substring(0, eq), line.substring(eq + 1));
                }
            }
        } finally {
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        }
        assertThat(out).as("child output:\n%s", all).containsKeys("executor", "liveness-failing", "app-iterations");
        return out;
    }
}
