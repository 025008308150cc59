package dev.vitals.examples.agent.helidon;

import dev.vitals.agent.FrameworkAgentScenario;
import java.util.List;

/**
 * Helidon SE 4 (a virtual thread per connection, no pool) with the agent: readiness at
 * /observe/health/ready; its HTTP/1 requests are measured ({@code Http1Connection.route}), so the
 * four faults run as on the pooled frameworks.
 */
class HelidonAgentIT extends FrameworkAgentScenario {
    HelidonAgentIT() {
        super("helidon", "target/agent-helidon.jar", "/observe/health/ready");
    }

    @Override
    protected List<String> jvmArgs(int appPort, int adminPort) {
        return List.of();
    }

    @Override
    protected boolean floodTheProbePort() {
        return true;
    }

    @Override
    protected List<String> appArgs(int appPort, int adminPort) {
        return List.of("--port", String.valueOf(appPort));
    }
}
