package dev.vitals.kubesim.model;

import dev.vitals.kubesim.input.InvalidInputException;
import dev.vitals.kubesim.input.Violation;
import dev.vitals.kubesim.manifest.ProbeFlags;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Probe fields, defaults (R2, R3) and the API server's validation (R1, R8–R11). */
class ProbeModelTest {

    private static ProbeSpec.Builder http(ProbeType t) {
        return ProbeSpec.builder(t).handler(new ProbeHandler.HttpGet(Optional.empty(), ProbeHandler.PortRef.of(8080), "/livez",
                "HTTP", List.of()));
    }

    @Test
    void r2_zeroOrUnsetFieldsTakeKubeletDefaults() {
        ProbeSpec p = http(ProbeType.LIVENESS).build();
        assertThat(p.timeoutSeconds()).isEqualTo(1);
        assertThat(p.periodSeconds()).isEqualTo(10);
        assertThat(p.successThreshold()).isEqualTo(1);
        assertThat(p.failureThreshold()).isEqualTo(3);
        assertThat(p.initialDelaySeconds()).isZero();
        assertThat(p.terminationGracePeriodSeconds()).isEmpty();
    }

    @Test
    void r1_exactlyOneHandler() {
        assertThat(ProbeSpec.builder(ProbeType.LIVENESS).validate()).extracting(Violation::rule).containsExactly("R1");
        ProbeSpec.Builder two = http(ProbeType.LIVENESS).handler(new ProbeHandler.TcpSocket(Optional.empty(),
                ProbeHandler.PortRef.of(1)));
        assertThatThrownBy(two::build).isInstanceOf(InvalidInputException.class)
                .hasMessageContaining("may not specify more than 1 handler type");
    }

    @Test
    void r8_negativeValuesAreRejectedAndTForPIsAccepted() {
        assertThat(http(ProbeType.READINESS).periodSeconds(-1).failureThreshold(-2).validate())
                .extracting(Violation::rule).containsExactly("R8", "R8");
        assertThat(http(ProbeType.READINESS).timeoutSeconds(30).periodSeconds(5).validate()).isEmpty();
    }

    @Test
    void r9_successThresholdMustBeOneForLivenessAndStartup() {
        assertThat(http(ProbeType.LIVENESS).successThreshold(2).validate()).extracting(Violation::rule).containsExactly("R9");
        assertThat(http(ProbeType.STARTUP).successThreshold(3).validate()).extracting(Violation::rule).containsExactly("R9");
        assertThat(http(ProbeType.READINESS).successThreshold(3).validate()).isEmpty();
    }

    @Test
    void r10_probeGraceMustBePositiveAndIsForbiddenOnReadiness() {
        assertThat(http(ProbeType.LIVENESS).terminationGracePeriodSeconds(0).validate()).extracting(Violation::rule)
                .containsExactly("R10");
        assertThat(http(ProbeType.READINESS).terminationGracePeriodSeconds(5).validate()).extracting(Violation::rule)
                .containsExactly("R10");
        assertThat(http(ProbeType.LIVENESS).terminationGracePeriodSeconds(5).build().terminationGracePeriodSeconds())
                .hasValue(5);
    }

    @Test
    void r11_handlerChecks() {
        assertThat(ProbeSpec.builder(ProbeType.LIVENESS).handler(new ProbeHandler.HttpGet(Optional.empty(),
                ProbeHandler.PortRef.of(70000), "/", "http", List.of(new ProbeHandler.HttpHeader("Bad Header", "x"))))
                .validate()).extracting(Violation::message).anyMatch(m -> m.contains("\"http\""))
                .anyMatch(m -> m.contains("between 1 and 65535")).anyMatch(m -> m.contains("invalid HTTP header name"));
        assertThat(ProbeSpec.builder(ProbeType.LIVENESS).handler(new ProbeHandler.TcpSocket(Optional.empty(),
                ProbeHandler.PortRef.named("Web_Port"))).validate()).extracting(Violation::rule).containsExactly("R11");
        assertThat(ProbeSpec.builder(ProbeType.LIVENESS).handler(new ProbeHandler.TcpSocket(Optional.empty(),
                ProbeHandler.PortRef.named("http-alt"))).validate()).isEmpty();
        assertThat(ProbeSpec.builder(ProbeType.LIVENESS).handler(new ProbeHandler.Exec(List.of())).validate())
                .extracting(Violation::rule).containsExactly("R11");
        assertThat(ProbeSpec.builder(ProbeType.LIVENESS).handler(new ProbeHandler.Grpc(0, "")).validate())
                .extracting(Violation::rule).containsExactly("R11");
    }

    @Test
    void flagsParseEveryHandlerAndKubeletFieldNames() {
        ProbeSpec h = ProbeFlags.parse(ProbeType.LIVENESS,
                "http://:8080/livez?x=1,periodSeconds=2,failureThreshold=4,timeoutSeconds=3,initialDelaySeconds=5,"
                        + "header=X-Probe:1,terminationGracePeriodSeconds=7").build();
        assertThat(h.periodSeconds()).isEqualTo(2);
        assertThat(h.failureThreshold()).isEqualTo(4);
        assertThat(h.timeoutSeconds()).isEqualTo(3);
        assertThat(h.initialDelaySeconds()).isEqualTo(5);
        assertThat(h.terminationGracePeriodSeconds()).hasValue(7);
        ProbeHandler.HttpGet g = (ProbeHandler.HttpGet) h.handler();
        assertThat(g.path()).isEqualTo("/livez?x=1");
        assertThat(g.headers()).containsExactly(new ProbeHandler.HttpHeader("X-Probe", "1"));
        assertThat(ProbeFlags.parse(ProbeType.READINESS, "https://localhost:web/ready").build().handler())
                .isEqualTo(new ProbeHandler.HttpGet(Optional.of("localhost"), ProbeHandler.PortRef.named("web"), "/ready",
                        "HTTPS", List.of()));
        assertThat(ProbeFlags.parse(ProbeType.LIVENESS, "tcp://:5432").build().handler())
                .isEqualTo(new ProbeHandler.TcpSocket(Optional.empty(), ProbeHandler.PortRef.of(5432)));
        assertThat(ProbeFlags.parse(ProbeType.LIVENESS, "grpc://:9090/liveness").build().handler())
                .isEqualTo(new ProbeHandler.Grpc(9090, "liveness"));
        assertThat(ProbeFlags.parse(ProbeType.LIVENESS, "exec:cat /tmp/healthy,period=1").build().handler())
                .isEqualTo(new ProbeHandler.Exec(List.of("cat", "/tmp/healthy")));
    }

    @Test
    void badFlagsGiveClearErrors() {
        assertThatThrownBy(() -> ProbeFlags.parse(ProbeType.LIVENESS, "ftp://x:1/")).isInstanceOf(InvalidInputException.class)
                .hasMessageContaining("expected http://");
        assertThatThrownBy(() -> ProbeFlags.parse(ProbeType.LIVENESS, "http://:80/,periodSecnds=1"))
                .hasMessageContaining("unknown field 'periodSecnds'");
        assertThatThrownBy(() -> ProbeFlags.parse(ProbeType.LIVENESS, "http://:80/,periodSeconds=x"))
                .hasMessageContaining("whole number");
        assertThatThrownBy(() -> ProbeFlags.parse(ProbeType.LIVENESS, "grpc://:grpc")).hasMessageContaining("port number");
        assertThatThrownBy(() -> ProbeFlags.parse(ProbeType.LIVENESS, "http://:80/,successThreshold=2").build())
                .hasMessageContaining("R9");
    }

    @Test
    void durationsParseUnits() {
        assertThat(Durations.parse("500ms").toMillis()).isEqualTo(500);
        assertThat(Durations.parse("1.5s").toMillis()).isEqualTo(1500);
        assertThat(Durations.parse("2m").toSeconds()).isEqualTo(120);
        assertThat(Durations.parse("90").toSeconds()).isEqualTo(90);
        assertThatThrownBy(() -> Durations.parse("soon")).isInstanceOf(InvalidInputException.class);
    }
}
