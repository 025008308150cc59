package dev.vitals.kubesim.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** {@code vitals fleet calibrate} against a real replica with known numbers (tag "fleet-live"). */
@Tag("fleet-live")
class CalibrationTest {
    @Test
    void measuresStartServiceTimeAndWorkers() throws Exception {
        // 4 workers, 100 ms per request, 700 ms of start-up before the port opens
        Calibration.Result r = new Calibration(LiveFleetTest.replica(4, 100, 700), "/", 20, 32, Duration.ofSeconds(60),
                ProcessBuilder.Redirect.DISCARD).run();
        assertThat(r.startSeconds()).as(r.text()).isGreaterThanOrEqualTo(0.7);
        assertThat(r.serviceP50Ms()).as(r.text()).isBetween(100.0, 400.0);
        assertThat(r.workers()).as(r.text()).isBetween(2, 6);
        assertThat(r.yaml()).startsWith("replica: {workers: " + r.workers() + ", startTime: ");
    }
}
