package dev.vitals.examples.agent.helidon;

import dev.vitals.agent.FrameworkAgentScenario;
import java.util.List;

/** Helidon SE 4 (virtual threads, one per request) with the agent: readiness at /observe/health/ready. */
class HelidonAgentIT extends FrameworkAgentScenario {
    HelidonAgentIT() {
        super("helidon", "target/agent-helidon.jar", "/observe/health/ready");
    }

    @Override
    protected List<String> jvmArgs(int appPort, int adminPort) {
        return List.of();
    }

    @Override
    protected List<String> appArgs(int appPort, int adminPort) {
        return List.of("--port", String.valueOf(appPort));
    }
}
