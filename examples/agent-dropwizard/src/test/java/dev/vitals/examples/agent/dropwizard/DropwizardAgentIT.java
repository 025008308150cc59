package dev.vitals.examples.agent.dropwizard;

import dev.vitals.agent.FrameworkAgentScenario;
import java.util.List;

/** Dropwizard 5 (Jetty) with the agent: readiness at the admin port's /healthcheck. */
class DropwizardAgentIT extends FrameworkAgentScenario {
    DropwizardAgentIT() {
        super("dropwizard", "target/agent-dropwizard.jar", "/healthcheck");
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
    protected int blockingRequests() {
        return 24;
    }
}
