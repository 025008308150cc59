package dev.vitals.kubesim.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 40: the CLI never hangs and never passes silently. A FIFO nobody reads is an error after
 * a short wait; a target that exists but cannot be executed is one line and exit 2 before any
 * probe; a probe field the kubelet does not have is an error, never dropped; a properties file
 * that is not one is an error; an interrupted run's JSON says it did not pass; a bad
 * {@code fleet calibrate} leaves no temporary directory.
 */
class CliNeverHangsTest {
    @TempDir
    Path dir;

    private record Run(int code, String out, String err) {
    }

    private static Run vitals(String... args) {
        return assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            int code = VitalsCommand.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
            return new Run(code, out.toString(), err.toString());
        });
    }

    @Test
    void jsonAtAFifoWithNoReaderIsAnErrorAfterAShortWait() throws Exception {
        Path fifo = dir.resolve("report.fifo");
        Process mk = new ProcessBuilder("mkfifo", fifo.toString()).start();
        assumeTrue(mk.waitFor() == 0, "mkfifo works here");
        long start = System.nanoTime();
        Run r = vitals("simulate", "-q", "--liveness", "tcp://:1", "--duration", "2s", "--json", fifo.toString(), "--", "sleep", "30");
        long ms = (System.nanoTime() - start) / 1_000_000;
        assertThat(r.code).as(r.err).isEqualTo(2);
        assertThat(r.err.strip()).isEqualTo("error: --json " + fifo + ": a pipe or device with no reader (waited 2 s to open it)");
        assertThat(r.out).as("nothing ran").isEmpty();
        assertThat(ms).as("the wait, not the run").isLessThan(30_000);
    }

    @Test
    void aTargetThatExistsButCannotBeExecutedIsOneLineAndExit2BeforeAnyProbe() throws Exception {
        Path text = Files.writeString(dir.resolve("hostname"), "vm\n");
        Files.setPosixFilePermissions(text, PosixFilePermissions.fromString("rwxr-xr-x"));
        Run r = vitals("simulate", "-q", "--liveness", "tcp://:1", "--duration", "2s", "--", text.toString());
        assertThat(r.code).isEqualTo(2);
        assertThat(r.err.strip()).isEqualTo("error: cannot start the target: " + text + ": exec format error (neither a"
                + " binary nor a script starting with #!; a container runtime cannot run it)");
        assertThat(r.out).isEmpty();
        Files.setPosixFilePermissions(text, PosixFilePermissions.fromString("rw-r--r--"));
        Run plain = vitals("simulate", "-q", "--liveness", "tcp://:1", "--duration", "2s", "--", text.toString());
        assertThat(plain.code).isEqualTo(2);
        assertThat(plain.err).contains(": not executable");
        Path script = Files.writeString(dir.resolve("run.sh"), "#!/bin/sh\nexec sleep 30\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        Run ok = vitals("simulate", "-q", "--liveness", "tcp://:1,failureThreshold=100", "--duration", "1s", "--", script.toString());
        assertThat(ok.err).doesNotContain("cannot start");
    }

    @Test
    void aProbeFieldTheKubeletDoesNotHaveIsAnErrorNeverDropped() throws Exception {
        Path manifest = Files.writeString(dir.resolve("pod.yaml"), "kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n"
                + "  - name: app\n    livenessProbe:\n      grpc: {port: 9090, mode: TLS}\n      periodSeconds: 1\n");
        Run sim = vitals("simulate", "-q", "--manifest", manifest.toString(), "--duration", "2s", "--", "sleep", "30");
        assertThat(sim.code).isEqualTo(2);
        assertThat(sim.err).contains("livenessProbe.grpc.mode").contains("unknown field \"mode\"").contains("plaintext");
        assertThat(sim.out).doesNotContain("PASS");
        Run lint = vitals("lint", manifest.toString());
        assertThat(lint.code).isEqualTo(1);
        assertThat(lint.out).contains("unknown field \"mode\"").contains("plaintext");
    }

    @Test
    void aPropertiesFileThatIsNotOneIsAnError() throws Exception {
        Path manifest = Files.writeString(dir.resolve("pod.yaml"), "kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n"
                + "  - name: app\n    ports: [{containerPort: 8080}]\n"
                + "    livenessProbe: {httpGet: {path: /actuator/health/liveness, port: 8080}}\n");
        Path yamlShaped = Files.writeString(dir.resolve("application.properties"), "management:\n  server:\n    port: 9090\n");
        Run r = vitals("lint", manifest.toString(), "--app-config", yamlShaped.toString());
        assertThat(r.code).isEqualTo(2);
        assertThat(r.err.strip()).startsWith("error: " + yamlShaped + ":1: 'management:' followed by an indented line is YAML");
        Path binary = dir.resolve("binary.properties");
        Files.write(binary, new byte[] {'a', '=', 1, 2, 0});
        Run b = vitals("lint", manifest.toString(), "--app-config", binary.toString());
        assertThat(b.code).isEqualTo(2);
        assertThat(b.err).contains("control character 0x1: not a properties file");
    }

    @Test
    void anInterruptedRunsJsonSaysPassedFalseAndInterruptedTrue() throws Exception {
        JsonNode marked = new ObjectMapper().readTree(Interrupts.markJson("{\"passed\":true,\"runs\":[{\"passed\":true}]}", 4.2));
        assertThat(marked.path("passed").isBoolean()).isTrue();
        assertThat(marked.path("passed").asBoolean()).isFalse();
        assertThat(marked.path("interrupted").asBoolean()).isTrue();
        assertThat(marked.path("interruption").path("afterSeconds").asDouble()).isEqualTo(4.2);
        assertThat(marked.path("verdict").asText()).isEqualTo("INTERRUPTED");
    }

    @Test
    void aBadFleetCalibrateLeavesNoTemporaryDirectory() throws Exception {
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        List<Path> before = calibrateDirs(tmp);
        Run r = vitals("fleet", "calibrate", "--requests", "1", "--", "sleep", "30");
        assertThat(r.code).isEqualTo(2);
        assertThat(r.err).contains("--requests must be 5-10000, was 1");
        assertThat(calibrateDirs(tmp)).as("temporary directories left").isEqualTo(before);
    }

    private static List<Path> calibrateDirs(Path tmp) throws Exception {
        try (Stream<Path> s = Files.list(tmp)) {
            return s.filter(p -> p.getFileName().toString().startsWith("vitals-calibrate-")).sorted().collect(Collectors.toList());
        }
    }
}
