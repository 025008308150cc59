package dev.vitals.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The agent never starts the JDK's logging (issue 37): its lines, and those of the Vitals core and
 * probe server inside it, are plain {@code vitals-agent:} lines on standard error, and an
 * application that sets {@code java.util.logging.manager} in its {@code main} gets its manager.
 */
class AgentLoggingIT {
    private static String run(String agentArgs) throws Exception {
        List<String> cmd = List.of(Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-javaagent:" + AgentProcess.AGENT + "=port=0,host=127.0.0.1,readiness=none" + agentArgs,
                "-cp", Paths.get("target", "test-classes").toAbsolutePath().toString(), JulManagerApp.class.getName());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        try {
            assertThat(p.waitFor(90, TimeUnit.SECONDS)).as("the child JVM ends").isTrue();
            return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        } finally {
            p.destroyForcibly();
        }
    }

    @Test
    void theApplicationChoosesItsLogManagerInMainAndTheAgentWritesPlainLines() throws Exception {
        String out = run("");
        assertThat(out).contains("manager: " + JulManagerApp.OwnManager.class.getName())
                .contains("vitals-agent: probe server listening on /127.0.0.1:")
                .doesNotContain("INFO: ")       // java.util.logging's SimpleFormatter
                .doesNotContain("dev.vitals.server.ProbeServer start");
    }

    @Test
    void logOffSilencesTheEngineButNotTheStartLine() throws Exception {
        String out = run(",log=off");
        assertThat(out).contains("manager: " + JulManagerApp.OwnManager.class.getName())
                .contains("vitals-agent: probes on port ")
                .doesNotContain("probe server listening");
    }
}
