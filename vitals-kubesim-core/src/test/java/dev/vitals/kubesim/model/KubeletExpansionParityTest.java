package dev.vitals.kubesim.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link EnvExpansion} against the cases of kubernetes
 * {@code third_party/forked/golang/expansion/expand_test.go TestMapping}, and
 * {@link PortResolver} against {@code pkg/probe/util_test.go}.
 */
class KubeletExpansionParityTest {
    private static final Map<String, String> ENV = Map.of("VAR_A", "A", "VAR_B", "B", "VAR_C", "C", "VAR_EMPTY", "");

    private static String x(String in) {
        return EnvExpansion.expand(in, ENV);
    }

    /** expand_test.go TestMapping: references, escapes, undefined and incomplete references. */
    @Test
    void expandTest_TestMapping() {
        assertThat(x("$(VAR_A)")).isEqualTo("A");
        assertThat(x("___$(VAR_B)___")).isEqualTo("___B___");
        assertThat(x("___$(VAR_C)")).isEqualTo("___C");
        assertThat(x("$(VAR_A)-$(VAR_A)")).isEqualTo("A-A");
        assertThat(x("$(VAR_A)-1")).isEqualTo("A-1");
        assertThat(x("$(VAR_EMPTY)")).isEqualTo("");
        assertThat(x("$(VAR_DNE)")).isEqualTo("$(VAR_DNE)");
        assertThat(x("$$(VAR_A)")).isEqualTo("$(VAR_A)");
        assertThat(x("$$$(VAR_A)")).isEqualTo("$A");
        assertThat(x("$$$$(VAR_A)")).isEqualTo("$$(VAR_A)");
        assertThat(x("$(VAR_A")).isEqualTo("$(VAR_A");
        assertThat(x("$VAR_A")).isEqualTo("$VAR_A");
        assertThat(x("$")).isEqualTo("$");
        assertThat(x("$$")).isEqualTo("$");
        assertThat(x("$$$")).isEqualTo("$$");
        assertThat(x("$()")).isEqualTo("$()");
        assertThat(x("f00__(VAR_A)__")).isEqualTo("f00__(VAR_A)__");
    }

    /** util_test.go TestFindPortByName and TestResolveContainerPort, plus the numeric-string fallback of util.go. */
    @Test
    void utilTest_TestResolveContainerPort() {
        Map<String, Integer> ports = Map.of("foo", 8080, "bar", 9000);
        assertThat(PortResolver.resolve(ProbeHandler.PortRef.of(443), Map.of()).port()).contains(443);
        assertThat(PortResolver.resolve(ProbeHandler.PortRef.of(66666), Map.of()))
                .isEqualTo(new PortResolver.Unresolved("invalid port number: 66666"));
        assertThat(PortResolver.resolve(ProbeHandler.PortRef.named("foo"), ports).port()).contains(8080);
        assertThat(PortResolver.resolve(ProbeHandler.PortRef.named("foo"), Map.of("bar", 9000)))
                .isInstanceOf(PortResolver.Unresolved.class);
        // "maybe it was an int stored as string?" (ResolveContainerPort's last-ditch Atoi)
        assertThat(PortResolver.resolve(ProbeHandler.PortRef.named("8081"), ports).port()).contains(8081);
        assertThat(PortResolver.resolve(ProbeHandler.PortRef.named("99999"), ports)).isInstanceOf(PortResolver.Unresolved.class);
        // a container port may itself be named with digits: the name wins
        assertThat(PortResolver.resolve(ProbeHandler.PortRef.named("8081"), Map.of("8081", 9090)).port()).contains(9090);
        // the validators' R22 check uses the same rule
        ProbeHandler numeric = new ProbeHandler.TcpSocket(java.util.Optional.empty(), ProbeHandler.PortRef.named("8081"));
        ProbeHandler unknown = new ProbeHandler.TcpSocket(java.util.Optional.empty(), ProbeHandler.PortRef.named("metrics"));
        assertThat(PortResolver.unknownPortName(numeric, ports)).isEmpty();
        assertThat(PortResolver.unknownPortName(unknown, ports)).contains("metrics");
    }
}
