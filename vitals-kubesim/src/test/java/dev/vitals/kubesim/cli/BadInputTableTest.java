package dev.vitals.kubesim.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.vitals.kubesim.yaml.InputFiles;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.RandomAccessFile;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 30: a table of bad command lines across {@code simulate}, {@code lint}, {@code replay} and
 * {@code fleet} (bad durations, sizes, counts, types, options, files, devices, FIFOs, commands,
 * outputs, signals past the run's end), one per row in {@code bad-inputs.tsv}. Every row must end
 * with the row's exit code (2: bad input, found before anything runs), exactly one line on stderr,
 * no Java exception or stack frame in either stream, and no process left behind, within a per-row
 * timeout (a hang is a failure, not a wait).
 *
 * <p>The CLI runs in-process through {@link VitalsCommand#execute} (no {@code System.exit}, no signal
 * handlers); a FIFO nobody writes to is read with a 1 s deadline
 * ({@link InputFiles#PIPE_TIMEOUT_PROPERTY}) instead of 30 s.
 */
class BadInputTableTest {
    /** A row that takes longer has hung (the slowest, a FIFO, waits 1 s; the rest are refused at once). */
    private static final Duration PER_ROW = Duration.ofSeconds(20);
    private static final Set<String> STACK_MARKS = Set.of("Exception", "at dev.", "at java.", "at picocli.", "Error:",
            "\tat ");

    @TempDir
    static Path dir;
    private static String previousPipeTimeout;
    /** This JVM's children before the table (a /proc scan each; once here, once after each row). */
    private static Set<Long> before;

    @BeforeAll
    static void fixtures() throws Exception {
        previousPipeTimeout = System.setProperty(InputFiles.PIPE_TIMEOUT_PROPERTY, "1");
        before = children();
        String container = "  - name: app\n    image: x\n    ports: [{name: http, containerPort: 8080}]\n"
                + "    livenessProbe: {httpGet: {path: /livez, port: http}, periodSeconds: 1}\n";
        write("ok.yaml", "kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n" + container);
        write("two-containers.yaml", "kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n" + container
                + container.replace("name: app", "name: db"));
        write("empty.yaml", "");
        write("blank.yaml", "# nothing here\n\n---\n");
        byte[] garbage = new byte[4096];
        new Random(30).nextBytes(garbage);
        Files.write(dir.resolve("garbage.bin"), garbage);
        try (RandomAccessFile f = new RandomAccessFile(dir.resolve("huge.yaml").toFile(), "rw")) {
            f.setLength(InputFiles.MAX_BYTES + 1); // sparse: costs no disk
        }
        write("deep-seq.yaml", "[".repeat(20_000) + "]".repeat(20_000) + "\n");
        write("deep-map.yaml", "{a: ".repeat(20_000) + "1" + "}".repeat(20_000) + "\n");
        write("malformed.yaml", "kind: [unclosed\n  x: {\n");
        write("tabs.yaml", "kind: Pod\nspec:\n\tcontainers: []\n");
        Files.write(dir.resolve("not-utf8.yaml"), new byte[] {'k', 'i', 'n', 'd', ':', ' ', (byte) 0xff, (byte) 0xfe, '\n'});
        write("service.yaml", "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {ports: [{port: 80}]}\n");
        write("list.yaml", "- a\n- b\n");
        write("scalar.yaml", "hello\n");
        write("bad.json", "{\"kind\": \"Pod\", \"spec\": ");
        write("wrong-types.yaml", "kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: app\n"
                + "    livenessProbe: {httpGet: {path: /, port: 8080}, periodSeconds: abc}\n");
        StringBuilder bomb = new StringBuilder("a: &a [x, x, x, x, x, x, x, x, x]\n");
        for (char c = 'b'; c <= 'k'; c++) {
            bomb.append(c).append(": &").append(c).append(" [").append(("*" + (char) (c - 1) + ", ").repeat(9)).append("x]\n");
        }
        write("aliases.yaml", bomb.toString());
        write("helm.yaml", "kind: Pod\nmetadata:\n  name: {{ .Release.Name }}\nspec:\n  containers: []\n");
        Path unreadable = write("unreadable.yaml", "kind: Pod\n");
        Files.setPosixFilePermissions(unreadable, PosixFilePermissions.fromString("---------"));
        Process mkfifo = new ProcessBuilder("mkfifo", dir.resolve("fifo").toString()).start();
        assertThat(mkfifo.waitFor(10, TimeUnit.SECONDS) && mkfifo.exitValue() == 0).as("mkfifo").isTrue();
        Path script = write("not-executable.sh", "#!/bin/sh\nsleep 60\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rw-r--r--"));
        // scenarios
        write("empty-list-scenario.yaml", "- 1\n- 2\n");
        write("scenario-past-end.yaml", "duration: 5s\nactions:\n  - at: 10s\n    signal: HUP\n");
        write("scenario-at-end.yaml", "duration: 5s\nactions:\n  - at: 5s\n    pause: true\n");
        write("scenario-signal.yaml", "duration: 30s\nactions:\n  - at: 20s\n    signal: HUP\n");
        write("scenario-bad-signal.yaml", "duration: 5s\nactions:\n  - at: 1s\n    signal: NOSUCH\n");
        write("scenario-unknown-action.yaml", "duration: 5s\nactions:\n  - at: 1s\n    teleport: now\n");
        write("scenario-negative-at.yaml", "duration: 5s\nactions:\n  - at: -1s\n    signal: HUP\n");
        write("scenario-zero-duration.yaml", "duration: 0s\n");
        write("scenario-huge-duration.yaml", "duration: 99999h\n");
        write("scenario-bad-expect.yaml", "duration: 5s\nexpect:\n  - restarts ==\n");
        write("scenario-unknown-proxy.yaml", "duration: 5s\nactions:\n  - at: 1s\n    fault: db refuse\n");
        write("scenario-unknown-field.yaml", "duration: 5s\nteleport: yes\n");
        write("scenario-load-bad-method.yaml", "duration: 5s\nactions:\n  - at: 1s\n"
                + "    load: {count: 5, concurrency: 1, method: TELEPORT, path: /, port: 8080, timeout: 1s}\n");
        // fleet models
        String fleet = "replicas: 3\nduration: 30s\nreplica: {workers: 10, startTime: 2s}\nprobes:\n  server: isolated\n"
                + "  liveness: {periodSeconds: 10, timeoutSeconds: 1, failureThreshold: 3}\n"
                + "  readiness: {periodSeconds: 5, timeoutSeconds: 1, failureThreshold: 3}\n"
                + "clients:\n  - {name: users, rate: 10, serviceTime: 10ms, timeout: 1s}\n";
        write("fleet-ok.yaml", fleet);
        write("fleet-zero-replicas.yaml", fleet.replace("replicas: 3", "replicas: 0"));
        write("fleet-huge.yaml", fleet.replace("replicas: 3", "replicas: 5000").replace("duration: 30s", "duration: 100000h")
                .replace("rate: 10,", "rate: 1000000,"));
        write("fleet-unknown-field.yaml", fleet + "teleport: yes\n");
        write("fleet-bad-duration.yaml", fleet.replace("duration: 30s", "duration: -5s"));
        write("fleet-no-clients.yaml", fleet.substring(0, fleet.indexOf("clients:")));
        write("fleet-negative-rate.yaml", fleet.replace("rate: 10,", "rate: -10,"));
        write("fleet-action-past-end.yaml", fleet + "actions: [{at: 60s, kill: 0}]\n");
        write("fleet-bad-server.yaml", fleet.replace("server: isolated", "server: sideways"));
        write("fleet-kill-at-20s.yaml", fleet + "actions: [{at: 20s, kill: 0}]\n");
        write("fleet-long-timeout.yaml", fleet.replace("timeout: 1s", "timeout: 1000h"));
        write("fleet-rollout-bad.yaml", fleet + "rollout: {strategy: {maxSurge: 0, maxUnavailable: 0}}\n");
        write("fleet-long-propagation.yaml", fleet + "service: {propagationDelay: 25h}\n");
        // outputs that are inputs (each its own file: a regression would empty it)
        write("self-lint.yaml", "kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n" + container);
        Files.createSymbolicLink(dir.resolve("self-lint-link.yaml"), dir.resolve("self-lint.yaml"));
        write("self-simulate.yaml", "kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n" + container);
        write("self-scenario.yaml", "duration: 5s\n");
        write("self-fleet.yaml", fleet);
        write("prestop-sleep-4.yaml", "kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n" + container
                + "    lifecycle: {preStop: {sleep: {seconds: 4}}}\n");
    }

    @AfterAll
    static void restore() {
        if (previousPipeTimeout == null) {
            System.clearProperty(InputFiles.PIPE_TIMEOUT_PROPERTY);
        } else {
            System.setProperty(InputFiles.PIPE_TIMEOUT_PROPERTY, previousPipeTimeout);
        }
    }

    private static Path write(String name, String text) throws IOException {
        return Files.writeString(dir.resolve(name), text, StandardCharsets.UTF_8);
    }

    static Stream<Arguments> rows() throws IOException {
        List<Arguments> rows = new ArrayList<>();
        try (InputStream in = BadInputTableTest.class.getResourceAsStream("bad-inputs.tsv")) {
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                String[] f = line.split("\t", -1);
                rows.add(Arguments.of(f[0], Integer.parseInt(f[1]), List.of(Arrays.copyOfRange(f, 2, f.length))));
            }
        }
        return rows.stream();
    }

    @Test
    void theTableHasAtLeast150RowsAcrossTheFourCommands() throws IOException {
        List<String> commands = rows().map(a -> ((List<?>) a.get()[2]).isEmpty() ? "" : (String) ((List<?>) a.get()[2]).get(0))
                .collect(Collectors.toList());
        assertThat(commands).hasSizeGreaterThanOrEqualTo(150).contains("simulate", "lint", "replay", "fleet");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void aBadCommandLineIsOneLineAndItsExitCode(String name, int exit, List<String> template) {
        List<String> args = template.stream().map(a -> a.replace("{D}", dir.toString())).collect(Collectors.toList());
        if (name.contains("unreadable")) {
            Assumptions.assumeFalse(Files.isReadable(dir.resolve("unreadable.yaml")),
                    "mode 000 does not stop this user (root) from reading");
        }
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = assertTimeoutPreemptively(PER_ROW, () -> VitalsCommand.execute(new PrintWriter(out, true),
                new PrintWriter(err, true), args.toArray(String[]::new)), () -> name + " hung; stderr so far: " + err);
        String what = name + " → exit " + code + "\nstderr: " + err + "\nstdout: " + out;
        assertThat(code).as(what).isEqualTo(exit);
        assertThat(err.toString().strip().lines().count()).as("one line on stderr: " + what).isEqualTo(1);
        assertThat(err.toString()).as(what).startsWith("error: ");
        for (String mark : STACK_MARKS) {
            assertThat(err.toString()).as(what).doesNotContain(mark);
            assertThat(out.toString()).as(what).doesNotContain(mark);
        }
        assertThat(children()).as("processes left by " + name).isSubsetOf(before);
    }

    /** @return this JVM's live child processes (a bad input must start none, or reap what it started) */
    private static Set<Long> children() {
        return ProcessHandle.current().children().filter(ProcessHandle::isAlive).map(ProcessHandle::pid)
                .collect(Collectors.toSet());
    }
}
