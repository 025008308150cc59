package dev.vitals.kubesim.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vitals.kubesim.model.Resources;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * cgroup v2 delegation for a user without root: where neither cgroup v1 nor the unified
 * hierarchy can be written, each instance starts under {@code systemd-run --user --scope} with
 * the limits as unit properties (systemd.resource-control(5): CPUQuota=, CPUQuotaPeriodSec=,
 * CPUWeight=, MemoryMax=, MemorySwapMax=). This machine has no systemd: a fake
 * {@code systemd-run} on a temp {@code PATH} records its arguments and execs the command.
 */
class CgroupSystemdTest {
    /** cgroup v2 alone, as on a current distribution; no v1 hierarchies. */
    private static final String V2_MOUNTINFO = "35 24 0:30 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n";
    private static final String SELF = "0::/user.slice/user-1000.slice/session-2.scope\n";
    private static final Resources POD = new Resources(OptionalLong.of(200), OptionalLong.of(100), OptionalLong.of(256L << 20));

    /** A user's session scope: cpu and memory exist, but this user cannot hand them to a child cgroup. */
    private static Path userSession(Path root) throws Exception {
        Path session = Files.createDirectories(root.resolve("sys/fs/cgroup/user.slice/user-1000.slice/session-2.scope"));
        Files.writeString(session.resolve("cgroup.controllers"), "cpu memory pids\n");
        // a directory where the control file is: the write fails, as it fails with EACCES for a user (tests run as root)
        Files.createDirectory(session.resolve("cgroup.subtree_control"));
        return session;
    }

    private static Path script(Path dir, String body) throws Exception {
        Path bin = Files.createDirectories(dir);
        Path f = bin.resolve("systemd-run");
        Files.writeString(f, "#!/bin/sh\n" + body);
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rwxr-xr-x"));
        return f;
    }

    @Test
    void withoutAWritableSubtreeEachInstanceStartsInAUserScopeWithTheLimitsAsUnitProperties(@TempDir Path tmp) throws Exception {
        userSession(tmp);
        Path record = tmp.resolve("systemd-run.args");
        Path fake = script(tmp.resolve("bin"), "echo \"$*\" >> " + record + "\n"
                + "while [ $# -gt 0 ]; do if [ \"$1\" = -- ]; then shift; exec \"$@\"; fi; shift; done\nexit 1\n");
        Cgroup.Availability a = Cgroup.detect(V2_MOUNTINFO, SELF, tmp, tmp.resolve("empty") + ":" + fake.getParent());
        assertThat(a.driver()).as(a.reason()).isPresent();
        assertThat(a.describe()).isEqualTo("cgroup v2 through systemd-run --user --scope (" + fake + ")");
        // it tried systemd-run once before choosing it
        assertThat(Files.readAllLines(record)).containsExactly("--user --scope --quiet -- true");

        Cgroup g = a.driver().get().create("vitals-7-1", POD);
        List<String> expected = new ArrayList<>(List.of(fake.toString(), "--user", "--scope", "--quiet", "--collect",
                "--unit=vitals-7-1", "-p", "Delegate=yes", "-p", "CPUQuota=20%", "-p", "CPUQuotaPeriodSec=100ms",
                "-p", "CPUWeight=" + POD.cpuWeight(), "-p", "MemoryMax=268435456", "-p", "MemorySwapMax=0", "--", "java", "-jar",
                "app.jar"));
        assertThat(g.launch(List.of("java", "-jar", "app.jar"))).hasValue(expected);
        // MilliCPUToQuota's µs as a percentage of one CPU, a tenth of a percent when needed; no request, no CPUWeight
        Resources odd = new Resources(OptionalLong.of(255), OptionalLong.empty(), OptionalLong.empty());
        assertThat(CgroupSystemd.properties(fake, "u", odd)).contains("CPUQuota=25.5%", "CPUWeight=" + odd.cpuWeight())
                .doesNotContain("MemoryMax=0");
        Resources memoryOnly = new Resources(OptionalLong.empty(), OptionalLong.empty(), OptionalLong.of(1L << 30));
        assertThat(String.join(" ", CgroupSystemd.properties(fake, "u", memoryOnly)))
                .endsWith("-p Delegate=yes -p MemoryMax=1073741824 -p MemorySwapMax=0 --");

        // the container runtime starts the instance through it, and the command runs
        Path ran = tmp.resolve("ran");
        ResourceLimits limits = ResourceLimits.of(POD, a);
        assertThat(limits.status()).startsWith("applied through cgroup v2 through systemd-run --user --scope");
        ProcessRuntime runtime = new ProcessRuntime(List.of("sh", "-c", "echo ran > " + ran), ProcessBuilder.Redirect.DISCARD,
                Map.of(), null, limits);
        CompletableFuture<Integer> exit = new CompletableFuture<>();
        runtime.start(1, exit::complete);
        assertThat(exit.get(30, TimeUnit.SECONDS)).isZero();
        assertThat(ran).hasContent("ran");
        List<String> calls = Files.readAllLines(record);
        assertThat(calls).hasSize(2);
        assertThat(calls.get(1)).matches("--user --scope --quiet --collect --unit=vitals-\\d+-\\d+ -p Delegate=yes"
                + " -p CPUQuota=20% -p CPUQuotaPeriodSec=100ms -p CPUWeight=" + POD.cpuWeight()
                + " -p MemoryMax=268435456 -p MemorySwapMax=0 -- sh -c echo ran > .*");
        // the fake left it in this process's cgroup: no scope was found, so no counters (not zeros)
        assertThat(limits.report().instances()).singleElement().satisfies(u -> assertThat(u.usage().cpu()).isEmpty());
    }

    @Test
    void whenSystemdRunFailsTooTheReasonSaysWhatEachWayAnswered(@TempDir Path tmp) throws Exception {
        userSession(tmp);
        Path fake = script(tmp.resolve("bin"), "echo 'Failed to connect to bus: No medium found' >&2\nexit 1\n");
        Cgroup.Availability a = Cgroup.detect(V2_MOUNTINFO, SELF, tmp, fake.getParent().toString());
        assertThat(a.driver()).isEmpty();
        assertThat(a.reason()).startsWith("no cgroup v1 cpu and memory hierarchies; cgroup v2 ")
                .contains("cannot enable cpu and memory for child cgroups")
                .endsWith("; " + fake + " --user --scope --quiet -- true failed (exit 1: Failed to connect to bus: No medium found)");
        assertThat(ResourceLimits.of(POD, a).status()).startsWith("limits not applied: no cgroup v1");
        assertThat(ResourceLimits.of(POD, a).applied()).isFalse();
    }

    @Test
    void withNeitherAWritableSubtreeNorSystemdRunTheLimitsAreNotAppliedAndTheReasonSaysSo(@TempDir Path tmp) throws Exception {
        userSession(tmp);
        Files.createDirectories(tmp.resolve("bin"));
        Cgroup.Availability a = Cgroup.detect(V2_MOUNTINFO, SELF, tmp, tmp.resolve("bin").toString());
        assertThat(a.driver()).isEmpty();
        assertThat(a.reason()).endsWith("; no systemd-run on the PATH for a delegated user scope");
        ResourceLimits none = ResourceLimits.of(POD, a);
        assertThat(none.applied()).isFalse();
        assertThat(none.status()).isEqualTo("limits not applied: " + a.reason());
    }
}
