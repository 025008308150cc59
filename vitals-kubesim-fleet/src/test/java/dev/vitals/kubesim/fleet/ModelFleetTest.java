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
    void theIncidentStressRestartsTheNaiveFleetAndNotVitals() {
        FleetResult naive = new ModelFleet(FleetScenarios.spec("incident-stress", 12, FleetScenarios.Wiring.NAIVE), "naive").run();
        FleetResult vitals = new ModelFleet(FleetScenarios.spec("incident-stress", 12, FleetScenarios.Wiring.VITALS), "vitals").run();
        assertThat(naive.totals().replicasRestarted()).isGreaterThanOrEqualTo(9);
        assertThat(naive.passed()).isTrue();
        // severity beyond the saturated restart count
        assertThat(naive.totals().crashLoopSeconds()).isGreaterThan(60);
        assertThat(naive.totals().maxDown()).isEqualTo(12);
        assertThat(naive.totals().noEndpointRequests()).isPositive();
        assertThat(naive.totals().notReadySeconds())
                .isCloseTo(naive.lanes().stream().mapToDouble(FleetResult.Lane::notReadySeconds).sum(), org.assertj.core.data.Offset.offset(0.1));
        assertThat(naive.totals().crashLoopSeconds())
                .isCloseTo(naive.lanes().stream().mapToDouble(FleetResult.Lane::crashLoopSeconds).sum(), org.assertj.core.data.Offset.offset(0.1));
        // a replica is never in back-off longer than it is not Ready
        assertThat(naive.lanes()).allSatisfy(l -> assertThat(l.crashLoopSeconds()).isLessThanOrEqualTo(l.notReadySeconds() + 1e-6));
        assertThat(vitals.totals().restarts()).isZero();
        assertThat(vitals.totals().minEndpoints()).isEqualTo(12);
        assertThat(vitals.totals().crashLoopSeconds()).isZero();
        assertThat(vitals.totals().maxDown()).isZero();
        assertThat(vitals.passed()).isTrue();
    }

    @Test
    void theSeedLoadIsOneScriptOf53ExportsOverKeptConnections() {
        // the incident as written: 53 exports at concurrency 50, one retry; spread over 12 replicas by
        // connection, no replica gets near its 40 workers, so no probe waits
        for (FleetScenarios.Wiring w : FleetScenarios.Wiring.values()) {
            FleetResult r = new ModelFleet(FleetScenarios.spec("incident", 12, w), w.flag()).run();
            assertThat(r.totals().requests()).as(w.flag()).isEqualTo(53);
            assertThat(r.totals().attempts()).as(w.flag()).isEqualTo(53);
            assertThat(r.totals().failed()).as(w.flag()).isZero();
            assertThat(r.totals().kills()).as(w.flag()).isZero();
            // 4-12 s of work plus the cold JIT's factor; nothing queues at 12 replicas
            assertThat(r.totals().p99LatencyMs()).as(w.flag()).isBetween(12_000.0, 18_000.0);
        }
    }

    @Test
    void theSeedBurstOnOneReplicaAgreesWithTheAnchor() {
        // anchor: burst 53 @ 50 on one pod of 40 workers: timeout 3 s gave 1 timeout and 0 restarts,
        // kubelet's default 1 s gave 1 restart
        String yaml = String.join("\n",
                "replicas: 1",
                "duration: 90s",
                "replica: {workers: 40, startTime: 4500ms, warmupFactor: 1.5, warmupTime: 10s}",
                "probes:",
                "  server: app-pool",
                "  startup: {periodSeconds: 1, failureThreshold: 60}",
                "  liveness: {periodSeconds: 2, timeoutSeconds: %d, failureThreshold: 3}",
                "clients:",
                "  - {name: script, concurrency: 50, total: 53, persistent: true, from: 2s, serviceTime: {min: 4s, max: 12s},"
                        + " timeout: 60s, retries: 1, retryDelay: 1s}",
                "");
        FleetResult three = new ModelFleet(spec(String.format(yaml, 3)), "t3").run();
        FleetResult one = new ModelFleet(spec(String.format(yaml, 1)), "t1").run();
        assertThat(three.totals().kills()).isZero();
        assertThat(three.totals().requests()).isEqualTo(53);
        assertThat(one.totals().kills()).isEqualTo(1);
        // the kill reset every export in flight; each was re-sent once, into a Service with no endpoint
        assertThat(one.totals().noEndpointRequests()).isPositive();
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
