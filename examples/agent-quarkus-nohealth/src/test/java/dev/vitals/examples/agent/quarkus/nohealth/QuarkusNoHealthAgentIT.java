package dev.vitals.examples.agent.quarkus.nohealth;

import dev.vitals.agent.FrameworkAgentScenario;
import java.util.List;

/**
 * Quarkus 3 without a health extension (the getting-started shape) with the agent: no endpoint
 * to ask, so readiness and startup follow the listener and the agent sends the application no
 * request; the idle, saturated and wedged faults as for every framework.
 */
class QuarkusNoHealthAgentIT extends FrameworkAgentScenario {
    QuarkusNoHealthAgentIT() {
        super("quarkus-nohealth", "target/quarkus-app/quarkus-run.jar", "readiness follows the listener");
    }

    @Override
    protected List<String> jvmArgs(int appPort, int adminPort) {
        return List.of("-Dquarkus.http.port=" + appPort, "-Dquarkus.http.host=127.0.0.1");
    }

    @Override
    protected boolean hasHealthCheck() {
        return false;
    }
}
