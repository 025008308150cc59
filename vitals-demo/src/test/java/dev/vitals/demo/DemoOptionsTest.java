package dev.vitals.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vitals.Mode;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.ParameterException;

class DemoOptionsTest {
    @Test
    void defaultsMatchTheIssue() {
        DemoOptions o = DemoOptions.parse();
        assertThat(o.port()).isEqualTo(8080);
        assertThat(o.probePort()).isEqualTo(8081);
        assertThat(o.wiring()).isEqualTo(Wiring.VITALS);
        assertThat(o.workers()).isEqualTo(40);
        assertThat(o.exportMin()).isEqualTo(Duration.ofSeconds(4));
        assertThat(o.exportMax()).isEqualTo(Duration.ofSeconds(12));
        assertThat(o.startupDelay()).isEqualTo(Duration.ZERO);
        assertThat(o.dbUrl()).isEmpty();
        assertThat(o.syntheticChecks()).isZero();
        assertThat(o.hungCheck()).isFalse();
        assertThat(o.checkMode()).isEqualTo(Mode.SCHEDULED);
        assertThat(o.chaos()).isFalse();
        assertThat(o.host()).isEqualTo("127.0.0.1");
    }

    @Test
    void parsesEveryFlagTheSimulatorPasses() {
        DemoOptions o = DemoOptions.parse("--port", "9000", "--probe-port", "9001", "--wiring", "naive", "--workers", "40",
                "--export-min-ms", "4000", "--export-max-ms", "12000", "--startup-delay-ms", "2200", "--db-port", "9092",
                "--db-url", "jdbc:h2:tcp://127.0.0.1:19092/mem:demo", "--synthetic-checks", "10", "--synthetic-latency-ms",
                "1000", "--hung-check", "--check-mode", "on-demand", "--chaos", "--stall-after-ms", "3000");
        assertThat(o.port()).isEqualTo(9000);
        assertThat(o.probePort()).isEqualTo(9001);
        assertThat(o.wiring()).isEqualTo(Wiring.NAIVE);
        assertThat(o.startupDelay()).isEqualTo(Duration.ofMillis(2200));
        assertThat(o.dbPort()).isEqualTo(9092);
        assertThat(o.dbUrl()).contains("jdbc:h2:tcp://127.0.0.1:19092/mem:demo");
        assertThat(o.syntheticChecks()).isEqualTo(10);
        assertThat(o.syntheticLatency()).isEqualTo(Duration.ofSeconds(1));
        assertThat(o.hungCheck()).isTrue();
        assertThat(o.checkMode()).isEqualTo(Mode.ON_DEMAND);
        assertThat(o.chaos()).isTrue();
        assertThat(o.stallAfter()).isEqualTo(Duration.ofSeconds(3));
        assertThat(DemoOptions.parse("--wiring=VITALS", "--check-mode=scheduled").wiring()).isEqualTo(Wiring.VITALS);
    }

    @Test
    void rejectsBadValuesNamingTheFlagAndTheBound() {
        assertBad("flag", "Unknown option: '--bogus'", "--bogus");
        assertBad("type", "'--workers': 'many' is not an int", "--workers", "many");
        assertBad("enum", "expected 'naive' or 'vitals', was 'smart'", "--wiring", "smart");
        assertBad("mode", "expected 'scheduled' or 'on-demand', was 'sometimes'", "--check-mode", "sometimes");
        assertBad("range", "--workers must be between 1 and 2000, was 0", "--workers", "0");
        assertBad("port", "--port must be between 0 and 65535, was 70000", "--port", "70000");
        assertBad("order", "--export-min-ms (5000) must not exceed --export-max-ms (4000)", "--export-min-ms", "5000",
                "--export-max-ms", "4000");
        assertBad("negative", "--startup-delay-ms must be between 0 and 3600000, was -1", "--startup-delay-ms", "-1");
        assertBad("url", "--db-url must be a JDBC URL starting with 'jdbc:'", "--db-url", "postgres://x");
        assertBad("same ports", "--probe-port must differ from --port (both 9000)", "--port", "9000", "--probe-port", "9000");
        assertBad("db timeout", "--db-timeout-ms must be between 250 and 600000, was 10", "--db-timeout-ms", "10");
        assertBad("db name", "--db-name must be 1-64 letters, digits or '_'", "--db-name", "x;INIT=RUNSCRIPT");
        assertBad("missing value", "Missing required parameter for option '--port'", "--port");
        assertBad("grpc port", "--grpc-port must be between 0 and 65535, was -1", "--grpc-port", "-1");
        assertBad("grpc naive", "--grpc-port needs --wiring vitals", "--wiring", "naive", "--grpc-port", "9090");
        assertBad("grpc same port", "--grpc-port must differ from --port and --probe-port (8081)", "--grpc-port", "8081");
        assertBad("metrics port", "--metrics-port must be between 0 and 65535, was 65536", "--metrics-port", "65536");
        assertBad("metrics naive", "--metrics-port needs --wiring vitals", "--wiring", "naive", "--metrics-port", "9100");
        assertBad("metrics same port", "--metrics-port must differ from --port, --probe-port and --grpc-port (9090)",
                "--grpc-port", "9090", "--metrics-port", "9090");
    }

    private static void assertBad(String why, String message, String... args) {
        assertThatThrownBy(() -> DemoOptions.parse(args)).as(why).isInstanceOf(ParameterException.class)
                .hasMessageContaining(message);
    }

    @Test
    void mainExitsTwoWithAClearErrorOnBadFlags() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = DemoMain.run(new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                "--workers", "-3");
        assertThat(code).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("vitals-demo: --workers must be between 1 and 2000, was -3")
                .contains("--help");
        assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
    }

    @Test
    void helpPrintsEveryFlagAndExitsZero() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int code = DemoMain.run(new PrintStream(out, true, StandardCharsets.UTF_8), System.err, "--help", "--workers", "0");
        assertThat(code).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("--port", "--probe-port", "--wiring", "--workers",
                "--export-min-ms", "--startup-delay-ms", "--db-url", "--db-port", "--synthetic-checks", "--hung-check",
                "--check-mode", "--chaos", "--stall-after-ms", "--drain-ms");
    }

    @Test
    void startupFailureExitsOneWithTheReason() throws Exception {
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int code = DemoMain.run(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8), "--wiring", "naive", "--port",
                    Integer.toString(taken.getLocalPort()), "--db-port", "0", "--db-name", TestSupport.uniqueDbName());
            assertThat(code).isEqualTo(1);
            assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("vitals-demo: cannot start:").contains("Address already in use");
        }
    }

    @Test
    void boundedUrlAddsH2NetworkTimeoutOnlyToRemoteH2UrlsWithoutOne() {
        assertThat(Database.boundedUrl("jdbc:h2:tcp://127.0.0.1:9092/mem:demo", 1000))
                .isEqualTo("jdbc:h2:tcp://127.0.0.1:9092/mem:demo;NETWORK_TIMEOUT=1000");
        assertThat(Database.boundedUrl("jdbc:h2:tcp://127.0.0.1:9092/mem:demo;network_timeout=5", 1000))
                .isEqualTo("jdbc:h2:tcp://127.0.0.1:9092/mem:demo;network_timeout=5");
        assertThat(Database.boundedUrl("jdbc:postgresql://127.0.0.1/demo", 1000)).isEqualTo("jdbc:postgresql://127.0.0.1/demo");
    }
}
