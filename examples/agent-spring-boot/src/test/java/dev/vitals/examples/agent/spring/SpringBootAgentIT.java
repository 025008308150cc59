package dev.vitals.examples.agent.spring;

import dev.vitals.agent.FrameworkAgentScenario;
import java.nio.file.Path;
import java.util.List;

/** Spring Boot 3.5 (Tomcat, Actuator) with the agent: readiness at /actuator/health/readiness. */
class SpringBootAgentIT extends FrameworkAgentScenario {
    @Override
    protected String name() {
        return "spring-boot";
    }

    @Override
    protected Path jar() {
        return Path.of(System.getProperty("example.jar", "target/agent-spring-boot.jar"));
    }

    @Override
    protected List<String> jvmArgs(int appPort, int adminPort) {
        return List.of("-Dserver.port=" + appPort, "-Dserver.address=127.0.0.1");
    }

    @Override
    protected String readinessPath() {
        return "/actuator/health/readiness";
    }
}
