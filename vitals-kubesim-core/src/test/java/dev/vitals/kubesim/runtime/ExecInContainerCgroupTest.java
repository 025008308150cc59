package dev.vitals.kubesim.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.vitals.kubesim.Simulation;
import dev.vitals.kubesim.result.SimulationResult;
import dev.vitals.kubesim.manifest.ManifestReader;
import dev.vitals.kubesim.model.PodSpec;
import dev.vitals.kubesim.model.ProbeHandler;
import dev.vitals.kubesim.model.ProbeSpec;
import dev.vitals.kubesim.model.ProbeType;
import dev.vitals.kubesim.model.Resources;
import dev.vitals.kubesim.model.SimEvent;
import dev.vitals.kubesim.model.ProbeOutcome;
import dev.vitals.kubesim.model.ProbeResult;
import dev.vitals.kubesim.probe.Prober;
import dev.vitals.kubesim.model.ContainerRuntime;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Exec probes and exec hooks run inside the container instance's cgroup, as the container
 * runtime's exec (CRI ExecSync; kubelet pkg/kubelet/prober/prober.go newExecInContainer,
 * pkg/kubelet/lifecycle/handlers.go runner.RunInContainer) runs them: the container's CPU quota
 * holds for the probe too. On this machine's real cgroups; skipped where no driver is available.
 */
class ExecInContainerCgroupTest {

    @BeforeAll
    static void cgroups() {
        Cgroup.Availability a = Cgroup.detect();
        assumeTrue(a.driver().isPresent(), "no cgroup driver here: " + a.reason());
    }

    /** @return the {@code cpu} and {@code memory} lines of a {@code /proc/<pid>/cgroup} text (v1), or its {@code 0::} line (v2) */
    private static String cpuAndMemory(String procCgroup) {
        return Arrays.stream(procCgroup.split("\n"))
                .filter(l -> l.matches("\\d+:(.*,)?(cpu|memory)(,.*)?:.*") || l.startsWith("0::"))
                .sorted().collect(Collectors.joining("\n"));
    }

    private static String procCgroup(long pid) {
        try {
            return Files.readString(Path.of("/proc/" + pid + "/cgroup"));
        } catch (java.io.IOException e) {
            return "";
        }
    }

    @Test
    void anExecProbeAndAnExecHookRunInTheContainersCgroupAndACpuBoundProbeIsThrottledByItsQuota(@TempDir Path dir)
            throws Exception {
        Path hookSaw = dir.resolve("hook-cgroup");
        Path probeSaw = Files.createDirectory(dir.resolve("probes"));
        Path manifest = dir.resolve("pod.yaml");
        // ($$$$: a probe's command is $(VAR)-expanded, $$ is a literal $; a hook's is not expanded)
        // each readiness probe notes its cgroup (in a file of its own, renamed once complete: the run's end may
        // kill a probe mid-write), then spins until its 1 s timeout kills it
        Files.writeString(manifest, "kind: Pod\nmetadata: {name: exec}\nspec:\n  containers:\n  - name: app\n"
                + "    lifecycle:\n      postStart:\n        exec:\n          command: [sh, -c, 'cat /proc/$$/cgroup > " + hookSaw + "']\n"
                + "    readinessProbe:\n      exec:\n        command: [sh, -c, 'cat /proc/$$$$/cgroup > " + probeSaw + "/$$$$.tmp && mv "
                + probeSaw + "/$$$$.tmp " + probeSaw + "/$$$$.txt; while :; do :; done']\n      timeoutSeconds: 1\n      periodSeconds: 2\n");
        ManifestReader.ContainerEntry entry = ManifestReader.read(manifest).select(Optional.empty());
        PodSpec pod = entry.toPodSpec();
        // limits.cpu 50m: 5 ms of CPU per 100 ms period. The request is set to a whole CPU (the host's default
        // weight, 1024 shares): with the request defaulted to the limit (51 shares) a loaded shared host could keep
        // the group below its quota, and it is the quota this test is about. The API server would refuse
        // requests > limits; the cgroup takes it.
        Resources res = new Resources(OptionalLong.of(50), OptionalLong.of(1000), OptionalLong.of(128L << 20));
        List<SimEvent> events = new CopyOnWriteArrayList<>();
        CompletableFuture<Long> pid = new CompletableFuture<>();
        Simulation sim = Simulation.builder(pod).resources(res).command(List.of("sleep", "600"))
                .duration(Duration.ofSeconds(8)).listener(e -> {
                    events.add(e);
                    if (e.type() == SimEvent.Type.START) {
                        pid.complete(Long.parseLong(e.detail().replaceAll("^pid (\\d+).*", "$1")));
                    }
                }).build();
        CompletableFuture<SimulationResult> run = CompletableFuture.supplyAsync(() -> {
            try {
                return sim.run();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        long container = pid.get(30, TimeUnit.SECONDS);
        // the container's process joins its cgroup (vitals-<pid>-<n>) before it execs sleep
        Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> procCgroup(container).contains("/vitals-"));
        String containerCgroups = cpuAndMemory(procCgroup(container));
        SimulationResult r = run.get(90, TimeUnit.SECONDS);

        String self = cpuAndMemory(procCgroup(ProcessHandle.current().pid()));
        assertThat(containerCgroups).isNotEqualTo(self).contains("/vitals-");
        assertThat(cpuAndMemory(Files.readString(hookSaw))).as("postStart exec hook").isEqualTo(containerCgroups);
        List<Path> saw;
        try (var files = Files.list(probeSaw)) {
            saw = files.filter(f -> f.toString().endsWith(".txt")).toList();
        }
        assertThat(saw).isNotEmpty();
        for (Path p : saw) {
            assertThat(cpuAndMemory(Files.readString(p))).as("readiness exec probe " + p).isEqualTo(containerCgroups);
        }

        // every probe timed out: under 5 ms per 100 ms the loop cannot be done within 1 s (it never ends anyway)
        assertThat(r.stats(ProbeType.READINESS).failures()).isPositive();
        List<SimEvent> probes = events.stream().filter(e -> e.type() == SimEvent.Type.PROBE).toList();
        assertThat(probes).noneMatch(e -> e.result().orElseThrow() == ProbeResult.SUCCESS)
                .anySatisfy(e -> assertThat(e.detail()).contains("timed out"));
        // the cgroup's own counters: the CPU the probes burnt is the container's (sleep burns none), held to the
        // quota, and the quota throttled them
        ResourceUsage u = r.limits().orElseThrow().instances().get(0).usage();
        double ran = dev.vitals.kubesim.model.Durations.seconds(r.duration()) + 5; // at most the run plus its shutdown
        assertThat(dev.vitals.kubesim.model.Durations.seconds(u.cpu().orElseThrow())).isGreaterThan(0.02).isLessThan(0.05 * ran * 1.5 + 0.05);
        assertThat(u.throttledPeriods()).isPositive();
        assertThat(u.throttled()).isPositive();
        System.out.println("exec probe in the container's cgroup under 50m: " + u.describe());
    }

    @Test
    void anExecProbeOfAnInstanceThatExitedErrorsAsTheRuntimesExecDoes() throws Exception {
        Resources res = new Resources(OptionalLong.of(500), OptionalLong.empty(), OptionalLong.of(128L << 20));
        ProcessRuntime runtime = new ProcessRuntime(List.of("sleep", "600"), ProcessBuilder.Redirect.DISCARD, Map.of(), null,
                ResourceLimits.of(res));
        Prober prober = new Prober("127.0.0.1", Map.of(), "1.36").inContainer(runtime::execArgv);
        ProbeSpec probe = ProbeSpec.builder(ProbeType.LIVENESS).handler(new ProbeHandler.Exec(List.of("true"))).build();
        CompletableFuture<Integer> exited = new CompletableFuture<>();
        ContainerRuntime.Instance one = runtime.start(1, exited::complete);
        try {
            assertThat(runtime.execArgv(1, List.of("true"))).hasValueSatisfying(a -> assertThat(a).startsWith("sh", "-c")
                    .endsWith("--", "true"));
            assertThat(prober.probe(probe, 1).result()).isEqualTo(ProbeResult.SUCCESS);
            // instance 2 was never started: nothing to exec in
            ProbeOutcome none = prober.probe(probe, 2);
            assertThat(none.result()).isEqualTo(ProbeResult.ERROR);
            assertThat(none.message()).isEqualTo("failed to exec in container: container instance 2 is not running");
        } finally {
            one.kill();
        }
        assertThat(exited.get(30, TimeUnit.SECONDS)).isEqualTo(137);
        Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> runtime.execArgv(1, List.of("true")).isEmpty());
        assertThat(prober.probe(probe, 1).result()).isEqualTo(ProbeResult.ERROR);
        assertThat(prober.runHook(new ProbeHandler.Exec(List.of("true")), 1, Duration.ofSeconds(5)))
                .hasValueSatisfying(m -> assertThat(m).endsWith("container instance 1 is not running"));
    }
}
