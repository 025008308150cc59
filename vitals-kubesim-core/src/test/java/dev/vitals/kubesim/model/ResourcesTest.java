package dev.vitals.kubesim.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vitals.kubesim.input.InvalidInputException;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** Quantities and the kubelet's cgroup values (kubelet: pkg/kubelet/cm/helpers_linux.go). */
class ResourcesTest {

    @Test
    void quantitiesParseAsTheApiServerReadsThem() {
        assertThat(Resources.cpuMillis("cpu", "500m")).isEqualTo(500);
        assertThat(Resources.cpuMillis("cpu", "0.5")).isEqualTo(500);
        assertThat(Resources.cpuMillis("cpu", "2")).isEqualTo(2000);
        assertThat(Resources.cpuMillis("cpu", "0.0001")).isEqualTo(1); // MilliValue rounds up
        assertThat(Resources.bytes("memory", "512Mi")).isEqualTo(512L << 20);
        assertThat(Resources.bytes("memory", "1G")).isEqualTo(1_000_000_000L);
        assertThat(Resources.bytes("memory", "1e3")).isEqualTo(1000);
        assertThat(Resources.bytes("memory", "128974848")).isEqualTo(128974848L);
        for (String bad : new String[] {"", "500 m", "-1", "1.2.3", "12Q", "0"}) {
            assertThatThrownBy(() -> Resources.cpuMillis("--cpu-limit", bad)).as(bad).isInstanceOf(InvalidInputException.class)
                    .hasMessageStartingWith("--cpu-limit");
        }
    }

    @Test
    void millicpuToQuotaAndSharesMirrorsTheKubeletsHelpers() {
        // kubelet: MilliCPUToQuota (period 100000 us, min quota 1000 us), MilliCPUToShares (min 2, max 262144)
        Resources r = new Resources(OptionalLong.of(500), OptionalLong.of(250), OptionalLong.empty());
        assertThat(r.cfsQuotaMicros()).hasValue(50_000);
        assertThat(r.cpuShares()).isEqualTo(256);
        assertThat(new Resources(OptionalLong.of(5), OptionalLong.empty(), OptionalLong.empty()).cfsQuotaMicros()).hasValue(1_000);
        assertThat(Resources.NONE.cpuShares()).isEqualTo(2);
        assertThat(Resources.NONE.cfsQuotaMicros()).isEmpty();
        // a limit without a request: the API server defaults the request to the limit
        Resources limitOnly = new Resources(OptionalLong.of(200), OptionalLong.empty(), OptionalLong.empty());
        assertThat(limitOnly.cpuRequestMillis()).hasValue(200);
        assertThat(limitOnly.cpuShares()).isEqualTo(204);
    }

    @Test
    void convertCpuSharesToCgroupV2ValueMirrorsOpencontainersCgroups() {
        // opencontainers/cgroups utils.go ConvertCPUSharesToCgroupV2Value: 2 → 1, 1024 → 100 (the defaults), 262144 → 10000
        assertThat(Resources.cpuWeight(2)).isEqualTo(1);
        assertThat(Resources.cpuWeight(1024)).isEqualTo(100);
        assertThat(Resources.cpuWeight(262_144)).isEqualTo(10_000);
        assertThat(Resources.cpuWeight(512)).isEqualTo(59);
    }

    @Test
    void flagsOverrideTheManifestAndDescribeThemselves() {
        Resources manifest = new Resources(OptionalLong.of(1000), OptionalLong.of(500), OptionalLong.of(1L << 30));
        Resources r = manifest.override("500m", null, "512Mi");
        assertThat(r.cpuLimitMillis()).hasValue(500);
        assertThat(r.cpuRequestMillis()).hasValue(500); // a new limit without a new request: the request follows it
        assertThat(r.describe()).isEqualTo("cpu limit 500m, memory limit 512Mi");
        assertThat(manifest.describe()).isEqualTo("cpu limit 1 (request 500m), memory limit 1Gi");
        assertThatThrownBy(() -> manifest.override(null, null, "lots")).isInstanceOf(InvalidInputException.class)
                .hasMessage("--memory-limit: 'lots' is not a Kubernetes quantity (e.g. 500m, 0.5, 512Mi, 1G)");
    }
}
