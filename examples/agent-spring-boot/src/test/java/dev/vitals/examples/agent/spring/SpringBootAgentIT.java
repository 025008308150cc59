package dev.vitals.examples.agent.spring;

import dev.vitals.agent.FrameworkAgentScenario;
import java.util.List;

/**
 * Spring Boot 3.5 (Tomcat, Actuator) with the agent: readiness at /actuator/health/readiness.
 * Tomcat's MBean registry is on here ({@code server.tomcat.mbeanregistry.enabled=true}, off by
 * Spring Boot's default), so the agent also reads the pool from
 * {@code Tomcat:type=ThreadPool,name="http-nio-127.0.0.1-PORT"}; the other examples cover the
 * threads-only reading.
 */
class SpringBootAgentIT extends FrameworkAgentScenario {
    SpringBootAgentIT() {
        super("spring-boot", "target/agent-spring-boot.jar", "/actuator/health/readiness");
    }

    @Override
    protected List<String> jvmArgs(int appPort, int adminPort) {
        return List.of("-Dserver.port=" + appPort, "-Dserver.address=127.0.0.1",
                "-Dserver.tomcat.mbeanregistry.enabled=true");
    }
}
