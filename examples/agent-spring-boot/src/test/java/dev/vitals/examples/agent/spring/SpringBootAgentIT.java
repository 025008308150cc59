package dev.vitals.examples.agent.spring;

import dev.vitals.agent.FrameworkAgentScenario;
import java.util.List;

/**
 * Spring Boot 4 (Tomcat 11, Actuator) with the agent: readiness at /actuator/health/readiness;
 * Tomcat's executor ({@code org.apache.tomcat.util.threads.ThreadPoolExecutor}) measured by the
 * agent's instrumentation, with Spring Boot's defaults (no MBean needed).
 */
class SpringBootAgentIT extends FrameworkAgentScenario {
    SpringBootAgentIT() {
        super("spring-boot", "target/agent-spring-boot.jar", "/actuator/health/readiness");
    }

    @Override
    protected List<String> jvmArgs(int appPort, int adminPort) {
        return List.of("-Dserver.port=" + appPort, "-Dserver.address=127.0.0.1");
    }
}
