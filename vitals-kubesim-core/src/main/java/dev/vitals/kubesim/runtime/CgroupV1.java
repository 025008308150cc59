package dev.vitals.kubesim.runtime;

import dev.vitals.kubesim.model.Resources;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * cgroup v1: one directory per hierarchy ({@code cpu}, {@code cpuacct} when mounted apart,
 * {@code memory}), each under this process's own cgroup in that hierarchy. CPU limit →
 * {@code cpu.cfs_period_us}/{@code cpu.cfs_quota_us}, CPU request → {@code cpu.shares}, memory
 * limit → {@code memory.limit_in_bytes} (and {@code memory.memsw.limit_in_bytes} to the same
 * value where swap accounting exists: no swap, as the kubelet runs containers by default).
 * Immutable; thread-safe.
 */
final class CgroupV1 implements Cgroup {
    private final Path cpu;
    private final Path cpuacct;
    private final Path memory;

    private CgroupV1(Path cpu, Path cpuacct, Path memory) {
        this.cpu = cpu;
        this.cpuacct = cpuacct;
        this.memory = memory;
    }

    static Cgroup.Availability detect(String mountinfo, String selfCgroup, Path fsRoot) {
        Map<String, Path> parents = new LinkedHashMap<>();
        for (String c : List.of("cpu", "cpuacct", "memory")) {
            for (Cgroup.Mount m : Cgroup.Mount.parse(mountinfo)) {
                if (m.fsType().equals("cgroup") && m.superOptions().contains(c)) {
                    Optional<String> self = Cgroup.selfPath(selfCgroup, c);
                    if (self.isPresent()) {
                        parents.put(c, m.dir(fsRoot, self.get()));
                    }
                    break;
                }
            }
        }
        if (!parents.containsKey("cpu") || !parents.containsKey("memory")) {
            return new Cgroup.Availability(Optional.empty(), "no cgroup v1 cpu and memory hierarchies");
        }
        for (String c : List.of("cpu", "memory")) {
            if (!Files.isDirectory(parents.get(c)) || !Files.isWritable(parents.get(c))) {
                return new Cgroup.Availability(Optional.empty(), "cgroup v1 " + c + " hierarchy not writable here ("
                        + parents.get(c) + ")");
            }
        }
        Path cpuacct = parents.get("cpuacct");
        if (cpuacct != null && !Files.isWritable(cpuacct)) {
            cpuacct = null;
        }
        return new Cgroup.Availability(Optional.of(new Driver(parents.get("cpu"), cpuacct, parents.get("memory"))), "");
    }

    /** Creates v1 cgroups under the given parents. */
    static final class Driver implements Cgroup.Driver {
        private final Path cpu;
        private final Path cpuacct;
        private final Path memory;

        Driver(Path cpu, Path cpuacct, Path memory) {
            this.cpu = cpu;
            this.cpuacct = cpuacct;
            this.memory = memory;
        }

        @Override
        public String describe() {
            return "cgroup v1 (cpu " + cpu + ", memory " + memory + ")";
        }

        @Override
        public Cgroup create(String name, Resources r) throws IOException {
            Path c = cpu.resolve(name);
            Path m = memory.resolve(name);
            Path a = cpuacct == null || cpuacct.equals(cpu) ? c : cpuacct.resolve(name);
            CgroupV1 g = new CgroupV1(c, a, m);
            try {
                for (Path p : new LinkedHashSet<>(List.of(c, a, m))) {
                    Files.createDirectory(p);
                }
                // kubelet: MilliCPUToShares (2 without a request), MilliCPUToQuota
                if (r.cpuRequestMillis().isPresent()) {
                    // without a CPU request the kubelet writes 2, which on a shared host starves the
                    // container behind every host process (not only other pods): the host default stays
                    Cgroup.write(c.resolve("cpu.shares"), Long.toString(r.cpuShares()));
                }
                OptionalLong quota = r.cfsQuotaMicros();
                if (quota.isPresent()) {
                    Cgroup.write(c.resolve("cpu.cfs_period_us"), Long.toString(Resources.CFS_PERIOD_MICROS));
                    Cgroup.write(c.resolve("cpu.cfs_quota_us"), Long.toString(quota.getAsLong()));
                }
                if (r.memoryLimitBytes().isPresent()) {
                    String bytes = Long.toString(r.memoryLimitBytes().getAsLong());
                    Cgroup.write(m.resolve("memory.limit_in_bytes"), bytes);
                    if (Files.exists(m.resolve("memory.memsw.limit_in_bytes"))) {
                        Cgroup.write(m.resolve("memory.memsw.limit_in_bytes"), bytes);
                    }
                }
            } catch (IOException e) {
                g.destroy();
                throw new IOException("cannot set up cgroup " + name + ": " + e.getMessage(), e);
            }
            return g;
        }
    }

    @Override
    public List<Path> procsFiles() {
        List<Path> out = new ArrayList<>();
        for (Path p : new LinkedHashSet<>(List.of(cpu, cpuacct, memory))) {
            out.add(p.resolve("cgroup.procs"));
        }
        return out;
    }

    @Override
    public ResourceUsage usage() {
        OptionalLong used = Cgroup.number(cpuacct.resolve("cpuacct.usage"));
        Path stat = cpu.resolve("cpu.stat");
        OptionalLong peak = Cgroup.number(memory.resolve("memory.max_usage_in_bytes"));
        long oom = Cgroup.keyed(memory.resolve("memory.oom_control"), "oom_kill").orElse(0);
        return new ResourceUsage(used.isPresent() ? java.util.Optional.of(ResourceUsage.counter(used.getAsLong(), 1))
                : java.util.Optional.empty(), Cgroup.keyed(stat, "nr_periods").orElse(0), Cgroup.keyed(stat, "nr_throttled").orElse(0),
                ResourceUsage.counter(Cgroup.keyed(stat, "throttled_time").orElse(0), 1), peak, oom);
    }

    @Override
    public List<Long> pids() {
        return CgroupV2.pidsIn(procsFiles());
    }

    @Override
    public void destroy() {
        CgroupV2.removeAll(new ArrayList<>(new LinkedHashSet<>(List.of(cpu, cpuacct, memory))), procsFiles());
    }
}
