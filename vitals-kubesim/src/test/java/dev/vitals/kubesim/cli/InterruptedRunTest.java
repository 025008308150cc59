package dev.vitals.kubesim.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Issue 30: a real {@code vitals simulate} JVM given a real SIGINT or SIGTERM mid-run writes the
 * reports it was asked for, marked interrupted, says so on stderr, exits 130 / 143, and leaves no
 * process behind: neither the target nor the target's own child (a {@code sh -c 'sleep & sleep'}
 * tree, seen through {@link ProcessHandle#descendants()} before the signal). The same for the live
 * {@code fleet} (every replica and its children) and for {@code replay} (the demo JVMs, here
 * {@link SleepingDemo}, and their children; the runs that had finished in the reports).
 */
class InterruptedRunTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @CsvSource({"INT, 130", "TERM, 143", "HUP, 129"})
    void aSignalWritesTheReportsMarkedInterruptedAndReapsEveryProcess(String signal, int exitCode) throws Exception {
        assumeFalse(ignoredHere(signal), "SIG" + signal + " is ignored in this test's process (started in the background "
                + "by a non-interactive shell): the child inherits that, as POSIX wants, and cannot be interrupted by it");
        Path json = dir.resolve("run.json");
        Path html = dir.resolve("run.html");
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> cmd = new ArrayList<>(List.of(java, "-Xmx128m", "-cp", System.getProperty("java.class.path"),
                VitalsCommand.class.getName(), "simulate", "-q",
                "--liveness", "tcp://:1,periodSeconds=1,failureThreshold=1000",
                "--duration", "120s", "--json", json.toString(), "--html", html.toString(),
                "--", "sh", "-c", "sleep 300 & sleep 301"));
        Process vitals = new ProcessBuilder(cmd).redirectOutput(dir.resolve("out.txt").toFile())
                .redirectError(dir.resolve("err.txt").toFile()).start();
        try {
            // the target and its child are running: sh, and two sleeps under it
            await().atMost(Duration.ofSeconds(60)).until(() -> vitals.descendants().count() >= 3);
            List<ProcessHandle> tree = new ArrayList<>();
            vitals.descendants().forEach(tree::add);
            new ProcessBuilder("kill", "-" + signal, Long.toString(vitals.pid())).start().waitFor(10, TimeUnit.SECONDS);
            assertThat(vitals.waitFor(60, TimeUnit.SECONDS)).as("vitals ends after SIG%s", signal).isTrue();
            assertThat(vitals.exitValue()).isEqualTo(exitCode);
            String err = Files.readString(dir.resolve("err.txt"), StandardCharsets.UTF_8);
            assertThat(err).startsWith("vitals: interrupted by SIG" + signal + ": simulate stopped after ")
                    .contains("reports written, marked interrupted").doesNotContain("Exception");
            JsonNode report = new ObjectMapper().readTree(json.toFile());
            assertThat(report.path("interruption").path("signal").asText()).isEqualTo("SIG" + signal);
            assertThat(report.path("verdict").asText()).isEqualTo("INTERRUPTED");
            assertThat(report.path("interrupted").asBoolean()).isTrue();
            assertThat(report.path("passed").isBoolean() && !report.path("passed").asBoolean()).as("passed: false").isTrue();
            assertThat(Files.readString(html, StandardCharsets.UTF_8)).contains("<b>Interrupted</b> by SIG" + signal);
            assertThat(Files.readString(dir.resolve("out.txt"), StandardCharsets.UTF_8)).contains("verdict: INTERRUPTED");
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() ->
                    assertThat(tree).as("processes left by the run").noneMatch(ProcessHandle::isAlive));
        } finally {
            vitals.descendants().forEach(ProcessHandle::destroyForcibly);
            vitals.destroyForcibly();
        }
    }

    @ParameterizedTest
    @CsvSource({"INT, 130", "TERM, 143"})
    void aSignalToTheLiveFleetWritesItsReportsMarkedInterruptedAndReapsEveryReplica(String signal, int exitCode)
            throws Exception {
        assumeFalse(ignoredHere(signal), "SIG" + signal + " is ignored in this test's process (started in the background "
                + "by a non-interactive shell): the child inherits that, as POSIX wants, and cannot be interrupted by it");
        Path json = dir.resolve("fleet.json");
        Path html = dir.resolve("fleet.html");
        Path manifest = Files.writeString(dir.resolve("pod.yaml"), "kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n"
                + "  - name: app\n    ports: [{name: http, containerPort: 8080}]\n"
                + "    livenessProbe: {tcpSocket: {port: http}, periodSeconds: 1, failureThreshold: 1000}\n");
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> cmd = new ArrayList<>(List.of(java, "-Xmx128m", "-cp", System.getProperty("java.class.path"),
                VitalsCommand.class.getName(), "fleet", "-q", "--manifest", manifest.toString(), "--replicas", "2",
                "--duration", "120s", "--logs", dir.resolve("logs").toString(), "--json", json.toString(), "--html",
                html.toString(), "--", "sh", "-c", "sleep 300 & sleep 301"));
        Process vitals = new ProcessBuilder(cmd).redirectOutput(dir.resolve("out.txt").toFile())
                .redirectError(dir.resolve("err.txt").toFile()).start();
        try {
            // both replicas and their children are running: two sh, four sleeps
            await().atMost(Duration.ofSeconds(60)).until(() -> vitals.descendants().count() >= 6);
            List<ProcessHandle> tree = new ArrayList<>();
            vitals.descendants().forEach(tree::add);
            new ProcessBuilder("kill", "-" + signal, Long.toString(vitals.pid())).start().waitFor(10, TimeUnit.SECONDS);
            assertThat(vitals.waitFor(60, TimeUnit.SECONDS)).as("vitals fleet ends after SIG%s", signal).isTrue();
            String err = Files.readString(dir.resolve("err.txt"), StandardCharsets.UTF_8);
            assertThat(vitals.exitValue()).as(err).isEqualTo(exitCode);
            assertThat(err).startsWith("vitals: interrupted by SIG" + signal + ": fleet stopped after ")
                    .contains("reports written, marked interrupted").doesNotContain("Exception");
            JsonNode report = new ObjectMapper().readTree(json.toFile());
            assertThat(report.path("interruption").path("signal").asText()).isEqualTo("SIG" + signal);
            assertThat(report.path("interruption").path("afterSeconds").asDouble()).isPositive();
            assertThat(report.path("verdict").asText()).isEqualTo("INTERRUPTED");
            assertThat(report.path("interrupted").asBoolean()).isTrue();
            assertThat(report.path("passed").isBoolean() && !report.path("passed").asBoolean()).as("passed: false").isTrue();
            assertThat(report.path("runs").size()).isEqualTo(1);
            assertThat(Files.readString(html, StandardCharsets.UTF_8)).contains("<b>Interrupted</b> by SIG" + signal);
            assertThat(Files.readString(dir.resolve("out.txt"), StandardCharsets.UTF_8)).contains("verdict: INTERRUPTED");
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() ->
                    assertThat(tree).as("processes left by the fleet").noneMatch(ProcessHandle::isAlive));
        } finally {
            vitals.descendants().forEach(ProcessHandle::destroyForcibly);
            vitals.destroyForcibly();
        }
    }

    @Test
    void aSignalToReplayWritesTheFinishedRunsMarkedInterruptedAndReapsTheDemos() throws Exception {
        // a "demo" jar whose main class (SleepingDemo, from the test classes) starts a child and waits
        Path jar = dir.resolve("demo.jar");
        Manifest mf = new Manifest();
        mf.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        mf.getMainAttributes().put(Attributes.Name.MAIN_CLASS, SleepingDemo.class.getName());
        mf.getMainAttributes().put(Attributes.Name.CLASS_PATH,
                SleepingDemo.class.getProtectionDomain().getCodeSource().getLocation().toString());
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar), mf)) {
            out.putNextEntry(new JarEntry("README"));
            out.write("test stand-in for vitals-demo.jar\n".getBytes(StandardCharsets.UTF_8));
            out.closeEntry();
        }
        Path json = dir.resolve("replay.json");
        Path html = dir.resolve("replay-html");
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> cmd = new ArrayList<>(List.of(java, "-Xmx128m", "-cp", System.getProperty("java.class.path"),
                VitalsCommand.class.getName(), "replay", "incident", "-q", "--demo-jar", jar.toString(), "--boot-seconds", "5",
                "--logs", dir.resolve("logs").toString(), "--json", json.toString(), "--html", html.toString()));
        Process vitals = new ProcessBuilder(cmd).redirectOutput(dir.resolve("out.txt").toFile())
                .redirectError(dir.resolve("err.txt").toFile()).start();
        try {
            // both wirings' "demo" JVMs and their sleeps are running
            await().atMost(Duration.ofSeconds(90)).until(() -> vitals.descendants()
                    .filter(p -> p.info().command().orElse("").endsWith("sleep")).count() >= 2);
            List<ProcessHandle> tree = new ArrayList<>();
            vitals.descendants().forEach(tree::add);
            new ProcessBuilder("kill", "-TERM", Long.toString(vitals.pid())).start().waitFor(10, TimeUnit.SECONDS);
            assertThat(vitals.waitFor(60, TimeUnit.SECONDS)).as("vitals replay ends after SIGTERM").isTrue();
            String err = Files.readString(dir.resolve("err.txt"), StandardCharsets.UTF_8);
            assertThat(vitals.exitValue()).as(err).isEqualTo(143);
            assertThat(err).startsWith("vitals: interrupted by SIGTERM: replay stopped after ")
                    .contains("reports written, marked interrupted").doesNotContain("Exception");
            JsonNode report = new ObjectMapper().readTree(json.toFile());
            assertThat(report.path("interruption").path("signal").asText()).isEqualTo("SIGTERM");
            assertThat(report.path("verdict").asText()).isEqualTo("INTERRUPTED");
            assertThat(report.path("interrupted").asBoolean()).isTrue();
            assertThat(report.path("passed").isBoolean() && !report.path("passed").asBoolean()).as("passed: false").isTrue();
            assertThat(report.path("runs").isArray()).isTrue();
            assertThat(Files.readString(html.resolve("index.html"), StandardCharsets.UTF_8)).contains("<b>Interrupted</b> by SIGTERM");
            assertThat(Files.readString(dir.resolve("out.txt"), StandardCharsets.UTF_8)).contains("verdict: INTERRUPTED");
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() ->
                    assertThat(tree).as("processes left by the replay").noneMatch(ProcessHandle::isAlive));
        } finally {
            vitals.descendants().forEach(ProcessHandle::destroyForcibly);
            vitals.destroyForcibly();
        }
    }

    /**
     * Whether this JVM ignores the signal (its {@code SigIgn} mask in /proc/self/status): a job a
     * non-interactive shell puts in the background ignores SIGINT, and so does every child.
     */
    private static boolean ignoredHere(String signal) throws java.io.IOException {
        int number = signal.equals("HUP") ? 1 : signal.equals("INT") ? 2 : signal.equals("TERM") ? 15 : 0;
        for (String line : Files.readAllLines(java.nio.file.Path.of("/proc/self/status"))) {
            if (line.startsWith("SigIgn:")) {
                long mask = Long.parseUnsignedLong(line.substring(7).trim(), 16);
                return number > 0 && (mask & (1L << (number - 1))) != 0;
            }
        }
        return false;
    }
}
