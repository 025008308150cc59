package dev.vitals.kubesim.runtime;

import dev.vitals.kubesim.model.Resources;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * cgroup v2 through systemd, for a user who may not write the unified hierarchy: each container
 * instance is started by {@code systemd-run --user --scope}, which asks the user's service manager
 * for a transient scope unit {@code vitals-<pid>-<n>.scope} with the container's limits as unit
 * properties, puts itself in it and execs the command (systemd.resource-control(5)):
 *
 * <table>
 *   <caption>manifest → property (→ what systemd writes)</caption>
 *   <tr><td>{@code limits.cpu}</td><td>{@code CPUQuota=} quota ÷ period as a percentage of one CPU
 *       (200m → {@code 20%}) and {@code CPUQuotaPeriodSec=100ms} (→ {@code cpu.max}, as MilliCPUToQuota)</td></tr>
 *   <tr><td>{@code requests.cpu}</td><td>{@code CPUWeight=} {@link Resources#cpuWeight()} (1–10000, → {@code cpu.weight})</td></tr>
 *   <tr><td>{@code limits.memory}</td><td>{@code MemoryMax=} bytes (→ {@code memory.max}) and
 *       {@code MemorySwapMax=0} (no swap, as the kubelet runs containers)</td></tr>
 * </table>
 *
 * <p>{@code Delegate=yes} hands the scope's cgroup to the user, so exec probes can join it
 * ({@link #procsFiles()}, found from {@code /proc/<pid>/cgroup} once the command runs). systemd
 * removes a scope's cgroup as soon as it is empty, so its counters are sampled every 500 ms while
 * it runs ({@link #usage()} is the last sample): an OOM kill that ends the scope's last process
 * may be missed (exit 137, reason {@code Error}). Thread-safe.
 */
final class CgroupSystemd implements Cgroup {
    private static final ScheduledExecutorService SAMPLER = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "vitals-kubesim-cgroup-sampler");
        t.setDaemon(true);
        return t;
    });
    private final String unit;
    private final List<String> launch;
    private final Path unifiedRoot;
    private volatile long pid = -1;
    private volatile Path dir;
    private volatile ResourceUsage last = ResourceUsage.NONE;
    private volatile ScheduledFuture<?> sampling;

    private CgroupSystemd(String unit, List<String> launch, Path unifiedRoot) {
        this.unit = unit;
        this.launch = List.copyOf(launch);
        this.unifiedRoot = unifiedRoot;
    }

    /**
     * @param systemdRun the {@code systemd-run} to use
     * @param unifiedRoot where the cgroup v2 hierarchy is mounted, to find the scope's cgroup
     * @return a driver when {@code systemd-run --user --scope} runs a command (tried once, {@code true}, within 10 s)
     */
    static Cgroup.Availability detect(Path systemdRun, Path unifiedRoot) {
        List<String> trial = List.of(systemdRun.toString(), "--user", "--scope", "--quiet", "--", "true");
        try {
            Process p = new ProcessBuilder(trial).redirectErrorStream(true).redirectInput(ProcessBuilder.Redirect.PIPE).start();
            p.getOutputStream().close();
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return new Cgroup.Availability(Optional.empty(), String.join(" ", trial) + " did not finish within 10 s");
            }
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (p.exitValue() != 0) {
                return new Cgroup.Availability(Optional.empty(), String.join(" ", trial) + " failed (exit " + p.exitValue()
                        + (out.isEmpty() ? "" : ": " + out.lines().findFirst().orElse("")) + ")");
            }
        } catch (IOException e) {
            return new Cgroup.Availability(Optional.empty(), "cannot run " + systemdRun + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Cgroup.Availability(Optional.empty(), "interrupted while trying systemd-run");
        }
        return new Cgroup.Availability(Optional.of(new Driver(systemdRun, unifiedRoot)), "");
    }

    /** @return {@code systemd-run} in a directory of {@code pathEnv} (a {@code PATH} value), if executable there */
    static Optional<Path> onPath(String pathEnv) {
        for (String d : pathEnv.split(File.pathSeparator)) {
            if (!d.isEmpty()) {
                Path f = Path.of(d, "systemd-run");
                if (Files.isRegularFile(f) && Files.isExecutable(f)) {
                    return Optional.of(f);
                }
            }
        }
        return Optional.empty();
    }

    /** Starts each instance as a transient user scope. */
    static final class Driver implements Cgroup.Driver {
        private final Path systemdRun;
        private final Path unifiedRoot;

        Driver(Path systemdRun, Path unifiedRoot) {
            this.systemdRun = systemdRun;
            this.unifiedRoot = unifiedRoot;
        }

        @Override
        public String describe() {
            return "cgroup v2 through systemd-run --user --scope (" + systemdRun + ")";
        }

        @Override
        public Cgroup create(String name, Resources r) {
            return new CgroupSystemd(name + ".scope", properties(systemdRun, name, r), unifiedRoot);
        }
    }

    /**
     * @return {@code systemd-run --user --scope --quiet --collect --unit=NAME -p Delegate=yes -p …}, up to
     *         the {@code --} before the command
     */
    static List<String> properties(Path systemdRun, String name, Resources r) {
        List<String> argv = new ArrayList<>(List.of(systemdRun.toString(), "--user", "--scope", "--quiet", "--collect",
                "--unit=" + name, "-p", "Delegate=yes"));
        OptionalLong quota = r.cfsQuotaMicros();
        if (quota.isPresent()) {
            // CPUQuota= is a percentage of one CPU: quota/period × 100; MilliCPUToQuota's µs / 1000
            long q = quota.getAsLong();
            String pct = q % 1000 == 0 ? Long.toString(q / 1000) : String.format(Locale.ROOT, "%.1f", q / 1000.0);
            argv.addAll(List.of("-p", "CPUQuota=" + pct + "%", "-p", "CPUQuotaPeriodSec=" + Resources.CFS_PERIOD_MICROS / 1000
                    + "ms"));
        }
        if (r.cpuRequestMillis().isPresent()) {
            argv.addAll(List.of("-p", "CPUWeight=" + r.cpuWeight())); // as v1/v2: without a request the default stays
        }
        if (r.memoryLimitBytes().isPresent()) {
            argv.addAll(List.of("-p", "MemoryMax=" + r.memoryLimitBytes().getAsLong(), "-p", "MemorySwapMax=0"));
        }
        argv.add("--");
        return argv;
    }

    @Override
    public Optional<List<String>> launch(List<String> command) {
        List<String> argv = new ArrayList<>(launch);
        argv.addAll(command);
        return Optional.of(argv);
    }

    @Override
    public void started(long pid) {
        this.pid = pid;
        sampling = SAMPLER.scheduleWithFixedDelay(this::sample, 100, 500, TimeUnit.MILLISECONDS);
    }

    /** @return the scope's cgroup directory, once the launched process is in it */
    private Optional<Path> scope() {
        Path d = dir;
        if (d != null || pid < 0) {
            return Optional.ofNullable(d);
        }
        try {
            Optional<String> path = Cgroup.selfPath(Files.readString(Path.of("/proc/" + pid + "/cgroup")), "");
            if (path.isPresent() && path.get().endsWith("/" + unit)) {
                d = unifiedRoot.resolve(path.get().substring(1));
                dir = d;
            }
        } catch (IOException | RuntimeException e) {
            // not started yet, or gone
        }
        return Optional.ofNullable(d);
    }

    private void sample() {
        scope().filter(Files::isDirectory).ifPresent(d -> {
            ResourceUsage u = CgroupV2.read(d);
            if (u.cpu().isPresent()) {
                ResourceUsage before = last;
                OptionalLong peak = u.memoryPeakBytes().isPresent() || before.memoryPeakBytes().isEmpty() ? u.memoryPeakBytes()
                        : before.memoryPeakBytes();
                last = new ResourceUsage(u.cpu(), u.periods(), u.throttledPeriods(), u.throttled(), peak,
                        Math.max(u.oomKills(), before.oomKills()));
            }
        });
    }

    @Override
    public List<Path> procsFiles() {
        return scope().map(d -> List.of(d.resolve("cgroup.procs"))).orElse(List.of());
    }

    @Override
    public ResourceUsage usage() {
        sample();
        return last;
    }

    @Override
    public List<Long> pids() {
        return CgroupV2.pidsIn(procsFiles());
    }

    @Override
    public void destroy() {
        ScheduledFuture<?> s = sampling;
        if (s != null) {
            s.cancel(false);
        }
        for (long p : pids()) {
            ProcessHandle.of(p).ifPresent(ProcessHandle::destroyForcibly); // systemd removes the empty scope (--collect)
        }
    }
}
