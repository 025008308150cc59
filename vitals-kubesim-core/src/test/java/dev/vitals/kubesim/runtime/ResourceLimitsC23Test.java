package dev.vitals.kubesim.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.vitals.kubesim.Simulation;
import dev.vitals.kubesim.Targets;
import dev.vitals.kubesim.manifest.ManifestReader;
import dev.vitals.kubesim.model.KubeletOptions;
import dev.vitals.kubesim.model.PodSpec;
import dev.vitals.kubesim.model.Resources;
import dev.vitals.kubesim.model.SimEvent;
import dev.vitals.kubesim.report.Reports;
import dev.vitals.kubesim.result.SimulationResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Case C23 on this machine's real cgroups: the container's process runs under the manifest's
 * CPU and memory limits, as the container runtime runs it. Needs a cgroup driver (root with
 * cgroup v1, or a writable cgroup v2 subtree); skipped, with the reason, where there is none.
 */
class ResourceLimitsC23Test {

    @BeforeAll
    static void cgroups() {
        Cgroup.Availability a = Cgroup.detect();
        assumeTrue(a.driver().isPresent(), "no cgroup driver here: " + a.reason());
    }

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** @return {@code cpu.cfs_quota_us cpu.cfs_period_us} of the v1 cpu cgroup of {@code pid} */
    private static String cpuQuotaOf(long pid) {
        try {
            String path = Cgroup.selfPath(Files.readString(Path.of("/proc/" + pid + "/cgroup")), "cpu").orElseThrow();
            Path dir = Path.of("/sys/fs/cgroup/cpu").resolve(path.substring(1));
            return Files.readString(dir.resolve("cpu.cfs_quota_us")).trim() + " " + Files.readString(dir.resolve("cpu.cfs_period_us")).trim();
        } catch (java.io.IOException | RuntimeException e) {
            return "unreadable: " + e;
        }
    }

    private static PodSpec noProbes() {
        return PodSpec.of("app", Map.of(), Optional.empty(), Optional.empty(), Optional.empty());
    }

    @Test
    void c23ACpuLimitOf200mHoldsACpuBoundTargetToTheQuota(@TempDir Path dir) throws Exception {
        Path manifest = dir.resolve("pod.yaml");
        Files.writeString(manifest, "kind: Pod\nmetadata: {name: spin}\nspec:\n  containers:\n  - name: app\n"
                + "    resources:\n      limits: {cpu: 200m, memory: 256Mi}\n");
        ManifestReader.ContainerEntry entry = ManifestReader.read(manifest).select(Optional.empty());
        assertThat(entry.resources().cpuLimitMillis()).hasValue(200);
        List<SimEvent> events = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.concurrent.CompletableFuture<Long> pid = new java.util.concurrent.CompletableFuture<>();
        Simulation sim = Simulation.builder(entry.toPodSpec()).resources(entry.resources())
                .command(List.of("sh", "-c", "while :; do :; done")).duration(Duration.ofSeconds(5)).listener(e -> {
                    events.add(e);
                    if (e.type() == SimEvent.Type.START) {
                        pid.complete(Long.parseLong(e.detail().replaceAll("^pid (\\d+).*", "$1")));
                    }
                }).build();
        java.util.concurrent.CompletableFuture<SimulationResult> run = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return sim.run();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        long p = pid.get(30, TimeUnit.SECONDS);
        // the process itself is in a cgroup with the kubelet's quota for 200m: 20 ms per 100 ms
        Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> cpuQuotaOf(p).equals("20000 100000"));
        SimulationResult r = run.get(60, TimeUnit.SECONDS);
        ResourceLimits.Report l = r.limits().orElseThrow();
        assertThat(l.applied()).as(l.status()).isTrue();
        assertThat(l.instances()).hasSize(1);
        ResourceUsage u = l.instances().get(0).usage();
        double started = events.stream().filter(e -> e.type() == SimEvent.Type.START).findFirst().orElseThrow().at().toNanos() / 1e9;
        double wall = dev.vitals.kubesim.model.Durations.seconds(r.duration()) - started + 5; // up to the end, plus at most the shutdown's wait
        // the process's CPU time, from the cgroup's own accounting: at most 200m of the time it ran
        assertThat(dev.vitals.kubesim.model.Durations.seconds(u.cpu().orElseThrow())).isGreaterThan(0.05).isLessThanOrEqualTo(0.2 * wall * 1.25);
        assertThat(dev.vitals.kubesim.model.Durations.seconds(u.cpu().orElseThrow())).isLessThan(0.2 * (dev.vitals.kubesim.model.Durations.seconds(r.duration()) - started) * 1.25 + 0.2);
        // nr_periods counts only under a CFS quota; throttling shows once the group gets near its quota
        // (on a busy shared host its 204 shares may keep it below, as a busy node does)
        assertThat(u.periods()).isPositive();
        if (dev.vitals.kubesim.model.Durations.seconds(u.cpu().orElseThrow()) > 0.2 * (dev.vitals.kubesim.model.Durations.seconds(r.duration()) - started) * 0.7) {
            assertThat(u.throttledPeriods()).isPositive();
            assertThat(u.throttled()).isPositive();
        }
        assertThat(Reports.summary(r, entry.toPodSpec())).contains("resources         cpu limit 200m, memory limit 256Mi: applied")
                .contains("throttled " + u.throttledPeriods() + " of " + u.periods() + " periods");
        System.out.println("C23 cpu: " + u.describe() + " in " + (dev.vitals.kubesim.model.Durations.seconds(r.duration()) - started) + " s of run");
    }

    @Test
    void c23AJvmUnderTheLimitsSeesOneProcessorAndAHeapFromTheMemoryLimit(@TempDir Path dir) throws Exception {
        Path report = dir.resolve("jvm.txt");
        Resources res = new Resources(OptionalLong.of(500), OptionalLong.empty(), OptionalLong.of(512L << 20));
        Simulation sim = Simulation.builder(noProbes()).resources(res)
                .command(List.of(java(), "-Xshare:auto", "-cp", Targets.classes(), LimitsTarget.class.getName(), "report",
                        report.toString()))
                .duration(Duration.ofSeconds(60)).build();
        Thread runner = new Thread(() -> {
            try {
                sim.run();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        runner.start();
        try {
            Awaitility.await().atMost(45, TimeUnit.SECONDS).until(() -> Files.exists(report));
        } finally {
            runner.interrupt();
            runner.join(20_000);
        }
        String[] seen = Files.readString(report).trim().split(" ");
        // a 500m quota is one processor to the JVM (ceil(quota/period)); this machine has more
        assertThat(Integer.parseInt(seen[0])).isEqualTo(1);
        long heap = Long.parseLong(seen[1]);
        // default MaxHeapSize is a quarter of the container's memory (MaxRAMPercentage 25): 128 MiB of 512 MiB,
        // not a quarter of the host's RAM
        assertThat(heap).isLessThanOrEqualTo(128L << 20).isGreaterThan(64L << 20);
        System.out.println("C23 jvm: availableProcessors " + seen[0] + " (host " + Runtime.getRuntime().availableProcessors()
                + "), maxMemory " + heap + " under 500m / 512Mi");
    }

    @Test
    void c23ATargetPastItsMemoryLimitIsOomKilledAndRestarted() throws Exception {
        Resources res = new Resources(OptionalLong.empty(), OptionalLong.empty(), OptionalLong.of(128L << 20));
        List<SimEvent> events = new java.util.concurrent.CopyOnWriteArrayList<>();
        PodSpec pod = noProbes();
        // The run ends as soon as the restarted instance has started (Simulation.Interrupted, the path a
        // signal takes: the kubelet stopped, the container shut down, what was measured kept), not after a
        // fixed 30 s; 30 s stays the bound for a slow machine.
        Simulation sim = Simulation.builder(pod).resources(res)
                .options(KubeletOptions.builder().initialBackoff(Duration.ofSeconds(1)).maxBackoff(Duration.ofSeconds(2)).build())
                .command(List.of(java(), "-Xshare:auto", "-XX:+UseSerialGC", "-Xmx1g", "-cp", Targets.classes(),
                        LimitsTarget.class.getName(), "allocate", "512"))
                .duration(Duration.ofSeconds(30)).listener(events::add).build();
        java.util.concurrent.CompletableFuture<SimulationResult> result = new java.util.concurrent.CompletableFuture<>();
        Thread runner = new Thread(() -> {
            try {
                result.complete(sim.run());
            } catch (Simulation.Interrupted e) {
                result.complete(e.partial());
            } catch (InterruptedException | RuntimeException e) {
                result.completeExceptionally(e);
            }
        }, "c23-oom-run");
        runner.start();
        Awaitility.await().atMost(40, TimeUnit.SECONDS).until(() -> result.isDone()
                || events.stream().anyMatch(e -> e.type() == SimEvent.Type.START && e.instance() == 2));
        runner.interrupt();
        SimulationResult r = result.get(30, TimeUnit.SECONDS);
        List<SimEvent> exits = new ArrayList<>(events.stream().filter(e -> e.type() == SimEvent.Type.EXIT).toList());
        assertThat(exits).isNotEmpty();
        assertThat(exits.get(0).detail()).contains("exit code 137").contains("OOMKilled");
        assertThat(r.restarts()).isPositive(); // restarted under restartPolicy Always, after its back-off
        assertThat(events).anyMatch(e -> e.type() == SimEvent.Type.START && e.instance() == 2);
        JsonNode json = new ObjectMapper().readTree(Reports.json(r, pod));
        JsonNode exit = null;
        for (JsonNode e : json.path("events")) {
            if (e.path("type").asText().equals("exit")) {
                exit = e;
                break;
            }
        }
        assertThat(exit).isNotNull();
        assertThat(exit.path("reason").asText()).isEqualTo("OOMKilled");
        JsonNode first = json.path("resources").path("instances").get(0);
        assertThat(first.path("exitCode").asInt()).isEqualTo(137);
        assertThat(first.path("reason").asText()).isEqualTo("OOMKilled");
        assertThat(first.path("oomKills").asLong()).isPositive();
        assertThat(json.path("resources").path("memoryLimitBytes").asLong()).isEqualTo(128L << 20);
        System.out.println("C23 oom: " + r.limits().get().instances().get(0).usage().describe() + "; restarts " + r.restarts());
    }

    @Test
    void whereNoCgroupCanBeMadeTheRunGoesOnAndTheReportSaysLimitsNotApplied() throws Exception {
        Resources res = new Resources(OptionalLong.of(500), OptionalLong.empty(), OptionalLong.of(512L << 20));
        ResourceLimits none = ResourceLimits.of(res, new Cgroup.Availability(Optional.empty(), "no cgroup v1 cpu and memory"
                + " hierarchies; cgroup v2 /sys/fs/cgroup has no cpu and memory controllers"));
        PodSpec pod = noProbes();
        SimulationResult r = Simulation.builder(pod).limits(none).command(List.of("sleep", "30"))
                .duration(Duration.ofSeconds(1)).build().run();
        ResourceLimits.Report l = r.limits().orElseThrow();
        assertThat(l.applied()).isFalse();
        assertThat(l.instances()).isEmpty();
        assertThat(Reports.summary(r, pod)).contains("resources         cpu limit 500m, memory limit 512Mi: limits not applied:"
                + " no cgroup v1 cpu and memory hierarchies");
        JsonNode json = new ObjectMapper().readTree(Reports.json(r, pod)).path("resources");
        assertThat(json.path("applied").asBoolean(true)).isFalse();
        assertThat(json.path("status").asText()).startsWith("limits not applied: ");
    }
}
