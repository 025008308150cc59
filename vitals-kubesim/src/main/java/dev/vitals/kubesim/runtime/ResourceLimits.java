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
        String name = "vitals-" + ProcessHandle.current().pid() + "-" + SEQUENCE.incrementAndGet();
        return Optional.of(driver.get().create(name, resources));
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
