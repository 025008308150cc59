package dev.vitals.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A probe port that cannot be bound stops the JVM before the application's {@code main} runs a
 * line: never a half-working agent, and never an application that ran (bound its ports, started
 * its work) for the moment the agent's background start took to fail (a fresh user's finding).
 */
class AgentProbePortIT {
    @Test
    void aTakenProbePortStopsTheJvmBeforeMain() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            int port = taken.getLocalPort();
            List<String> cmd = List.of(Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
                    "-XX:TieredStopAtLevel=1", "-javaagent:" + AgentProcess.AGENT + "=port=" + port + ",host=127.0.0.1,readiness=none",
                    "-cp", Paths.get("target", "test-classes").toAbsolutePath().toString(), JulManagerApp.class.getName());
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            try {
                assertThat(p.waitFor(90, TimeUnit.SECONDS)).as("the child JVM ends").isTrue();
                String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertThat(p.exitValue()).as(out).isEqualTo(1);
                assertThat(out).isEqualTo("vitals-agent: cannot start: probe server cannot listen on port " + port
                        + " (127.0.0.1): Address already in use" + System.lineSeparator());
            } finally {
                p.destroyForcibly();
            }
        }
    }
}
