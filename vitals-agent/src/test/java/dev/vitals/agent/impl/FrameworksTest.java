package dev.vitals.agent.impl;

import static dev.vitals.agent.impl.AgentOptionsTest.props;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.junit.jupiter.api.Test;

class FrameworksTest {
    @Test
    void eachFrameworksDefaults() {
        Frameworks.Framework q = Frameworks.detect(Set.of(Frameworks.QUARKUS, Frameworks.QUARKUS_HEALTH), props());
        assertThat(q.readiness).containsExactly("/q/health/ready");
        assertThat(q.started).isEqualTo("/q/health/started");
        Frameworks.Framework s = Frameworks.detect(Set.of(Frameworks.SPRING, Frameworks.SPRING_ACTUATOR), props());
        assertThat(s.readiness).containsExactly("/actuator/health/readiness", "/actuator/health");
        assertThat(s.started).isEqualTo("/actuator/health/liveness");
        assertThat(Frameworks.detect(Set.of(Frameworks.MICRONAUT, Frameworks.MICRONAUT_HEALTH), props()).readiness)
                .containsExactly("/health/readiness");
        assertThat(Frameworks.detect(Set.of(Frameworks.HELIDON, Frameworks.HELIDON_HEALTH), props()).started)
                .isEqualTo("/observe/health/started");
        Frameworks.Framework d = Frameworks.detect(Set.of(Frameworks.DROPWIZARD), props());
        assertThat(d.readiness).containsExactly("/healthcheck");
        assertThat(d.started).isNull();
        Frameworks.Framework g = Frameworks.detect(Set.of(Frameworks.GRPC), props());
        assertThat(g.grpc).isTrue();
        assertThat(g.readiness).isEmpty();
        Frameworks.Framework none = Frameworks.detect(Set.of(), props());
        assertThat(none.known).isFalse();
        assertThat(none.readiness).containsExactly("/readyz", "/healthz", "/health");
    }

    @Test
    void springBoot4sActuatorIsFoundByItsNewPackage() {
        // Spring Boot 4.0 moved the health endpoint to spring-boot-health: found by the 3.5 name
        // only, a Boot 4 service (spring-petclinic) had its readiness follow the listener.
        Frameworks.Framework s = Frameworks.detect(Set.of(Frameworks.SPRING, Frameworks.SPRING_ACTUATOR_4), props());
        assertThat(s.readiness).containsExactly("/actuator/health/readiness", "/actuator/health");
        assertThat(s.started).isEqualTo("/actuator/health/liveness");
    }

    @Test
    void aFrameworkWithoutItsHealthModuleGetsNoCandidate() {
        for (String f : new String[] {Frameworks.QUARKUS, Frameworks.SPRING, Frameworks.MICRONAUT, Frameworks.HELIDON}) {
            Frameworks.Framework fw = Frameworks.detect(Set.of(f), props());
            assertThat(fw.known).as(f).isTrue();
            assertThat(fw.readiness).as(f).isEmpty();
            assertThat(fw.started).as(f).isNull();
        }
    }

    @Test
    void configurationMovesThePaths() {
        Frameworks.Framework q = Frameworks.detect(Set.of(Frameworks.QUARKUS, Frameworks.QUARKUS_HEALTH),
                props("quarkus.http.root-path", "/api/", "quarkus.smallrye-health.root-path", "hc"));
        assertThat(q.readiness).containsExactly("/api/q/hc/ready");
        Frameworks.Framework qm = Frameworks.detect(Set.of(Frameworks.QUARKUS, Frameworks.QUARKUS_HEALTH),
                props("quarkus.management.enabled", "true"));
        assertThat(qm.healthPort).isEqualTo(9000);
        Frameworks.Framework s = Frameworks.detect(Set.of(Frameworks.SPRING, Frameworks.SPRING_ACTUATOR, Frameworks.GRPC),
                props("management.server.port", "8081", "management.endpoints.web.base-path", "/manage"));
        assertThat(s.healthPort).isEqualTo(8081);
        assertThat(s.readiness).first().isEqualTo("/manage/health/readiness");
        assertThat(s.grpc).isTrue();
        Frameworks.Framework m = Frameworks.detect(Set.of(Frameworks.MICRONAUT, Frameworks.MICRONAUT_HEALTH),
                props("endpoints.all.port", "8085", "endpoints.all.path", "/mgmt"));
        assertThat(m.healthPort).isEqualTo(8085);
        assertThat(m.readiness).containsExactly("/mgmt/health/readiness");
        assertThat(Frameworks.path("/")).isEmpty();
        assertThat(Frameworks.path("x/")).isEqualTo("/x");
    }
}
