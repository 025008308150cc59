package dev.vitals.kubesim.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vitals.kubesim.model.Resources;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cgroup drivers on a fake filesystem root (a temp dir laid out like /sys/fs/cgroup): what
 * each writes for a container's resources, what it reads back, how it is found from
 * /proc/self/mountinfo and /proc/self/cgroup. The v1 driver also runs for real in
 * {@link ResourceLimitsC23Test}.
 */
class CgroupTest {
    private static final String V2_MOUNTINFO = "35 24 0:30 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n";
    private static final String V1_MOUNTINFO = "30 24 0:26 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n"
            + "31 24 0:27 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n"
            + "32 24 0:28 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n";

    private static final Resources POD = new Resources(OptionalLong.of(500), OptionalLong.of(250), OptionalLong.of(512L << 20));

    @Test
    void v2WritesCpuMaxWeightAndMemoryMaxAndReadsTheCountersBack(@TempDir Path root) throws Exception {
        Path parent = Files.createDirectories(root.resolve("sys/fs/cgroup/user.slice/app.scope"));
        Files.writeString(parent.resolve("cgroup.controllers"), "cpuset cpu io memory pids\n");
        Files.writeString(parent.resolve("cgroup.subtree_control"), "");
        Cgroup.Availability a = Cgroup.detect(V2_MOUNTINFO, "0::/user.slice/app.scope\n", root);
        assertThat(a.driver()).as(a.reason()).isPresent();
        assertThat(a.describe()).startsWith("cgroup v2");
        // it asked the parent to hand cpu and memory to its children
        assertThat(Files.readString(parent.resolve("cgroup.subtree_control"))).isEqualTo("+cpu +memory");
        Cgroup g = a.driver().get().create("vitals-1-1", POD);
        Path d = parent.resolve("vitals-1-1");
        assertThat(Files.readString(d.resolve("cpu.max"))).isEqualTo("50000 100000");
        assertThat(Files.readString(d.resolve("cpu.weight"))).isEqualTo(Long.toString(POD.cpuWeight()));
        assertThat(Files.readString(d.resolve("memory.max"))).isEqualTo(Long.toString(512L << 20));
        assertThat(g.procsFiles()).containsExactly(d.resolve("cgroup.procs"));
        Files.writeString(d.resolve("cpu.stat"), "usage_usec 2500000\nuser_usec 2000000\nsystem_usec 500000\n"
                + "nr_periods 60\nnr_throttled 41\nthrottled_usec 3100000\n");
        Files.writeString(d.resolve("memory.peak"), "536870912\n");
        Files.writeString(d.resolve("memory.events"), "low 0\nhigh 0\nmax 12\noom 1\noom_kill 1\n");
        ResourceUsage u = g.usage();
        assertThat(u).isEqualTo(new ResourceUsage(Optional.of(Duration.ofMillis(2500)), 60, 41, Duration.ofMillis(3100), OptionalLong.of(512L << 20), 1));
        assertThat(ResourceLimits.reason(137, u)).isEqualTo("OOMKilled");
        assertThat(ResourceLimits.reason(1, u)).isEqualTo("Error");
        g.destroy();
        assertThat(d).doesNotExist();
    }

    @Test
    void v2WithoutCpuAndMemoryControllersIsNotUsedAndSaysWhy(@TempDir Path root) throws Exception {
        Path parent = Files.createDirectories(root.resolve("sys/fs/cgroup"));
        Files.writeString(parent.resolve("cgroup.controllers"), "hugetlb\n");
        Cgroup.Availability a = Cgroup.detect(V2_MOUNTINFO, "0::/\n", root);
        assertThat(a.driver()).isEmpty();
        assertThat(a.reason()).contains("no cgroup v1 cpu and memory hierarchies").contains("has no cpu and memory controllers");
        ResourceLimits l = ResourceLimits.of(POD, a);
        assertThat(l.applied()).isFalse();
        assertThat(l.status()).startsWith("limits not applied: ");
    }

    @Test
    void v1WritesQuotaSharesAndLimitUnderThisProcesssOwnCgroups(@TempDir Path root) throws Exception {
        Path cpu = Files.createDirectories(root.resolve("sys/fs/cgroup/cpu,cpuacct/ci"));
        Path mem = Files.createDirectories(root.resolve("sys/fs/cgroup/memory/ci/job7"));
        String self = "5:memory:/ci/job7\n4:cpu,cpuacct:/ci\n0::/\n";
        Cgroup.Availability a = Cgroup.detect(V1_MOUNTINFO, self, root);
        assertThat(a.driver()).as(a.reason()).isPresent();
        Cgroup g = a.driver().get().create("vitals-9-2", POD);
        assertThat(Files.readString(cpu.resolve("vitals-9-2/cpu.cfs_quota_us"))).isEqualTo("50000");
        assertThat(Files.readString(cpu.resolve("vitals-9-2/cpu.cfs_period_us"))).isEqualTo("100000");
        assertThat(Files.readString(cpu.resolve("vitals-9-2/cpu.shares"))).isEqualTo("256");
        assertThat(Files.readString(mem.resolve("vitals-9-2/memory.limit_in_bytes"))).isEqualTo(Long.toString(512L << 20));
        // cpu and cpuacct share one hierarchy: one procs file for both, one for memory
        assertThat(g.procsFiles()).containsExactly(cpu.resolve("vitals-9-2/cgroup.procs"), mem.resolve("vitals-9-2/cgroup.procs"));
        Files.writeString(cpu.resolve("vitals-9-2/cpuacct.usage"), "1500000000\n");
        Files.writeString(cpu.resolve("vitals-9-2/cpu.stat"), "nr_periods 30\nnr_throttled 12\nthrottled_time 900000000\n");
        Files.writeString(mem.resolve("vitals-9-2/memory.max_usage_in_bytes"), "1048576\n");
        Files.writeString(mem.resolve("vitals-9-2/memory.oom_control"), "oom_kill_disable 0\nunder_oom 0\noom_kill 0\n");
        assertThat(g.usage()).isEqualTo(new ResourceUsage(Optional.of(Duration.ofMillis(1500)), 30, 12, Duration.ofMillis(900), OptionalLong.of(1048576), 0));
        g.destroy();
        assertThat(cpu.resolve("vitals-9-2")).doesNotExist();
        assertThat(mem.resolve("vitals-9-2")).doesNotExist();
    }

    @Test
    void noResourcesMeansNoCgroupAndNoNotice() {
        ResourceLimits l = ResourceLimits.of(Resources.NONE);
        assertThat(l.applied()).isFalse();
        assertThat(l.status()).isEqualTo("no resources set");
    }
}
