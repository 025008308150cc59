package dev.vitals.examples.agent.grpc;

import static dev.vitals.agent.AgentProcess.get;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.vitals.agent.AgentProcess;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A gRPC-only grpc-java service with the agent: startup and readiness from its
 * {@code grpc.health.v1.Health/Check} over h2c (or from the listener without a health service),
 * and not one HTTP/1 request: grpc-java logs a stack trace for each one it gets, and the log must
 * have none.
 */
class GrpcAgentIT {
    private static final Path JAR = Path.of(System.getProperty("example.jar", "target/agent-grpc.jar"));

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    @Test
    void startsAndBecomesReadyFromItsHealthService() throws Exception {
        int port = freePort();
        try (AgentProcess p = AgentProcess.start("grpc", "port=0,details=always,readiness-interval=1s", List.of(), JAR,
                "--port", String.valueOf(port))) {
            int probes = p.probePort();
            await("ready").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(250))
                    .until(() -> get(probes, "/readyz").status == 200);
            assertThat(get(probes, "/startupz").status).isEqualTo(200);
            assertThat(get(probes, "/livez").status).isEqualTo(200);
            String readiness = get(probes, "/health/readiness").body;
            assertThat(readiness).contains("grpc.health.v1.Health/Check", "SERVING");
            Thread.sleep(3000); // a few more polls on the kept connection
            assertThat(get(probes, "/readyz").status).isEqualTo(200);
            assertThat(p.output()).contains("readiness from grpc.health.v1.Health/Check")
                    .doesNotContain("Exception").doesNotContain("\tat ");
        }
    }

    @Test
    void withoutAHealthServiceReadinessFollowsTheListener() throws Exception {
        int port = freePort();
        try (AgentProcess p = AgentProcess.start("grpc-nohealth", "port=0,details=always,readiness-interval=1s", List.of(), JAR,
                "--port", String.valueOf(port), "--no-health")) {
            int probes = p.probePort();
            await("ready").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(250))
                    .until(() -> get(probes, "/readyz").status == 200);
            assertThat(get(probes, "/startupz").status).isEqualTo(200);
            assertThat(get(probes, "/health/readiness").body).contains("readiness follows the listener");
            assertThat(p.output()).doesNotContain("Exception").doesNotContain("\tat ");
        }
    }
}
