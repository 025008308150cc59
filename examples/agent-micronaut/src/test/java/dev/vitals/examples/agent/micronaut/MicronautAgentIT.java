package dev.vitals.examples.agent.micronaut;

import dev.vitals.agent.FrameworkAgentScenario;
import java.nio.file.Path;
import java.util.List;

/** Micronaut 4 (Netty) with the agent: readiness at /health/readiness. */
class MicronautAgentIT extends FrameworkAgentScenario {
    @Override
    protected String name() {
        return "micronaut";
    }

    @Override
    protected Path jar() {
        return Path.of(System.getProperty("example.jar", "target/agent-micronaut.jar"));
    }

    @Override
    protected List<String> jvmArgs(int appPort, int adminPort) {
        return List.of("-Dmicronaut.server.port=" + appPort, "-Dmicronaut.server.host=127.0.0.1");
    }

    @Override
    protected String readinessPath() {
        return "/health/readiness";
    }
}
