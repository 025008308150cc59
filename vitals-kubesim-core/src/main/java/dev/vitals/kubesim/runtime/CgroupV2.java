package dev.vitals.kubesim.runtime;

import dev.vitals.kubesim.model.Resources;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * cgroup v2 (the unified hierarchy): one directory under this process's cgroup, or under a
 * parent given explicitly (a delegated subtree). CPU limit → {@code cpu.max} ({@code quota period}),
 * CPU request → {@code cpu.weight} ({@link Resources#cpuWeight()}), memory limit → {@code memory.max}
 * (and {@code memory.swap.max} 0 where it exists). The parent must have {@code cpu} and
 * {@code memory} in {@code cgroup.subtree_control}, or let this process add them. Immutable;
 * thread-safe.
 */
final class CgroupV2 implements Cgroup {
    private final Path dir;

    private CgroupV2(Path dir) {
        this.dir = dir;
    }

    static Cgroup.Availability detect(String mountinfo, String selfCgroup, Path fsRoot) {
        Optional<Cgroup.Mount> unified = Cgroup.Mount.parse(mountinfo).stream().filter(m -> m.fsType().equals("cgroup2")).findFirst();
        Optional<String> self = Cgroup.selfPath(selfCgroup, "");
        if (unified.isEmpty() || self.isEmpty()) {
            return new Cgroup.Availability(Optional.empty(), "no cgroup v2 hierarchy");
        }
        return driverAt(unified.get().dir(fsRoot, self.get()));
    }

    /**
     * @param parent the cgroup to create children in
     * @return a driver when {@code parent} offers {@code cpu} and {@code memory} to its children
     */
    static Cgroup.Availability driverAt(Path parent) {
        Set<String> controllers = Set.of(Cgroup.read(parent.resolve("cgroup.controllers")).orElse("").split("\\s+"));
        if (!controllers.contains("cpu") || !controllers.contains("memory")) {
            return new Cgroup.Availability(Optional.empty(), "cgroup v2 " + parent + " has no cpu and memory controllers"
                    + " (cgroup.controllers: '" + String.join(" ", controllers).trim() + "')");
        }
        Set<String> enabled = Set.of(Cgroup.read(parent.resolve("cgroup.subtree_control")).orElse("").split("\\s+"));
        if (!enabled.contains("cpu") || !enabled.contains("memory")) {
            try {
                Cgroup.write(parent.resolve("cgroup.subtree_control"), "+cpu +memory");
            } catch (IOException e) {
                return new Cgroup.Availability(Optional.empty(), "cgroup v2 " + parent + ": cannot enable cpu and memory for"
                        + " child cgroups (" + e.getMessage() + "); run under a delegated subtree, e.g. systemd-run --user"
                        + " --scope -p Delegate=yes");
            }
        }
        if (!Files.isWritable(parent)) {
            return new Cgroup.Availability(Optional.empty(), "cgroup v2 " + parent + " not writable here");
        }
        return new Cgroup.Availability(Optional.of(new Driver(parent)), "");
    }

    /** Creates v2 cgroups under one parent. */
    static final class Driver implements Cgroup.Driver {
        private final Path parent;

        Driver(Path parent) {
            this.parent = parent;
        }

        @Override
        public String describe() {
            return "cgroup v2 (" + parent + ")";
        }

        @Override
        public Cgroup create(String name, Resources r) throws IOException {
            Path d = parent.resolve(name);
            CgroupV2 g = new CgroupV2(d);
            try {
                Files.createDirectory(d);
                if (r.cpuRequestMillis().isPresent()) {
                    Cgroup.write(d.resolve("cpu.weight"), Long.toString(r.cpuWeight())); // as v1: no request, host default
                }
                OptionalLong quota = r.cfsQuotaMicros();
                if (quota.isPresent()) {
                    Cgroup.write(d.resolve("cpu.max"), quota.getAsLong() + " " + Resources.CFS_PERIOD_MICROS);
                }
                if (r.memoryLimitBytes().isPresent()) {
                    Cgroup.write(d.resolve("memory.max"), Long.toString(r.memoryLimitBytes().getAsLong()));
                    if (Files.exists(d.resolve("memory.swap.max"))) {
                        Cgroup.write(d.resolve("memory.swap.max"), "0");
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
        return List.of(dir.resolve("cgroup.procs"));
    }

    @Override
    public ResourceUsage usage() {
        return read(dir);
    }

    /** @return the counters of the v2 cgroup {@code dir} now (no CPU figure when it has no {@code cpu.stat}) */
    static ResourceUsage read(Path dir) {
        Path stat = dir.resolve("cpu.stat");
        OptionalLong used = Cgroup.keyed(stat, "usage_usec");
        return new ResourceUsage(used.isPresent() ? java.util.Optional.of(ResourceUsage.counter(used.getAsLong(), 1000))
                : java.util.Optional.empty(), Cgroup.keyed(stat, "nr_periods").orElse(0),
                Cgroup.keyed(stat, "nr_throttled").orElse(0), ResourceUsage.counter(Cgroup.keyed(stat, "throttled_usec").orElse(0), 1000),
                Cgroup.number(dir.resolve("memory.peak")), Cgroup.keyed(dir.resolve("memory.events"), "oom_kill").orElse(0));
    }

    @Override
    public List<Long> pids() {
        return pidsIn(procsFiles());
    }

    @Override
    public void destroy() {
        removeAll(List.of(dir), procsFiles());
    }

    static List<Long> pidsIn(List<Path> procsFiles) {
        List<Long> out = new ArrayList<>();
        for (Path p : procsFiles) {
            for (String line : Cgroup.read(p).orElse("").split("\n")) {
                try {
                    long pid = Long.parseLong(line.trim());
                    if (!out.contains(pid)) {
                        out.add(pid);
                    }
                } catch (NumberFormatException ignored) {
                    // empty file
                }
            }
        }
        return out;
    }

    /**
     * SIGKILLs what is left in the cgroup (as a container teardown does), then removes the
     * directories; retries for up to 2 s while the kernel reaps the processes.
     */
    static void removeAll(List<Path> dirs, List<Path> procsFiles) {
        long deadline = System.nanoTime() + 2_000_000_000L;
        for (Path d : dirs) {
            while (Files.isDirectory(d)) {
                for (long pid : pidsIn(procsFiles)) {
                    ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
                }
                try {
                    Files.delete(d);
                } catch (IOException e) {
                    if (e instanceof java.nio.file.DirectoryNotEmptyException) {
                        // a fake fs (tests) holds the control files written: clear them; a cgroupfs removes its own
                        try (var files = Files.list(d)) {
                            for (Path f : (Iterable<Path>) files::iterator) {
                                if (Files.isRegularFile(f)) {
                                    Files.deleteIfExists(f);
                                }
                            }
                        } catch (IOException ignored) {
                            // retried below
                        }
                    }
                    if (System.nanoTime() > deadline) {
                        System.getLogger("dev.vitals.kubesim").log(System.Logger.Level.WARNING,
                                "cgroup " + d + " not removed: " + e.getMessage());
                        break;
                    }
                    try {
                        Thread.sleep(20);
                    } catch (InterruptedException ie) {
                        Thread.currentThread().interrupt();
                        break;
                    }
                }
            }
        }
    }
}
