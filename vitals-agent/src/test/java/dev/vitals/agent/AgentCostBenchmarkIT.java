package dev.vitals.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The agent's cost on the demo (naive wiring), with and without {@code -javaagent}, in one run:
 * start-up time (JVM launch until the application answers {@code GET /orders/1}), RSS and
 * threads ({@code /proc/<pid>/status}) and heap used after a full GC ({@code jcmd GC.run},
 * {@code GC.heap_info}) 8 s after the application answered, then RSS again after
 * {@code jcmd System.trim_native_heap} (glibc returns the native memory it keeps free: mostly the
 * JIT's start-up arenas, which otherwise decide several MiB of either run by timing). Pairs alternate (without, with) so
 * load drifts hit both alike; medians are reported. Not a test of a bound: the figures go to
 * standard output and {@code target/agent-cost.txt}.
 *
 * <p>Run: {@code mvn -B -pl vitals-agent -am verify -Dvitals.excludedTestGroups= -Dgroups=benchmark
 * -Dit.test=AgentCostBenchmarkIT -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false}
 * ({@code -Dvitals.agent.bench.pairs=N}, default 6). Both runs use {@code -Xms256m -Xmx256m
 * -XX:+AlwaysPreTouch -XX:+UseSerialGC}.
 */
@Tag("benchmark")
class AgentCostBenchmarkIT {
    /** The JDK the demo runs on: {@code -Dvitals.agent.bench.jdk=/usr/lib/jvm/temurin-25-jdk-amd64} (default: this JVM's). */
    private static final Path JDK = Paths.get(System.getProperty("vitals.agent.bench.jdk", System.getProperty("java.home")));
    private static final Path JCMD = JDK.resolve("bin").resolve("jcmd");

    @Test
    void agentCostOnTheDemo() throws Exception {
        int pairs = Integer.getInteger("vitals.agent.bench.pairs", 6);
        List<double[]> without = new ArrayList<>();
        List<double[]> with = new ArrayList<>();
        String loadBefore = uptime();
        for (int i = 0; i < pairs; i++) {
            without.add(measure(false, i));
            with.add(measure(true, i));
        }
        String loadAfter = uptime();
        StringBuilder sb = new StringBuilder();
        sb.append("vitals-agent cost on vitals-demo --wiring naive (java ").append(JDK)
                .append(", ").append(pairs).append(" alternating pairs, medians)\n");
        sb.append("load before: ").append(loadBefore).append("\nload after:  ").append(loadAfter).append('\n');
        String[] names = {"start-up to first answer (ms)", "RSS (MiB)", "threads", "heap used after full GC (MiB)",
            "RSS after native trim (MiB)"};
        sb.append(String.format(Locale.ROOT, "%-32s %10s %10s %10s%n", "", "without", "with", "delta"));
        sb.append("(delta: median of the pairwise differences)\n");
        for (int k = 0; k < names.length; k++) {
            double a = median(without, k);
            double b = median(with, k);
            List<double[]> diffs = new ArrayList<>();
            for (int i = 0; i < pairs; i++) {
                double[] d = new double[names.length];
                d[k] = with.get(i)[k] - without.get(i)[k];
                diffs.add(d);
            }
            sb.append(String.format(Locale.ROOT, "%-32s %10.1f %10.1f %+10.1f%n", names[k], a, b, median(diffs, k)));
        }
        sb.append("raw without: ").append(raw(without)).append('\n');
        sb.append("raw with:    ").append(raw(with)).append('\n');
        System.out.println(sb);
        Files.writeString(Paths.get("target", "agent-cost-" + JDK.getFileName() + ".txt"), sb.toString(), StandardCharsets.UTF_8);
        assertThat(with).hasSize(pairs);
    }

    private static double[] measure(boolean agent, int i) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(JDK.resolve("bin").resolve("java").toString());
        // The whole heap touched up front in both runs, so the RSS difference is what the agent
        // keeps (metaspace, code, stacks, native), not how early its start-up garbage touches
        // young-generation pages that the application's own allocation would touch anyway.
        cmd.add("-Xms256m");
        cmd.add("-Xmx256m");
        cmd.add("-XX:+AlwaysPreTouch");
        cmd.add("-XX:+UseSerialGC");
        if (agent) {
            cmd.add("-javaagent:" + AgentProcess.AGENT + "=port=0,workers=demo-worker-,drain-delay=0s");
        }
        cmd.addAll(List.of("-jar", AgentProcess.DEMO.toString(), "--wiring", "naive", "--port", "0"));
        Path dir = Paths.get("target", "agent-it");
        Files.createDirectories(dir);
        Path log = dir.resolve("cost-" + (agent ? "with" : "without") + "-" + i + ".log");
        long t0 = System.nanoTime();
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            int port = -1;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (port < 0 && System.nanoTime() < deadline) {
                java.util.regex.Matcher m = java.util.regex.Pattern.compile("vitals-demo ready: .* port=(\\d+) ")
                        .matcher(Files.readString(log));
                if (m.find()) {
                    port = Integer.parseInt(m.group(1));
                } else {
                    Thread.sleep(5);
                }
            }
            assertThat(port).as("demo started: " + Files.readString(log)).isPositive();
            while (AgentProcess.get(port, "/orders/1").status != 200) {
                Thread.sleep(5);
            }
            double startMs = (System.nanoTime() - t0) / 1e6;
            Thread.sleep(8000);
            long pid = p.pid();
            double rssMiB = statusKb(pid, "VmRSS:") / 1024.0;
            double threads = statusKb(pid, "Threads:");
            run(JCMD.toString(), Long.toString(pid), "GC.run");
            String heap = run(JCMD.toString(), Long.toString(pid), "GC.heap_info");
            long heapKb = heapUsedKb(heap);
            assertThat(heapKb).as("a generation's 'total ...K, used ...K' line in GC.heap_info:\n" + heap).isNotNegative();
            double heapMiB = heapKb / 1024.0;
            // Then the same RSS once glibc has returned the native memory it keeps free (the JIT's
            // arenas of the start, the application's and the agent's alike): what the process
            // really holds. The same command in both runs; -1 where the JDK lacks it (before 17.0.9).
            String trim = run(JCMD.toString(), Long.toString(pid), "System.trim_native_heap");
            double trimmedMiB = trim.contains("Trim native heap") ? statusKb(pid, "VmRSS:") / 1024.0 : -1;
            return new double[] {startMs, rssMiB, threads, heapMiB, trimmedMiB};
        } finally {
            p.toHandle().destroy();
            if (!p.waitFor(20, TimeUnit.SECONDS)) {
                p.toHandle().destroyForcibly();
            }
        }
    }

    private static long statusKb(long pid, String key) throws IOException {
        for (String line : Files.readAllLines(Paths.get("/proc", Long.toString(pid), "status"))) {
            if (line.startsWith(key)) {
                return Long.parseLong(line.substring(key.length()).trim().split("\\s+")[0]);
            }
        }
        return -1;
    }

    /**
     * The heap used in {@code GC.heap_info}'s output: the sum of its generations' "used" figures.
     * Serial GC prints {@code def new generation   total 78656K, used 17046K [...]} and
     * {@code tenured generation   total ...K, used ...K} up to Java 21, {@code DefNew     total 78656K,
     * used 28037K [...]} and {@code Tenured    total ...} on Java 22+; the spaces inside a
     * generation ({@code eden space 69952K,  40% used}) and Metaspace ({@code used 8952K,
     * committed}) have another shape and are not counted.
     *
     * @return kilobytes used, or -1 when no generation line is found (an unknown format)
     */
    static long heapUsedKb(String heapInfo) {
        long used = -1;
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?m)^\\s*\\S.*?\\s+total \\d+K, used (\\d+)K").matcher(heapInfo);
        while (m.find()) {
            used = Math.max(used, 0) + Long.parseLong(m.group(1));
        }
        return used;
    }

    private static String run(String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor(30, TimeUnit.SECONDS);
        return out;
    }

    private static String uptime() {
        try {
            return Files.readString(Paths.get("/proc/loadavg")).trim();
        } catch (IOException e) {
            return "unknown";
        }
    }

    private static double median(List<double[]> runs, int k) {
        List<Double> v = new ArrayList<>();
        for (double[] r : runs) {
            v.add(r[k]);
        }
        Collections.sort(v);
        int n = v.size();
        return n % 2 == 1 ? v.get(n / 2) : (v.get(n / 2 - 1) + v.get(n / 2)) / 2;
    }

    private static String raw(List<double[]> runs) {
        StringBuilder sb = new StringBuilder();
        for (double[] r : runs) {
            sb.append(String.format(Locale.ROOT, "[%.0f ms, %.1f MiB, %.0f thr, %.1f MiB, trimmed %.1f MiB] ",
                    r[0], r[1], r[2], r[3], r[4]));
        }
        return sb.toString();
    }
}
