package dev.vitals.examples.agent.quarkus;

import dev.vitals.agent.FrameworkAgentScenario;
import java.util.List;

/** Quarkus 3 (Vert.x, worker pool) with the agent: readiness at /q/health/ready. */
class QuarkusAgentIT extends FrameworkAgentScenario {
    QuarkusAgentIT() {
        super("quarkus", "target/quarkus-app/quarkus-run.jar", "/q/health/ready");
    }

    @Override
    protected List<String> jvmArgs(int appPort, int adminPort) {
        return List.of("-Dquarkus.http.port=" + appPort, "-Dquarkus.http.host=127.0.0.1");
    }
}
