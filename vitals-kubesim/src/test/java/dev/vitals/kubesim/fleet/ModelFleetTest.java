package dev.vitals.kubesim.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ModelFleetTest {

    private static FleetSpec spec(String yaml) {
        return FleetSpecReader.parse(yaml, "test.yaml");
    }

    private static final String ONE_REPLICA = String.join("\n",
            "replicas: 1",
            "duration: 60s",
            "replica: {workers: 40, startTime: 2s}",
            "probes:",
            "  server: %s",
            "  startup: {periodSeconds: 1, failureThreshold: 60}",
            "  liveness: {periodSeconds: 2, timeoutSeconds: %d, failureThreshold: 3}",
            "clients:",
            "  - {name: exports, concurrency: 100, serviceTime: {min: 4s, max: 12s}, timeout: 120s, from: 2s, until: 42s}",
            "");

    @Test
    void probeOnThePoolWaitsAboutTheAnchorsRuleOfThumb() {
        // anchor: the probe waits (concurrency − workers) × mean hold ÷ workers = 60 × 8 s ÷ 40 = 12 s
        FleetResult shortTimeout = new ModelFleet(spec(String.format(ONE_REPLICA, "app-pool", 3)), "t3").run();
        FleetResult longTimeout = new ModelFleet(spec(String.format(ONE_REPLICA, "app-pool", 25)), "t25").run();
        assertThat(shortTimeout.totals().kills()).isGreaterThanOrEqualTo(1);
        assertThat(longTimeout.totals().kills()).isZero();
    }

    @Test
    void probeOnItsOwnServerNeverWaits() {
        FleetResult r = new ModelFleet(spec(String.format(ONE_REPLICA, "isolated", 1)), "isolated").run();
        assertThat(r.totals().kills()).isZero();
        assertThat(r.totals().restarts()).isZero();
        // 40 workers × 40 s ÷ 8 s ≈ 200 exports while the clients send, plus most of the 100 in flight at the end
        assertThat(r.totals().requests()).isBetween(240L, 300L);
    }

    @Test
    void lightLoadLatencyIsTheServiceTime() {
        FleetResult r = new ModelFleet(spec(String.join("\n",
                "replicas: 3",
                "duration: 30s",
                "replica: {workers: 10, startTime: 1s}",
                "probes: {server: isolated, readiness: {periodSeconds: 1}}",
                "clients: [{name: u, rate: 30, serviceTime: {min: 20ms, max: 60ms}, timeout: 1s}]",
                "")), "light").run();
        assertThat(r.totals().failed()).isZero();
        assertThat(r.totals().requests()).isBetween(700L, 1100L);
        assertThat(r.totals().meanLatencyMs()).isBetween(20.0, 60.0);
    }

    @Test
    void theKubeletModelRunsPerReplicaCrashLoopIncluded() {
        // start-up 10 s, liveness budget 3 s, no startup probe: every replica is killed in a loop with back-off
        FleetResult r = new ModelFleet(spec(String.join("\n",
                "replicas: 4",
                "duration: 60s",
                "replica: {workers: 4, startTime: 10s}",
                "probes: {server: isolated, liveness: {periodSeconds: 1, failureThreshold: 3}}",
                "clients: [{name: u, rate: 1, serviceTime: 10ms, timeout: 1s}]",
                "")), "crash").run();
        assertThat(r.lanes()).allSatisfy(l -> assertThat(l.kills()).isGreaterThanOrEqualTo(3));
        // no readiness probe: Ready as soon as a container runs, so the Service sends requests to
        // replicas that are still starting (refused), and has no endpoint during back-off
        assertThat(r.totals().zeroEndpointSeconds()).isGreaterThan(20);
        assertThat(r.totals().clientErrorPercent()).isGreaterThan(50);
        // back-off (10 s, 20 s, …) makes the gaps between starts grow
        List<Double> starts = r.lanes().get(0).startTimes();
        assertThat(starts.get(3) - starts.get(2)).isGreaterThan(starts.get(2) - starts.get(1));
    }

    @Test
    void sameSeedSameResult() {
        FleetSpec s = FleetScenarios.spec("rebalance", 6, FleetScenarios.Wiring.NAIVE);
        FleetResult a = new ModelFleet(s, "a").run();
        FleetResult b = new ModelFleet(s, "b").run();
        assertThat(a.totals()).isEqualTo(b.totals());
    }

    @Test
    void theIncidentRestartsTheNaiveFleetAndNotVitals() {
        FleetResult naive = new ModelFleet(FleetScenarios.spec("incident", 12, FleetScenarios.Wiring.NAIVE), "naive").run();
        FleetResult vitals = new ModelFleet(FleetScenarios.spec("incident", 12, FleetScenarios.Wiring.VITALS), "vitals").run();
        assertThat(naive.totals().replicasRestarted()).isGreaterThanOrEqualTo(9);
        assertThat(naive.passed()).isTrue();
        assertThat(vitals.totals().restarts()).isZero();
        assertThat(vitals.totals().minEndpoints()).isEqualTo(12);
        assertThat(vitals.passed()).isTrue();
    }

    @Test
    void criticalSharedDependencyInReadinessEmptiesTheEndpoints() {
        // case C21: 6 replicas, readiness period 10 s, threshold 3; the cache down 60 s
        FleetResult naive = new ModelFleet(FleetScenarios.spec("shared-dependency", 6, FleetScenarios.Wiring.NAIVE), "naive").run();
        FleetResult vitals = new ModelFleet(FleetScenarios.spec("shared-dependency", 6, FleetScenarios.Wiring.VITALS), "vitals").run();
        // unready 20-30 s after the outage starts (3 failures 10 s apart), ready within a period after it ends
        assertThat(naive.totals().zeroEndpointSeconds()).isBetween(30.0, 52.0);
        assertThat(naive.totals().restarts()).isZero();
        assertThat(vitals.totals().minEndpoints()).isEqualTo(6);
        // with the cache non-critical only the requests that need it fail
        assertThat(vitals.totals().clientErrorPercent()).isLessThan(naive.totals().clientErrorPercent());
        assertThat(naive.passed()).isTrue();
        assertThat(vitals.passed()).isTrue();
    }

    @Test
    void oneRestartCascadesThroughANaiveFleetNearCapacity() {
        // case C22: kept connections of the killed replica land on the survivors; probes on the pool time out
        FleetResult naive = new ModelFleet(FleetScenarios.spec("rebalance", 6, FleetScenarios.Wiring.NAIVE), "naive").run();
        FleetResult vitals = new ModelFleet(FleetScenarios.spec("rebalance", 6, FleetScenarios.Wiring.VITALS), "vitals").run();
        assertThat(naive.totals().replicasRestarted()).isGreaterThanOrEqualTo(3);
        // no kill before the action at 60 s: the cascade follows the restart
        assertThat(naive.lanes()).allSatisfy(l -> assertThat(l.killTimes()).allSatisfy(t -> assertThat(t).isGreaterThan(60.0)));
        assertThat(vitals.totals().restarts()).isEqualTo(1);
        assertThat(vitals.totals().kills()).isZero();
        assertThat(vitals.totals().clientErrorPercent()).isLessThan(1);
    }

    @Test
    void runsOnce() {
        ModelFleet f = new ModelFleet(FleetScenarios.spec("shared-dependency", 2, FleetScenarios.Wiring.VITALS).withDuration(Duration.ofSeconds(5)), "x");
        f.run();
        assertThatThrownBy(f::run).isInstanceOf(IllegalStateException.class);
    }
}
