package dev.vitals.kubesim.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A rolling update of 3 replicas on the model engine and live (tag "fleet-live", about 100 s on a
 * loaded machine), in both wirings of {@code vitals replay rollout}: the new version's readiness
 * on port open (naive) or after its warm-up (warmed). Live: 3 {@link SyntheticReplica} processes
 * behind the real Service, replaced by 3 of the new version (maxSurge 100 %, maxUnavailable 0),
 * which start cold (service time × 8 falling to × 1 over 15 s).
 *
 * <p>Tolerances (docs/fleet.md, "Model and live agree"): in both engines and both wirings the
 * rollout completes and never stalls; time to complete within ±12 s of each other (live pods
 * start later on a loaded machine: a JVM, not 3 s of virtual time); naive: the new version fails
 * at least half its attempts in both, within ±25 points of each other, client errors within ±30
 * points; warmed: the new version fails under 1 % and clients under 3 % in both. Seen at load 25:
 * naive complete at 7 s (model) vs 11 s (live), new version failed 99.0 % vs 96.4 %, client errors
 * 75.6 % vs 59.6 %; warmed complete at 22 s vs 21 s, new version 0 % vs 0 %, client errors 0.69 %
 * vs 0.85 %. A second run: naive 7 s vs 10 s, 99.0 % vs 98.5 %, 75.6 % vs 67.7 %; warmed 22 s vs
 * 21 s, 0 % vs 0 %, 0.69 % vs 0.32 %.
 */
@Tag("fleet-live")
class RolloutModelLiveTest {
    static final String SCENARIO = String.join("\n",
            "replicas: 3",
            "duration: 35s",
            "seed: 7",
            "replica: {workers: 4, startTime: 1s, stopTime: 1s}",
            "probes:",
            "  server: isolated",
            "  startup: {periodSeconds: 1, timeoutSeconds: 1, failureThreshold: 30}",
            "  liveness: {periodSeconds: 5, timeoutSeconds: 2, failureThreshold: 3}",
            "  readiness: {periodSeconds: 1, timeoutSeconds: 1, failureThreshold: 1}",
            "clients: [{name: app, rate: 30, serviceTime: 200ms, timeout: 2s, retries: 1, retryDelay: 200ms}]",
            "rollout: {at: 2s, strategy: {maxSurge: 100%, maxUnavailable: 0}, startTime: 3s, warmup: {factor: 8, period: 15s}, readiness: READINESS}",
            "");

    static List<String> replica() {
        // 4 workers, 200 ms per request, answering 1 s after its JVM started, SIGTERM drains for up to 1 s (the model's stopTime)
        return SyntheticReplica.command(4, 200, 200, 1000, 1000, 1, 0);
    }

    @Test
    void modelAndLiveAgreeOnARollingUpdateInBothWirings() throws Exception {
        for (String readiness : List.of("port-open", "warmed")) {
            FleetSpec spec = FleetSpecReader.parse(SCENARIO.replace("READINESS", readiness), "rollout-" + readiness + ".yaml");
            FleetResult model = new ModelFleet(spec, "model " + readiness).run();
            FleetResult live = new LiveFleet(spec, replica(), 0, "/", ProcessBuilder.Redirect.DISCARD, line -> { },
                    "live " + readiness).run();
            String both = FleetReport.text(model) + FleetReport.text(live);
            System.out.print(both);
            FleetResult.RolloutStatus m = model.rollout().orElseThrow();
            FleetResult.RolloutStatus l = live.rollout().orElseThrow();
            for (FleetResult.RolloutStatus ro : List.of(m, l)) {
                assertThat(ro.condition()).as(both).isEqualTo("Progressing=True reason NewReplicaSetAvailable");
                assertThat(ro.stalled()).as(both).isFalse();
                assertThat(ro.updatedReplicas()).as(both).isEqualTo(3);
                assertThat(ro.oldReplicas()).as(both).isZero();
            }
            assertThat(Math.abs(l.completedAt() - m.completedAt())).as(both).isLessThanOrEqualTo(12.0);
            double mNew = m.versions().get(1).errorPercent();
            double lNew = l.versions().get(1).errorPercent();
            if (readiness.equals("port-open")) {
                assertThat(mNew).as(both).isGreaterThanOrEqualTo(50.0);
                assertThat(lNew).as(both).isGreaterThanOrEqualTo(50.0);
                assertThat(Math.abs(mNew - lNew)).as(both).isLessThanOrEqualTo(25.0);
                assertThat(Math.abs(model.totals().clientErrorPercent() - live.totals().clientErrorPercent())).as(both)
                        .isLessThanOrEqualTo(30.0);
            } else {
                assertThat(mNew).as(both).isLessThan(1.0);
                assertThat(lNew).as(both).isLessThan(1.0);
                assertThat(model.totals().clientErrorPercent()).as(both).isLessThan(3.0);
                assertThat(live.totals().clientErrorPercent()).as(both).isLessThan(3.0);
            }
            // the live lanes are the model's: 3 old pods, then 3 new ones
            assertThat(live.lanes()).extracting(FleetResult.Lane::version).containsExactly("old", "old", "old", "new", "new", "new");
            assertThat(live.totals().kills()).as("deleting old pods is not a kill").isZero();
        }
    }
}
