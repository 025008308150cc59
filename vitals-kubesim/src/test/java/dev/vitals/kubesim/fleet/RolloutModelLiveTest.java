package dev.vitals.kubesim.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A rolling update of 3 replicas on the model engine and live (tag "fleet-live"), both wirings of
 * {@code vitals replay rollout}: the new version's readiness on port open (naive) or after its
 * warm-up (warmed).
 */
@Tag("fleet-live")
class RolloutModelLiveTest {
    static final String SCENARIO = String.join("\n",
            "replicas: 3",
            "duration: 25s",
            "seed: 7",
            "replica: {workers: 4, startTime: 1s, stopTime: 1s}",
            "probes:",
            "  server: isolated",
            "  startup: {periodSeconds: 1, timeoutSeconds: 1, failureThreshold: 30}",
            "  liveness: {periodSeconds: 5, timeoutSeconds: 2, failureThreshold: 3}",
            "  readiness: {periodSeconds: 1, timeoutSeconds: 1, failureThreshold: 1}",
            "clients: [{name: app, rate: 30, serviceTime: 200ms, timeout: 2s, retries: 1, retryDelay: 200ms}]",
            "rollout: {at: 2s, strategy: {maxSurge: 100%, maxUnavailable: 0}, startTime: 1s, warmup: {factor: 8, period: 5s}, readiness: READINESS}",
            "");

    static List<String> replica() {
        List<String> cmd = new ArrayList<>(LiveFleetTest.replica(4, 200, 1000));
        cmd.add("1000"); // stopMs: SIGTERM drains for up to 1 s, as the model's stopTime
        return cmd;
    }

    @Test
    void modelAndLiveAgreeOnARollingUpdate() throws Exception {
        StringBuilder all = new StringBuilder();
        for (String readiness : List.of("port-open", "warmed")) {
            FleetSpec spec = FleetSpecReader.parse(SCENARIO.replace("READINESS", readiness), "rollout-" + readiness + ".yaml");
            FleetResult model = new ModelFleet(spec, "model " + readiness).run();
            FleetResult live = new LiveFleet(spec, replica(), 0, "/", ProcessBuilder.Redirect.DISCARD, line -> { },
                    "live " + readiness).run();
            all.append(FleetReport.text(model)).append(FleetReport.text(live));
            System.out.print(FleetReport.text(model) + FleetReport.text(live));
        }
        assertThat(all.toString()).isNotEmpty();
    }
}
