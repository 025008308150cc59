package dev.vitals.bench.suite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/** tools/soak's options: parsed and checked without I/O; bad usage is one line and exit 2. */
class SoakRunTest {
    private static SoakRun parse(String... args) {
        return (SoakRun) SoakRun.parse(args).getCommand();
    }

    @Test
    void defaultsAreTenMinutesWithAOneMinuteWarmUp() {
        SoakRun r = parse();
        assertThat(r.duration).isEqualTo(Duration.ofMinutes(10));
        assertThat(r.warmUp).isEqualTo(Duration.ofMinutes(1));
        assertThat(r.probeWarmUp).as("probes are judged from the demo's ready line").isZero();
        assertThat(r.cycle).isEqualTo(Duration.ofSeconds(30));
        assertThat(r.period).isEqualTo(Duration.ofSeconds(1));
        assertThat(r.marginMs).isEqualTo(200);
        assertThat(r.checkMode).isEqualTo("on-demand");
        assertThat(r.hostileAddresses).isEqualTo(8);
    }

    @Test
    void theShortFormIsTwoMinutesWithAFortySecondWarmUp() {
        SoakRun r = parse("--short");
        assertThat(r.duration).isEqualTo(Duration.ofMinutes(2));
        assertThat(r.warmUp).isEqualTo(Duration.ofSeconds(40));
    }

    @ParameterizedTest
    @CsvSource({"0,0", "1,30", "20,30", "30,30", "31,60", "60,60"})
    void theFirstComparedQuietSampleIsTheFirstCycleStartAfterTheWarmUp(long warmUpSeconds, long expected) {
        assertThat(SoakRun.firstQuiet(Duration.ofSeconds(warmUpSeconds), Duration.ofSeconds(30))).isEqualTo(Duration.ofSeconds(expected));
    }

    @ParameterizedTest
    @CsvSource({"500ms,500", "90s,90000", "90,90000", "10m,600000", "1h,3600000"})
    void durationsTakeAUnit(String text, long millis) {
        assertThat(new SoakRun.DurationConverter().convert(text)).isEqualTo(Duration.ofMillis(millis));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "--short --duration 5m|--short and --duration exclude each other",
        "--duration 30s|--duration must be at least the warm-up rounded up to a cycle, + 1 cycle + 1 s (61 s) to compare two quiet samples, was 30 s",
        "--duration 10x|expected a duration such as 90s, 10m or 1h, was '10x'",
        "--cycle 5s|--cycle must be between 9.0 s and 600 s, was 5.0 s",
        "--period 500ms|--period must be between 1.0 s and 300 s, was 0.5 s",
        "--check-mode lazy|--check-mode must be on-demand or scheduled, was 'lazy'",
        "--slow-check-ms 3000|--slow-check-ms (3000) must be below --check-timeout-ms (2000): a check that times out fails readiness, which is not what a soak measures",
        "--flood 100000|--flood must be between 0 and 5000, was 100000",
        "--margin-ms -1|--margin-ms must be between 0 and 60000, was -1",
        "--duration 25h|--duration must be between 0.0 s and 86400 s, was 90000.0 s",
        "--duration 2m --probe-warm-up 2m|--probe-warm-up (120 s) must be shorter than --duration (120 s): no probe would be judged",
        "--probe-warm-up 2h|--probe-warm-up must be between 0.0 s and 3600 s, was 7200.0 s",
        "--bogus|Unknown option: '--bogus'"})
    void badUsageIsOneClearLine(String args, String message) {
        assertThatThrownBy(() -> SoakRun.parse(args.split(" "))).isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining(message);
    }

    @Test
    void badUsageExitsTwo() {
        assertThat(SoakRun.run("--cycle", "1s")).isEqualTo(2);
    }

    @Test
    void helpIsNotValidated() {
        assertThat(SoakRun.run("--help", "--duration", "1s")).isZero();
    }

    @Test
    void aMissingJarIsExitOneBeforeAnythingStarts() {
        assertThat(SoakRun.run("--short", "--jar", "/nonexistent/vitals-demo.jar")).isEqualTo(1);
    }

    @Test
    void theReadyLineGivesThePorts() {
        Map<String, String> f = SoakRun.fields("wiring=vitals port=41 probe-port=42 db-port=43 workers=40 startup-ms=9 grpc-port=44 metrics-port=45");
        assertThat(f).containsEntry("port", "41").containsEntry("probe-port", "42").containsEntry("grpc-port", "44");
        assertThatThrownBy(() -> SoakRun.fields("wiring=vitals port=41 probe-port=42"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("no grpc-port");
    }
}
