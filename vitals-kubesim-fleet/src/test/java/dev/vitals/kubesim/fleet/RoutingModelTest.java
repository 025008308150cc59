package dev.vitals.kubesim.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The routing layer inside the model engine: where requests land, by mode (virtual time, a few seconds in all). */
class RoutingModelTest {
    private static final String FOUR_PODS = String.join("\n",
            "replicas: 4",
            "duration: 30s",
            "replica: {workers: 100, startTime: 1s}",
            "probes: {server: isolated, readiness: {periodSeconds: 1}}",
            "%s",
            "clients:",
            "  - {name: c, concurrency: 20, persistent: true, serviceTime: 200ms, timeout: 5s%s}",
            "");

    private static FleetResult run(String routing, String clientExtra) {
        return new ModelFleet(FleetSpecReader.parse(String.format(FOUR_PODS, routing, clientExtra), "r.yaml"), "r").run();
    }

    private static List<Integer> podsThatServed(FleetResult r) {
        return r.lanes().stream().filter(l -> l.peakInFlight() > 0).map(FleetResult.Lane::replica).collect(Collectors.toList());
    }

    @Test
    void http2MultiplexingPutsOneClientsRequestsOnOnePod() {
        FleetResult r = run("", ", http2: true");
        assertThat(podsThatServed(r)).hasSize(1);
        assertThat(r.lanes().get(podsThatServed(r).get(0)).peakInFlight()).isEqualTo(20);
        assertThat(r.totals().failed()).isZero();
    }

    @Test
    void anIngressSpreadsTheSameHttp2ClientPerRequest() {
        FleetResult r = run("ingress: {loadBalance: round_robin}", ", http2: true");
        assertThat(podsThatServed(r)).containsExactly(0, 1, 2, 3);
        for (FleetResult.Lane l : r.lanes()) {
            assertThat(l.peakInFlight()).isBetween(4L, 6L); // 20 clients in turn over 4 pods: 5 each
        }
    }

    @Test
    void oneSourceAddressWithClientIpAffinityLandsOnOnePod() {
        FleetResult pinned = run("service: {sessionAffinity: ClientIP}", ", keys: 1");
        assertThat(podsThatServed(pinned)).hasSize(1);
        assertThat(pinned.holds()).hasSize(1);
        assertThat(pinned.routing()).isEqualTo("kube-proxy iptables, sessionAffinity ClientIP (10800 s)");
        // the same clients, each connection its own source: spread over the pods
        FleetResult spread = run("service: {sessionAffinity: ClientIP}", "");
        assertThat(podsThatServed(spread).size()).isGreaterThanOrEqualTo(3);
    }

    @Test
    void internalTrafficPolicyLocalKeepsAnInClusterClientOnItsNode() {
        // four replicas on two nodes: 0 and 2 on node 0, 1 and 3 on node 1
        FleetResult r = run("nodes: 2\nservice: {internalTrafficPolicy: Local}", ", node: 1");
        assertThat(podsThatServed(r)).containsExactly(1, 3);
        FleetResult prefer = run("nodes: 2\nservice: {trafficDistribution: PreferSameNode}", ", node: 0");
        assertThat(podsThatServed(prefer)).containsExactly(0, 2);
    }

    @Test
    void aPinnedBurstMovesToOnePodAfterItsPodIsKilled() {
        // the main job's second row at 12 replicas, one seed: the key is on one pod, the pod is killed, the key moves once
        FleetResult r = new ModelFleet(FleetScenarios.spec("incident-pinned", 12, FleetScenarios.Wiring.NAIVE), "pinned").run();
        assertThat(r.totals().podsKilled()).isGreaterThanOrEqualTo(1);
        List<FleetResult.Hold> h = r.holds();
        assertThat(h.size()).isGreaterThanOrEqualTo(2);
        int first = h.get(0).replica();
        double kill = r.lanes().get(first).killTimes().get(0);
        assertThat(h.get(1).replica()).isNotEqualTo(first);
        assertThat(h.get(1).at()).isGreaterThan(kill); // it moved only after its pod was killed (and left the endpoints)
        // Vitals' wiring under the same routing and load: nothing killed
        FleetResult v = new ModelFleet(FleetScenarios.spec("incident-pinned", 12, FleetScenarios.Wiring.VITALS), "pinned v").run();
        assertThat(v.totals().kills()).isZero();
        assertThat(v.holds()).hasSize(1);
    }

    @Test
    void backgroundTrafficKeepsItsShareOfTheWorkersBusy() {
        // 30 % of 100 workers at 200 ms: 150 requests/s per replica, about 30 in flight
        FleetResult r = new ModelFleet(FleetSpecReader.parse(String.format(FOUR_PODS,
                "background: {utilisation: 0.3, serviceTime: 200ms}", ", keys: 1, http2: true"), "r.yaml"), "bg").run();
        for (FleetResult.Lane l : r.lanes()) {
            assertThat(l.peakInFlight()).isBetween(25L, 80L);
        }
        assertThat(r.totals().requests()).isBetween(2000L, 3200L); // only the clients' requests count: 20 / 0.2 s × 30 s
    }

    @Test
    void aClientRetriesOnlyTheFailuresItsPolicyNames() {
        // one worker, no queue: of 5 clients' requests 4 are refused with a 503 at once (queue full)
        String yaml = String.join("\n",
                "replicas: 1",
                "duration: 20s",
                "replica: {workers: 1, queueLimit: 0, startTime: 1s}",
                "probes: {server: isolated}",
                "clients: [{name: c, concurrency: 5, serviceTime: 1s, timeout: 5s, retries: 3, retryDelay: 200ms, retryOn: RETRY}]",
                "");
        FleetResult on5xx = new ModelFleet(FleetSpecReader.parse(yaml.replace("RETRY", "[5xx]"), "r.yaml"), "5xx").run();
        FleetResult onTimeout = new ModelFleet(FleetSpecReader.parse(yaml.replace("RETRY", "[timeout, reset]"), "r.yaml"), "t").run();
        // not retried: one attempt per request (beyond those of the 5 clients still in flight at the end)
        assertThat(onTimeout.totals().attempts() - onTimeout.totals().requests()).isBetween(0L, 5L);
        assertThat(onTimeout.totals().failed()).isGreaterThan(onTimeout.totals().requests() / 2);
        // retried: up to 4 attempts per request, and fewer requests fail
        assertThat(on5xx.totals().attempts()).isGreaterThan(on5xx.totals().requests() * 2);
        assertThat(on5xx.totals().failed()).isLessThan(onTimeout.totals().failed());
    }

    @Test
    void retryBackoffSpacesTheRetries() {
        // no endpoint from ~3 s on (readiness fails on the dependency's outage); one client from 10 s: every attempt is
        // refused at once. Retries 1 s, 2 s, 4 s apart (backoff 2): a request takes ~7 s of attempts, ~3 s at a fixed delay
        String yaml = String.join("\n",
                "replicas: 1",
                "duration: 80s",
                "replica: {workers: 4, startTime: 1s}",
                "probes: {server: isolated, readiness: {periodSeconds: 1, failureThreshold: 1, dependency: critical}}",
                "dependency: {name: db, outages: [{at: 0s, duration: 80s}]}",
                "clients: [{name: c, concurrency: 1, serviceTime: 10ms, timeout: 1s, retries: 3, retryDelay: 1s, from: 10s, "
                        + "retryBackoff: BACKOFF}]",
                "");
        FleetResult doubling = new ModelFleet(FleetSpecReader.parse(yaml.replace("BACKOFF", "2"), "r.yaml"), "x2").run();
        FleetResult fixed = new ModelFleet(FleetSpecReader.parse(yaml.replace("BACKOFF", "1"), "r.yaml"), "x1").run();
        // 70 s of client time: 70 / (1 + 2 + 4 + a step) ≈ 9-10 requests against 70 / (3 + a step) ≈ 20-21, 4 attempts each
        assertThat(doubling.totals().requests()).isBetween(8L, 10L);
        assertThat(fixed.totals().requests()).isBetween(19L, 22L);
        assertThat(doubling.totals().failed()).isEqualTo(doubling.totals().requests());
        assertThat(doubling.totals().attempts()).isBetween(4 * doubling.totals().requests(), 4 * doubling.totals().requests() + 4);
    }
}
