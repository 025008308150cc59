package dev.vitals.kubesim.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Each routing rule against hand-computed picks (the rules and their sources are on {@link Balancer}). */
class BalancerTest {
    private static final Balancer.Load IDLE = pod -> 0;

    private static Balancer.Candidates pods(int... ids) {
        return new Balancer.Candidates(ids.clone(), ids.length);
    }

    @Test
    void clientIpKeepsEachKeyOnOnePodUntilThatPodLeavesThenMovesTheWholeKeyOnce() {
        // two keys over four pods; fresh picks in turn (0, 1, 2, ...) so every pick is known by hand
        Balancer b = new Balancer.ClientIp(new Balancer.RoundRobin(new SplittableRandom(1)), 10800);
        Balancer.Candidates four = pods(0, 1, 2, 3);
        assertThat(b.pick(four, 0, IDLE, 0)).isEqualTo(0);
        assertThat(b.pick(four, 1, IDLE, 0)).isEqualTo(1);
        for (int i = 0; i < 50; i++) {
            assertThat(b.pick(four, 0, IDLE, i)).isEqualTo(0);
            assertThat(b.pick(four, 1, IDLE, i)).isEqualTo(1);
        }
        // pod 0 leaves the endpoints: key 0 makes one fresh pick (the next in turn after 1: 2) and stays there
        Balancer.Candidates without0 = pods(1, 2, 3);
        assertThat(b.pick(without0, 0, IDLE, 60)).isEqualTo(2);
        for (int i = 0; i < 50; i++) {
            assertThat(b.pick(without0, 0, IDLE, 61 + i)).isEqualTo(2);
            assertThat(b.pick(without0, 1, IDLE, 61 + i)).isEqualTo(1);
        }
        // pod 0 comes back: nothing moves back (the key's entry is on pod 2 now)
        assertThat(b.pick(four, 0, IDLE, 200)).isEqualTo(2);
        assertThat(b.holder(0)).isEqualTo(2);
        assertThat(b.holder(1)).isEqualTo(1);
    }

    @Test
    void clientIpTimeoutCountsFromTheKeysLastConnection() {
        Balancer b = new Balancer.ClientIp(new Balancer.RoundRobin(new SplittableRandom(1)), 10800);
        Balancer.Candidates four = pods(0, 1, 2, 3);
        assertThat(b.pick(four, 7, IDLE, 0)).isEqualTo(0);
        assertThat(b.pick(four, 7, IDLE, 10_000)).isEqualTo(0); // seen again: the timer restarts
        assertThat(b.pick(four, 7, IDLE, 20_800)).isEqualTo(0); // 10,800 s after the last: still held (--seconds is inclusive)
        assertThat(b.pick(four, 7, IDLE, 31_601)).isEqualTo(1); // idle longer than 10,800 s: a fresh pick
    }

    @Test
    void connectionsWithoutAKeyAreNotKeptTogether() {
        Balancer b = new Balancer.ClientIp(new Balancer.RoundRobin(new SplittableRandom(1)), 10800);
        Balancer.Candidates four = pods(0, 1, 2, 3);
        assertThat(new int[] {b.pick(four, Balancer.NO_KEY, IDLE, 0), b.pick(four, Balancer.NO_KEY, IDLE, 0),
            b.pick(four, Balancer.NO_KEY, IDLE, 0)}).containsExactly(0, 1, 2);
    }

    @Test
    void perRequestRoundRobinSpreadsEvenly() {
        Balancer b = Balancer.of(new Routing(Routing.Layer.INGRESS, Routing.Algorithm.ROUND_ROBIN, Routing.Affinity.NONE,
                Routing.DEFAULT_AFFINITY_TIMEOUT, Routing.TrafficPolicy.CLUSTER, 1), 4, new SplittableRandom(3));
        int[] n = new int[4];
        for (int i = 0; i < 400; i++) {
            n[b.pick(pods(2, 0, 3, 1), Balancer.NO_KEY, IDLE, i)]++;
        }
        assertThat(n).containsExactly(100, 100, 100, 100);
    }

    @Test
    void iptablesRandomSpreadsConnectionsAboutEvenly() {
        Balancer b = Balancer.of(Routing.DEFAULT, 4, new SplittableRandom(5));
        int[] n = new int[4];
        for (int i = 0; i < 4000; i++) {
            n[b.pick(pods(0, 1, 2, 3), 0, IDLE, i)]++; // no affinity: the key does not matter
        }
        for (int x : n) {
            assertThat(x).isBetween(850, 1150); // 1,000 ± 5 standard deviations (27)
        }
    }

    @Test
    void ipvsSourceHashIsStablePerSourceAndSpreadsSources() {
        Balancer b = Balancer.of(new Routing(Routing.Layer.KUBE_PROXY, Routing.Algorithm.IPVS_SH, Routing.Affinity.NONE,
                Routing.DEFAULT_AFFINITY_TIMEOUT, Routing.TrafficPolicy.CLUSTER, 1), 4, new SplittableRandom(5));
        Map<Integer, Integer> first = new HashMap<>();
        int[] n = new int[4];
        for (int key = 0; key < 1000; key++) {
            int p = b.pick(pods(3, 1, 0, 2), key, IDLE, 0);
            first.put(key, p);
            n[p]++;
        }
        for (int round = 0; round < 3; round++) {
            for (int key = 0; key < 1000; key++) {
                assertThat(b.pick(pods(0, 1, 2, 3), key, IDLE, round)).isEqualTo(first.get(key)); // order of the list does not matter
            }
        }
        for (int x : n) {
            assertThat(x).isBetween(150, 350);
        }
        // the table: 256 buckets filled with the sorted destinations in turn, bucket = hash mod 256
        int key = 42;
        assertThat(first.get(key)).isEqualTo(((Balancer.mix(key) >>> 1) % 256) % 4);
    }

    @Test
    void ipvsLeastConnectionTakesTheLeastLoadedAndTheFirstOfEquals() {
        Balancer b = Balancer.of(new Routing(Routing.Layer.KUBE_PROXY, Routing.Algorithm.IPVS_LC, Routing.Affinity.NONE,
                Routing.DEFAULT_AFFINITY_TIMEOUT, Routing.TrafficPolicy.CLUSTER, 1), 4, new SplittableRandom(5));
        long[] load = {5, 2, 2, 9};
        assertThat(b.pick(pods(0, 1, 2, 3), Balancer.NO_KEY, p -> load[p], 0)).isEqualTo(1);
        assertThat(b.pick(pods(0, 2, 1, 3), Balancer.NO_KEY, p -> load[p], 0)).isEqualTo(2);
    }

    @Test
    void leastRequestNeverPicksTheBusierOfTwo() {
        Balancer b = Balancer.of(new Routing(Routing.Layer.INGRESS, Routing.Algorithm.LEAST_REQUEST, Routing.Affinity.NONE,
                Routing.DEFAULT_AFFINITY_TIMEOUT, Routing.TrafficPolicy.CLUSTER, 1), 2, new SplittableRandom(5));
        long[] load = {7, 3};
        for (int i = 0; i < 200; i++) {
            assertThat(b.pick(pods(0, 1), Balancer.NO_KEY, p -> load[p], i)).isEqualTo(1);
        }
    }

    @Test
    void ewmaAvoidsASlowPodOnceItHasAnswered() {
        Balancer b = Balancer.of(new Routing(Routing.Layer.INGRESS, Routing.Algorithm.EWMA, Routing.Affinity.NONE,
                Routing.DEFAULT_AFFINITY_TIMEOUT, Routing.TrafficPolicy.CLUSTER, 1), 4, new SplittableRandom(5));
        b.answered(0, 10, 0);
        for (int p = 1; p < 4; p++) {
            b.answered(p, 0.05, 0);
        }
        // two distinct draws, the lower score wins: pod 0 (score 10·(1 − e^0)... decayed, still far above 0.05) never wins
        for (int i = 0; i < 1000; i++) {
            assertThat(b.pick(pods(0, 1, 2, 3), Balancer.NO_KEY, IDLE, 1)).isNotEqualTo(0);
        }
        assertThat(Balancer.Ewma.DECAY_SECONDS).isEqualTo(10);
    }

    @Test
    void cookieAffinityRepicksOnlyWhenItsPodLeavesAndDoesNotMoveBack() {
        Balancer b = new Balancer.Sticky(new Balancer.RoundRobin(new SplittableRandom(1)));
        assertThat(b.pick(pods(0, 1, 2, 3), 0, IDLE, 0)).isEqualTo(0);
        assertThat(b.pick(pods(0, 1, 2, 3), 0, IDLE, 1)).isEqualTo(0);
        assertThat(b.pick(pods(1, 2, 3), 0, IDLE, 2)).isEqualTo(1);
        assertThat(b.pick(pods(0, 1, 2, 3), 0, IDLE, 3)).isEqualTo(1);
    }

    @Test
    void upstreamHashByMovesOnlyTheLostPodsKeysAndMovesThemBack() {
        Balancer b = Balancer.of(new Routing(Routing.Layer.INGRESS, Routing.Algorithm.ROUND_ROBIN, Routing.Affinity.HASH,
                Routing.DEFAULT_AFFINITY_TIMEOUT, Routing.TrafficPolicy.CLUSTER, 1), 4, new SplittableRandom(5));
        int[] before = new int[200];
        for (int k = 0; k < 200; k++) {
            before[k] = b.pick(pods(0, 1, 2, 3), k, IDLE, 0);
        }
        for (int k = 0; k < 200; k++) {
            int during = b.pick(pods(0, 2, 3), k, IDLE, 1);
            if (before[k] == 1) {
                assertThat(during).isNotEqualTo(1);
            } else {
                assertThat(during).isEqualTo(before[k]);
            }
            assertThat(b.pick(pods(0, 1, 2, 3), k, IDLE, 2)).isEqualTo(before[k]);
        }
    }

    @Test
    void routingRejectsAModeOfTheOtherLayer() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new Routing(Routing.Layer.INGRESS, Routing.Algorithm.ROUND_ROBIN,
                Routing.Affinity.CLIENT_IP, Routing.DEFAULT_AFFINITY_TIMEOUT, Routing.TrafficPolicy.CLUSTER, 1))
                .hasMessageContaining("sessionAffinity ClientIP is the Service's");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new Routing(Routing.Layer.KUBE_PROXY, Routing.Algorithm.EWMA,
                Routing.Affinity.NONE, Routing.DEFAULT_AFFINITY_TIMEOUT, Routing.TrafficPolicy.CLUSTER, 1))
                .hasMessage("routing: ewma is an ingress's load-balance, not a kube-proxy mode");
    }
}
