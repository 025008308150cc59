package dev.vitals.kubesim.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.vitals.kubesim.model.ContainerRuntime;
import dev.vitals.kubesim.model.Resources;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Issue 40: a target that double-forks ({@code ( cmd & )}, as shell entrypoints do) or starts a
 * child in a new session ({@code setsid}) left its grandchildren running through kills, restarts,
 * the end of the run and Ctrl-C. Now every way an instance ends takes every process of it, found
 * by its cgroup or, where none can be made, its process group; the test reads the process table
 * ({@code /proc}) for the grandchild by a unique argument and by the cgroup or group it was in.
 */
class NoProcessOutlivesItsContainerTest {
    private final List<ContainerRuntime.Instance> started = new ArrayList<>();

    @AfterEach
    void cleanUp() {
        ProcessReaper.reapAll(Duration.ZERO);
    }

    enum Ending { KILL, MAIN_EXITS, SHUTDOWN, INTERRUPT }

    @ParameterizedTest(name = "{0}, {1}, {2}")
    @CsvSource({
        "CGROUP, double fork, KILL", "CGROUP, double fork, MAIN_EXITS", "CGROUP, double fork, SHUTDOWN",
        "CGROUP, double fork, INTERRUPT",
        "CGROUP, setsid, KILL", "CGROUP, setsid, MAIN_EXITS", "CGROUP, setsid, SHUTDOWN", "CGROUP, setsid, INTERRUPT",
        "PROCESS_GROUP, double fork, KILL", "PROCESS_GROUP, double fork, MAIN_EXITS",
        "PROCESS_GROUP, double fork, SHUTDOWN", "PROCESS_GROUP, double fork, INTERRUPT"})
    void aGrandchildEndsWithItsInstance(ProcessRuntime.Containment containment, String how, Ending ending)
            throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/proc/self")), "reads the process table in /proc");
        assumeTrue(ResourceLimits.setsid().isPresent(), "setsid(1) is on the PATH");
        if (containment == ProcessRuntime.Containment.CGROUP) {
            assumeTrue(ResourceLimits.bareCgroupAvailable(), "this user can create cgroups");
        }
        // A unique sleep length marks the grandchild in the process table.
        String marker = "31" + ThreadLocalRandom.current().nextInt(1_000, 10_000) + "." + ProcessHandle.current().pid();
        String fork = how.equals("setsid") ? "( setsid sleep " + marker + " & )" : "( sleep " + marker + " & )";
        String rest = ending == Ending.MAIN_EXITS ? "; sleep 1; exit 3" : "; exec sleep 300";
        ProcessRuntime runtime = new ProcessRuntime(List.of("sh", "-c", fork + rest), ProcessBuilder.Redirect.DISCARD,
                Map.of(), null, ResourceLimits.of(Resources.NONE), containment);
        CompletableFuture<Integer> exit = new CompletableFuture<>();
        ContainerRuntime.Instance instance = runtime.start(1, exit::complete);
        started.add(instance);

        long grandchild = await().atMost(Duration.ofSeconds(20)).until(() -> withArgument(marker), Optional::isPresent).get();
        long main = Long.parseLong(instance.describe().substring("pid ".length()));
        assertThat(ProcessHandle.of(grandchild).flatMap(ProcessHandle::parent).map(ProcessHandle::pid))
                .as("orphaned: not a child of the main process").isNotEqualTo(Optional.of(main));
        String cgroup = cgroupOf(grandchild, "cpu");
        long group = Enclosure.processGroupOf(Path.of("/proc/" + grandchild)).orElseThrow();
        if (containment == ProcessRuntime.Containment.CGROUP) {
            assertThat(cgroup).as("the grandchild is in the instance's cgroup").contains("/vitals-");
        } else {
            assertThat(group).as("the grandchild is in the instance's process group").isEqualTo(main);
        }

        switch (ending) {
            case KILL:
                instance.kill();
                break;
            case MAIN_EXITS: // a crash, then a restart: the kubelet starts a new instance
                break;
            case SHUTDOWN:
                instance.shutdown(Duration.ofSeconds(2));
                break;
            case INTERRUPT:
                assertThat(ProcessReaper.reapAll(Duration.ofSeconds(2))).isGreaterThanOrEqualTo(2);
                break;
            default:
                throw new AssertionError(ending);
        }
        assertThat(exit.get(30, TimeUnit.SECONDS)).isNotNull();
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            assertThat(withArgument(marker)).as("the grandchild, by its argument").isEmpty();
            if (containment == ProcessRuntime.Containment.CGROUP) {
                assertThat(inCgroup(cgroup)).as("processes in " + cgroup).isEmpty();
            } else {
                assertThat(inGroup(group)).as("processes in group " + group).isEmpty();
            }
        });
        if (ending != Ending.INTERRUPT) {
            assertThat(runtime.reapedProcesses()).as("the report's count").isEqualTo(1);
        }
    }

    @Test
    void aSimulationOfADoubleForkingTargetLeavesNoProcessAndItsSummarySaysHowManyWereReaped() throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/proc/self")), "reads the process table in /proc");
        String marker = "32" + ThreadLocalRandom.current().nextInt(1_000, 10_000) + "." + ProcessHandle.current().pid();
        dev.vitals.kubesim.model.PodSpec pod = dev.vitals.kubesim.model.PodSpec.of("app", Map.of(), Optional.empty(),
                Optional.empty(), Optional.empty());
        // crashes after a second and restarts: each instance leaves a double-forked sleep behind
        dev.vitals.kubesim.result.SimulationResult r = dev.vitals.kubesim.Simulation.builder(pod)
                .command(List.of("sh", "-c", "( sleep " + marker + " & ) ; sleep 1; exit 1"))
                .duration(Duration.ofSeconds(4)).build().run();
        assertThat(r.restarts()).isPositive();
        assertThat(withArgument(marker)).as("no grandchild outlives the run").isEmpty();
        String summary = dev.vitals.kubesim.report.Reports.summary(r, pod);
        assertThat(summary).containsPattern("  reaped            [1-9][0-9]* process(es)? besides the main one, ended with"
                + " their instance \\(found by (cgroup|process group|descendants)\\)");
    }

    private static Optional<Long> withArgument(String arg) throws IOException {
        for (Path p : procs()) {
            try {
                String cmdline = Files.readString(p.resolve("cmdline"), StandardCharsets.ISO_8859_1);
                if (List.of(cmdline.split("\0")).contains(arg) && !isZombie(p)) {
                    return Optional.of(Long.parseLong(p.getFileName().toString()));
                }
            } catch (IOException e) {
                // gone meanwhile
            }
        }
        return Optional.empty();
    }

    private static List<Long> inCgroup(String cgroup) throws IOException {
        List<Long> out = new ArrayList<>();
        for (Path p : procs()) {
            try {
                if (cgroupOf(Long.parseLong(p.getFileName().toString()), "cpu").equals(cgroup) && !isZombie(p)) {
                    out.add(Long.parseLong(p.getFileName().toString()));
                }
            } catch (IOException e) {
                // gone meanwhile
            }
        }
        return out;
    }

    private static List<Long> inGroup(long group) throws IOException {
        List<Long> out = new ArrayList<>();
        for (Path p : procs()) {
            if (Enclosure.processGroupOf(p).orElse(-1L) == group) {
                out.add(Long.parseLong(p.getFileName().toString()));
            }
        }
        return out;
    }

    private static boolean isZombie(Path proc) throws IOException {
        String stat = Files.readString(proc.resolve("stat"), StandardCharsets.ISO_8859_1);
        return stat.substring(stat.lastIndexOf(')') + 2).startsWith("Z");
    }

    /** @return the process's cgroup in the v1 hierarchy of {@code controller}, or its v2 one */
    private static String cgroupOf(long pid, String controller) throws IOException {
        String v2 = "";
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/cgroup"))) {
            String[] f = line.split(":", 3);
            if (f.length == 3 && List.of(f[1].split(",")).contains(controller)) {
                return f[2];
            }
            if (f.length == 3 && f[0].equals("0")) {
                v2 = f[2];
            }
        }
        return v2;
    }

    private static List<Path> procs() throws IOException {
        List<Path> out = new ArrayList<>();
        try (DirectoryStream<Path> d = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
            d.forEach(out::add);
        }
        return out;
    }
}
