package dev.vitals.examples.agent.micronaut;

import dev.vitals.agent.FrameworkAgentScenario;
import java.util.List;

/** Micronaut 4 (Netty) with the agent: readiness at /health/readiness. */
class MicronautAgentIT extends FrameworkAgentScenario {
    MicronautAgentIT() {
        super("micronaut", "target/agent-micronaut.jar", "/health/readiness");
    }

    @Override
    protected List<String> jvmArgs(int appPort, int adminPort) {
        return List.of("-Dmicronaut.server.port=" + appPort, "-Dmicronaut.server.host=127.0.0.1");
    }
}
