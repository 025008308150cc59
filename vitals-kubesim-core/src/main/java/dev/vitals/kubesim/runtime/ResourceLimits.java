package dev.vitals.kubesim.runtime;

import dev.vitals.kubesim.model.Resources;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The container's resources as one run applies them: each container instance gets its own
 * cgroup ({@code vitals-<pid>-<n>}) with the limits, as the container runtime gives each
 * container; when no cgroup can be created the run goes on without them and says so
 * ({@link #applied()} false, {@link #status()} the reason). Collects each instance's
 * {@link ResourceUsage} when it exits. Thread-safe.
 */
public final class ResourceLimits {
    private static final AtomicInteger SEQUENCE = new AtomicInteger();
    private final Resources resources;
    private final Optional<Cgroup.Driver> driver;
    private final String status;
    private final List<InstanceUsage> usage = new ArrayList<>();

    private ResourceLimits(Resources resources, Cgroup.Availability availability) {
        this.resources = Objects.requireNonNull(resources, "resources");
        this.driver = resources.isEmpty() ? Optional.empty() : availability.driver();
        this.status = resources.isEmpty() ? "no resources set"
                : driver.isPresent() ? "applied through " + availability.describe()
                : "limits not applied: " + availability.reason();
    }

    /**
     * @param resources the container's resources
     * @return limits applied through the cgroup driver this process can use ({@code Cgroup.detect()})
     */
    public static ResourceLimits of(Resources resources) {
        return new ResourceLimits(resources, resources.isEmpty() ? new Cgroup.Availability(Optional.empty(), "") : Cgroup.detect());
    }

    /**
     * @param resources the container's resources
     * @param availability the driver to use, or why there is none (tests: a fake fs root)
     * @return the limits
     */
    static ResourceLimits of(Resources resources, Cgroup.Availability availability) {
        return new ResourceLimits(resources, availability);
    }

    /** @return the resources */
    public Resources resources() {
        return resources;
    }

    /** @return true when resources are set and each instance runs in a cgroup with them */
    public boolean applied() {
        return driver.isPresent();
    }

    /** @return {@code applied through cgroup v1 (...)}, {@code limits not applied: <reason>} or {@code no resources set} */
    public String status() {
        return status;
    }

    /**
     * @param instance the container instance number
     * @return a fresh cgroup for it, or empty when limits are not applied
     * @throws IOException when the cgroup cannot be created
     */
    Optional<Cgroup> create(int instance) throws IOException {
        if (driver.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(driver.get().create(nextName(), resources));
    }

    /** A cgroup driver writing cgroupfs itself (v1, v2), for bare cgroups; detected once. */
    private static final class Direct {
        static final Optional<Cgroup.Driver> DRIVER = detect();
        static final Optional<java.nio.file.Path> SETSID = onPath("setsid");

        private static Optional<Cgroup.Driver> detect() {
            try {
                String mountinfo = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/self/mountinfo"));
                String self = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/self/cgroup"));
                java.nio.file.Path root = java.nio.file.Path.of("/");
                Optional<Cgroup.Driver> v1 = CgroupV1.detect(mountinfo, self, root).driver();
                return v1.isPresent() ? v1 : CgroupV2.detect(mountinfo, self, root).driver();
            } catch (java.io.IOException | RuntimeException e) {
                return Optional.empty();
            }
        }

        private static Optional<java.nio.file.Path> onPath(String name) {
            for (String dir : Optional.ofNullable(System.getenv("PATH")).orElse("").split(java.io.File.pathSeparator)) {
                java.nio.file.Path p = java.nio.file.Path.of(dir.isEmpty() ? "." : dir, name);
                if (java.nio.file.Files.isExecutable(p)) {
                    return Optional.of(p);
                }
            }
            return Optional.empty();
        }
    }

    /**
     * A cgroup with no limit, only to hold an instance's processes (issue 40), when this process
     * can create cgroups in cgroupfs (v1 or v2; never through systemd-run).
     *
     * @return the cgroup, or empty when none can be created here
     */
    static Optional<Cgroup> bareCgroup() {
        if (Direct.DRIVER.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(Direct.DRIVER.get().create(nextName(), Resources.NONE));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** @return whether {@link #bareCgroup()} can make cgroups here */
    static boolean bareCgroupAvailable() {
        return Direct.DRIVER.isPresent();
    }

    /** @return {@code setsid(1)} on the {@code PATH}, to start a command as a process group's leader */
    static Optional<java.nio.file.Path> setsid() {
        return Direct.SETSID;
    }

    private static String nextName() {
        return "vitals-" + ProcessHandle.current().pid() + "-" + SEQUENCE.incrementAndGet();
    }

    void record(InstanceUsage u) {
        synchronized (usage) {
            usage.add(u);
        }
    }

    /** @return a snapshot: status and each exited instance's usage, in exit order */
    public Report report() {
        synchronized (usage) {
            return new Report(resources, applied(), status, usage);
        }
    }

    /**
     * What the run's limits came to.
     *
     * @param resources the container's resources
     * @param applied whether each instance ran in a cgroup with them
     * @param status how they were applied, or why not
     * @param instances each exited instance's usage
     */
    public record Report(Resources resources, boolean applied, String status, List<InstanceUsage> instances) {
        /**
         * Copies the collections (unmodifiable).
         *
         * @param resources the container's resources
         * @param applied whether each instance ran in a cgroup with them
         * @param status how they were applied, or why not
         * @param instances each exited instance's usage
         */
        public Report {
            instances = List.copyOf(instances);
        }

        /**
         * One instance's usage.
         *
         * @param n the instance, 1 for the first
         * @return the usage of instance {@code n}, if it exited
         */
        public Optional<InstanceUsage> instance(int n) {
            return instances.stream().filter(u -> u.instance() == n).findFirst();
        }
    }

    /**
     * One instance's end.
     *
     * @param instance the container instance number
     * @param exitCode its exit code
     * @param reason the container status reason: {@code OOMKilled} (the cgroup's OOM killer ended it),
     *        {@code Completed} (exit 0) or {@code Error}, as the container runtime reports it
     * @param usage its cgroup counters
     */
    public record InstanceUsage(int instance, int exitCode, String reason, ResourceUsage usage) {
        /** @return true when the memory limit killed it */
        public boolean oomKilled() {
            return reason.equals("OOMKilled");
        }
    }

    /**
     * @param code the exit code
     * @param usage the cgroup's counters
     * @return the reason the container runtime gives (containerd: OOMKilled when the cgroup saw an OOM kill)
     */
    static String reason(int code, ResourceUsage usage) {
        if (usage.oomKills() > 0 && code == 137) {
            return "OOMKilled";
        }
        return code == 0 ? "Completed" : "Error";
    }
}
