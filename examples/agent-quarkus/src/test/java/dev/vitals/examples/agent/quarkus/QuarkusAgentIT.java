package dev.vitals.examples.agent.quarkus;

import dev.vitals.agent.FrameworkAgentScenario;
import java.nio.file.Path;
import java.util.List;

/** Quarkus 3 (Vert.x, worker pool) with the agent: readiness at /q/health/ready. */
class QuarkusAgentIT extends FrameworkAgentScenario {
    @Override
    protected String name() {
        return "quarkus";
    }

    @Override
    protected Path jar() {
        return Path.of(System.getProperty("example.jar", "target/quarkus-app/quarkus-run.jar"));
    }

    @Override
    protected List<String> jvmArgs(int appPort, int adminPort) {
        return List.of("-Dquarkus.http.port=" + appPort, "-Dquarkus.http.host=127.0.0.1");
    }

    @Override
    protected String readinessPath() {
        return "/q/health/ready";
    }
}
