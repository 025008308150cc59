package dev.vitals.kubesim.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The live engine with 3 real replicas behind the real Service (tag "fleet-live": about 40 s;
 * run with -Dvitals.excludedTestGroups=benchmark -Dgroups=fleet-live).
 */
@Tag("fleet-live")
class LiveFleetTest {

    /** @return the command of a {@link SyntheticReplica} with these workers, service and start times */
    static List<String> replica(int workers, long serviceMs, long startMs) {
        return SyntheticReplica.command(workers, serviceMs, serviceMs, startMs, 0, 1, 0);
    }

    @Test
    void aKilledReplicaLeavesTheEndpointsAndARealClientSeesIt() throws Exception {
        FleetSpec spec = FleetSpecReader.parse(String.join("\n",
                "replicas: 3",
                "duration: 14s",
                "seed: 3",
                "replica: {workers: 8, startTime: 1s}",
                "probes:",
                "  server: isolated",
                "  liveness: {periodSeconds: 1, timeoutSeconds: 2, failureThreshold: 3}",
                "  readiness: {periodSeconds: 1, timeoutSeconds: 2, failureThreshold: 1}",
                "clients: [{name: users, concurrency: 6, serviceTime: 50ms, timeout: 5s, retries: 3, retryDelay: 200ms, until: 13s}]",
                "actions: [{at: 4s, kill: 1}]",
                ""), "live.yaml");
        FleetResult r = new LiveFleet(spec, replica(8, 50, 0), 0, "/", ProcessBuilder.Redirect.DISCARD, line -> { }, "live").run();
        assertThat(r.totals().restarts()).as(FleetReport.text(r)).isEqualTo(1);
        assertThat(r.lanes().get(1).startTimes()).hasSize(2);
        assertThat(r.lanes().get(0).startTimes()).hasSize(1);
        // the Service lost the endpoint and got it back
        assertThat(r.totals().minEndpoints()).isEqualTo(2);
        assertThat(r.series().get(r.series().size() - 1).endpoints()).isEqualTo(3.0);
        // real requests went through the Service; some attempts failed at the kill and were retried
        assertThat(r.totals().requests()).isGreaterThan(100);
        assertThat(r.totals().attempts()).isGreaterThan(r.totals().requests());
        assertThat(r.totals().clientErrorPercent()).isLessThan(5);
    }

    @Test
    void replicasRunUnderTheManifestsLimitsEachInItsOwnCgroup() throws Exception {
        FleetSpec spec = FleetSpecReader.parse(String.join("\n",
                "replicas: 2",
                "duration: 4s",
                "seed: 3",
                "replica: {workers: 4, startTime: 1s}",
                "probes:",
                "  server: isolated",
                // a JVM under 200m starts in seconds, more on a loaded machine: a startup probe's budget, so that
                // liveness cannot kill it first (seen at load 25-31: 10 restarts without it)
                "  startup: {periodSeconds: 1, timeoutSeconds: 2, failureThreshold: 120}",
                "  liveness: {periodSeconds: 1, timeoutSeconds: 2, failureThreshold: 3}",
                "  readiness: {periodSeconds: 1, timeoutSeconds: 2, failureThreshold: 1}",
                "clients: [{name: users, concurrency: 2, serviceTime: 50ms, timeout: 5s, until: 3s}]",
                ""), "limits.yaml");
        dev.vitals.kubesim.model.Resources limits = dev.vitals.kubesim.model.Resources.NONE.override("200m", null, "256Mi");
        LiveFleet live = new LiveFleet(spec, replica(4, 50, 0), 0, "/", ProcessBuilder.Redirect.DISCARD, line -> { }, "limits", limits);
        assertThat(live.limits()).hasSize(2);
        org.junit.jupiter.api.Assumptions.assumeTrue(live.limits().get(0).applied(), live.limits().get(0).status());
        FleetResult r = live.run();
        assertThat(r.totals().restarts()).as(FleetReport.text(r)).isZero();
        for (dev.vitals.kubesim.runtime.ResourceLimits l : live.limits()) {
            assertThat(l.status()).startsWith("applied through cgroup");
            // each replica's instance ran in its cgroup: the cgroup's counters saw its CPU, its CFS periods and its memory
            assertThat(l.report().instances()).as(l.status()).singleElement().satisfies(u -> {
                assertThat(u.usage().cpu()).hasValueSatisfying(c -> assertThat(c).isPositive());
                assertThat(u.usage().periods()).isPositive();
                assertThat(u.usage().memoryPeakBytes()).isPresent();
            });
        }
        // and the report carries them: JSON lanes[].resources[], an HTML table
        for (FleetResult.Lane lane : r.lanes()) {
            assertThat(lane.resources()).singleElement().satisfies(u -> assertThat(u.usage().cpu()).hasValueSatisfying(c -> assertThat(c).isPositive()));
        }
        String json = FleetReport.json(List.of(r), List.of("limits"), List.of("-"));
        assertThat(json).contains("\"resources\"").contains("\"throttledPeriods\"").contains("\"memoryPeakBytes\"");
        assertThat(FleetReport.html("limits", List.of(r))).contains("Resources: each container instance's cgroup counters")
                .contains("<th>throttled periods</th>");
    }

    @Test
    void aSharedDependencyOutageEmptiesTheEndpointsThroughTheFaultProxy() throws Exception {
        // case C21, live: readiness checks the shared dependency (critical); the fault proxy refuses it for 5 s
        try (java.net.ServerSocket dep = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            Thread acceptor = new Thread(() -> {
                while (!dep.isClosed()) {
                    try (java.net.Socket s = dep.accept()) {
                        s.getOutputStream().flush();
                    } catch (java.io.IOException e) {
                        return;
                    }
                }
            }, "test-dependency");
            acceptor.setDaemon(true);
            acceptor.start();
            FleetSpec spec = FleetSpecReader.parse(String.join("\n",
                    "replicas: 3",
                    "duration: 14s",
                    "replica: {workers: 8, startTime: 1s}",
                    "probes:",
                    "  server: isolated",
                    "  readiness: {periodSeconds: 1, timeoutSeconds: 2, failureThreshold: 1, dependency: critical}",
                    "dependency: {name: cache, target: '127.0.0.1:" + dep.getLocalPort() + "', outages: [{at: 3s, duration: 5s}]}",
                    "clients: [{name: users, concurrency: 3, serviceTime: 50ms, timeout: 2s, retries: 0}]",
                    ""), "c21-live.yaml");
            FleetResult r = new LiveFleet(spec, replica(8, 50, 0), 0, "/", ProcessBuilder.Redirect.DISCARD, line -> { }, "c21").run();
            assertThat(r.totals().restarts()).as(FleetReport.text(r)).isZero();
            // the endpoints go to zero during the outage (from 1 s after it starts, with the propagation delay)
            assertThat(r.totals().minEndpoints()).as(FleetReport.text(r)).isZero();
            assertThat(r.totals().zeroEndpointSeconds()).as(FleetReport.text(r)).isBetween(1.0, 8.0);
            assertThat(r.series().get(r.series().size() - 1).endpoints()).isEqualTo(3.0);
            assertThat(r.totals().failed()).isGreaterThan(0); // refused while no endpoint was Ready
        }
    }
}
