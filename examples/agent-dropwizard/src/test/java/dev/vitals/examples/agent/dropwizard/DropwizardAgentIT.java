package dev.vitals.examples.agent.dropwizard;

import dev.vitals.agent.FrameworkAgentScenario;
import java.nio.file.Path;
import java.util.List;

/** Dropwizard 5 (Jetty) with the agent: readiness at the admin port's /healthcheck. */
class DropwizardAgentIT extends FrameworkAgentScenario {
    @Override
    protected String name() {
        return "dropwizard";
    }

    @Override
    protected Path jar() {
        return Path.of(System.getProperty("example.jar", "target/agent-dropwizard.jar"));
    }

    @Override
    protected List<String> jvmArgs(int appPort, int adminPort) {
        return List.of("-Ddw.server.applicationConnectors[0].port=" + appPort,
                "-Ddw.server.adminConnectors[0].port=" + adminPort);
    }

    @Override
    protected List<String> appArgs(int appPort, int adminPort) {
        return List.of("server", System.getProperty("example.config", "agent-dropwizard.yml"));
    }

    @Override
    protected String readinessPath() {
        return "/healthcheck";
    }

    @Override
    protected int blockingRequests() {
        return 24;
    }
}
