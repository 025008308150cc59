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

    /** Requests run on virtual threads, one each, with no pool: not watched yet (docs/agent.md, Known limits). */
    @Override
    protected boolean hasWatchedRequestPool() {
        return false;
    }

    @Override
    protected List<String> appArgs(int appPort, int adminPort) {
        return List.of("--port", String.valueOf(appPort));
    }
}
