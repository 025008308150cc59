package dev.vitals.kubesim.fleet;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.IntToDoubleFunction;

/**
 * Picks the pod a new connection (kube-proxy) or request (an ingress) goes to, from the endpoints
 * the balancer currently sees. Pure over its inputs: the candidate endpoints, the client's key, the
 * pods' in-flight counts and its own state (a cursor, an affinity table, response-time averages),
 * with a seeded random source; no clock of its own (the caller passes {@code now}, seconds). Not
 * thread-safe: one per run.
 *
 * <p>Keys: {@code key ≥ 0} is a client's affinity key (its source address or cookie jar); {@link #NO_KEY}
 * is a connection that shares its key with no other (affinity then has nothing to keep).
 */
abstract class Balancer {
    /** A connection whose key no other connection shares. */
    static final int NO_KEY = -1;

    /** The pods' current in-flight requests, by pod index. */
    interface Load {
        /**
         * @param pod a pod index
         * @return its requests waiting or in service, including those picked in this step
         */
        long inFlight(int pod);
    }

    /**
     * The endpoints a pick may choose from: {@code ids[0..n)} (pod indexes), in the Service's order.
     * Mutable scratch, filled by the caller before a pick.
     */
    static final class Candidates {
        int[] ids;
        int n;

        Candidates(int[] ids, int n) {
            this.ids = ids;
            this.n = n;
        }

        boolean contains(int pod) {
            for (int i = 0; i < n; i++) {
                if (ids[i] == pod) {
                    return true;
                }
            }
            return false;
        }
    }

    final SplittableRandom rnd;

    Balancer(SplittableRandom rnd) {
        this.rnd = rnd;
    }

    /**
     * @param c the candidates, at least one
     * @param key the client's key, or {@link #NO_KEY}
     * @param load the pods' in-flight requests
     * @param now seconds on the run's clock
     * @return the chosen pod index, one of {@code c.ids[0..c.n)}
     */
    abstract int pick(Candidates c, int key, Load load, double now);

    /**
     * A request answered by a pod (EWMA learns its response time); others ignore it.
     *
     * @param pod the pod
     * @param seconds its response time
     * @param now seconds on the run's clock
     */
    void answered(int pod, double seconds, double now) {
    }

    /**
     * @param key a client key
     * @return the pod the key is held on, or -1 (no affinity, or not yet routed)
     */
    int holder(int key) {
        return -1;
    }

    /**
     * The power of two choices (Envoy's {@code choice_count} 2, ingress-nginx ewma's
     * {@code PICK_SET_SIZE = 2}): two distinct candidates drawn at random, the one with the lower
     * score (ties: the first drawn); a lone candidate is taken without a draw.
     *
     * @param c the candidates, at least one
     * @param score a pod's score, lower is better
     * @return the pod picked
     */
    final int lowerOfTwo(Candidates c, IntToDoubleFunction score) {
        if (c.n == 1) {
            return c.ids[0];
        }
        int a = rnd.nextInt(c.n);
        int b = rnd.nextInt(c.n - 1);
        if (b >= a) {
            b++;
        }
        return score.applyAsDouble(c.ids[b]) < score.applyAsDouble(c.ids[a]) ? c.ids[b] : c.ids[a];
    }

    /**
     * The balancer a routing configuration describes.
     *
     * @param r the routing
     * @param pods pods in the run (lanes)
     * @param rnd the run's seeded random source
     * @return the balancer
     */
    static Balancer of(Routing r, int pods, SplittableRandom rnd) {
        Balancer fresh;
        switch (r.algorithm()) {
            case IPVS_RR:
            case ROUND_ROBIN:
                fresh = new RoundRobin(rnd);
                break;
            case IPVS_LC:
                fresh = new LeastConnection(rnd);
                break;
            case IPVS_SH:
                fresh = new SourceHash(rnd);
                break;
            case LEAST_REQUEST:
                fresh = new LeastRequest(rnd);
                break;
            case EWMA:
                fresh = new Ewma(rnd, pods);
                break;
            default:
                fresh = new RandomPick(rnd);
        }
        switch (r.affinity()) {
            case CLIENT_IP:
                return new ClientIp(fresh, r.affinityTimeout().toNanos() / 1e9);
            case COOKIE:
                return new Sticky(fresh);
            case HASH:
                return new ConsistentHash(rnd);
            default:
                return fresh;
        }
    }

    /**
     * kube-proxy iptables (and nftables) mode: each new connection to the Service goes to one of the
     * Ready endpoints with equal probability ({@code -m statistic --mode random --probability 1/(n−i)}
     * on the i-th of n endpoint rules; kube-proxy: pkg/proxy/iptables/proxier.go, writeServiceToEndpointRules;
     * nftables: a {@code numgen random mod n} vmap, pkg/proxy/nftables/proxier.go).
     */
    static final class RandomPick extends Balancer {
        RandomPick(SplittableRandom rnd) {
            super(rnd);
        }

        @Override
        int pick(Candidates c, int key, Load load, double now) {
            return c.ids[rnd.nextInt(c.n)];
        }
    }

    /**
     * In turn: kube-proxy IPVS {@code rr} (the IPVS proxier's default scheduler, kernel
     * net/netfilter/ipvs/ip_vs_rr.c: the next destination after the last one used) and ingress-nginx
     * {@code load-balance: round_robin} (rootfs/etc/nginx/lua/balancer/round_robin.lua, resty.roundrobin,
     * equal weights), per connection or per request by layer. The cursor walks pod indexes upwards from
     * the last pick, so an endpoint that leaves and returns keeps its turn.
     */
    static final class RoundRobin extends Balancer {
        private int last = -1;

        RoundRobin(SplittableRandom rnd) {
            super(rnd);
        }

        @Override
        int pick(Candidates c, int key, Load load, double now) {
            int best = -1;
            int lowest = -1;
            for (int i = 0; i < c.n; i++) {
                int p = c.ids[i];
                if (p > last && (best < 0 || p < best)) {
                    best = p;
                }
                if (lowest < 0 || p < lowest) {
                    lowest = p;
                }
            }
            last = best >= 0 ? best : lowest;
            return last;
        }
    }

    /**
     * kube-proxy IPVS {@code lc}: the destination with the least load, {@code activeconns × 256 +
     * inactconns} (kernel net/netfilter/ipvs/ip_vs_lc.c, ip_vs_dest_conn_overhead); the first such in
     * the list when several are equal. The model counts a pod's requests in flight as its active
     * connections (kept connections hold no load between requests).
     */
    static final class LeastConnection extends Balancer {
        LeastConnection(SplittableRandom rnd) {
            super(rnd);
        }

        @Override
        int pick(Candidates c, int key, Load load, double now) {
            int best = c.ids[0];
            long min = load.inFlight(best);
            for (int i = 1; i < c.n; i++) {
                long l = load.inFlight(c.ids[i]);
                if (l < min) {
                    min = l;
                    best = c.ids[i];
                }
            }
            return best;
        }
    }

    /**
     * kube-proxy IPVS {@code sh}: a table of 256 buckets filled with the destinations in turn, the
     * source address hashed to a bucket (kernel net/netfilter/ipvs/ip_vs_sh.c, ip_vs_sh_reassign and
     * ip_vs_sh_hashkey). So a source stays on one pod while the endpoint set is unchanged, and the
     * table is rebuilt when it changes. Destinations are in pod-index order here. A connection with no
     * key of its own hashes at random.
     */
    static final class SourceHash extends Balancer {
        private int[] sorted = new int[0];

        SourceHash(SplittableRandom rnd) {
            super(rnd);
        }

        @Override
        int pick(Candidates c, int key, Load load, double now) {
            if (sorted.length < c.n) {
                sorted = new int[Math.max(c.n, 2 * sorted.length)];
            }
            System.arraycopy(c.ids, 0, sorted, 0, c.n);
            Arrays.sort(sorted, 0, c.n);
            int bucket = key == NO_KEY ? rnd.nextInt(256) : (mix(key) >>> 1) % 256;
            return sorted[bucket % c.n];
        }
    }

    /**
     * Envoy's {@code LEAST_REQUEST} with its default {@code choice_count} 2: two distinct upstreams
     * at random, the one with fewer active requests (ties: the first drawn); Envoy
     * source/common/upstream/load_balancer_impl.cc, LeastRequestLoadBalancer::unweightedHostPick.
     */
    static final class LeastRequest extends Balancer {
        LeastRequest(SplittableRandom rnd) {
            super(rnd);
        }

        @Override
        int pick(Candidates c, int key, Load load, double now) {
            return lowerOfTwo(c, load::inFlight);
        }
    }

    /**
     * ingress-nginx {@code load-balance: ewma} (rootfs/etc/nginx/lua/balancer/ewma.lua, after Finagle's
     * PeakEwma): each upstream's score is an exponentially weighted moving average of its response
     * times, decayed with {@code exp(−Δt / 10 s)} ({@code DECAY_TIME = 10}); a pick draws two upstreams
     * at random ({@code PICK_SET_SIZE = 2}) and takes the lower score. An upstream never answered
     * scores 0, so new pods are tried first.
     */
    static final class Ewma extends Balancer {
        static final double DECAY_SECONDS = 10;
        private final double[] ewma;
        private final double[] touched;

        Ewma(SplittableRandom rnd, int pods) {
            super(rnd);
            ewma = new double[pods];
            touched = new double[pods];
            Arrays.fill(touched, Double.NEGATIVE_INFINITY); // never touched: the first answer is the average
        }

        private double score(int pod, double now) {
            double w = Math.exp(-Math.max(0, now - touched[pod]) / DECAY_SECONDS);
            return ewma[pod] * w;
        }

        @Override
        int pick(Candidates c, int key, Load load, double now) {
            return lowerOfTwo(c, pod -> score(pod, now));
        }

        @Override
        void answered(int pod, double seconds, double now) {
            double w = Math.exp(-Math.max(0, now - touched[pod]) / DECAY_SECONDS);
            ewma[pod] = ewma[pod] * w + seconds * (1 - w);
            touched[pod] = now;
        }
    }

    /**
     * Service {@code sessionAffinity: ClientIP} in kube-proxy's iptables mode: the Service chain first
     * checks, endpoint by endpoint, {@code -m recent --name <endpoint chain> --rcheck --seconds
     * <timeoutSeconds> --reap} on the source address, and each endpoint chain records it with {@code -m
     * recent --set} (pkg/proxy/iptables/proxier.go). So a key keeps its endpoint while that endpoint is
     * in the rules and the key was last seen within {@code timeoutSeconds} (default 10800); once the
     * endpoint leaves the endpoints (not Ready, or the pod gone, after the propagation delay) or the
     * timeout lapses, the next connection makes one fresh pick and the whole key follows it. IPVS
     * does the same with its persistence timeout.
     */
    static final class ClientIp extends Balancer {
        private final Balancer fresh;
        private final double timeoutSeconds;
        private final Map<Integer, double[]> table = new HashMap<>(); // key → {pod, last seen}

        ClientIp(Balancer fresh, double timeoutSeconds) {
            super(fresh.rnd);
            this.fresh = fresh;
            this.timeoutSeconds = timeoutSeconds;
        }

        @Override
        int pick(Candidates c, int key, Load load, double now) {
            if (key == NO_KEY) {
                return fresh.pick(c, key, load, now);
            }
            double[] e = table.get(key);
            if (e != null && now - e[1] <= timeoutSeconds && c.contains((int) e[0])) {
                e[1] = now;
                return (int) e[0];
            }
            int p = fresh.pick(c, key, load, now);
            table.put(key, new double[] {p, now});
            return p;
        }

        @Override
        void answered(int pod, double seconds, double now) {
            fresh.answered(pod, seconds, now);
        }

        @Override
        int holder(int key) {
            double[] e = table.get(key);
            return e == null ? -1 : (int) e[0];
        }
    }

    /**
     * ingress-nginx {@code affinity: cookie} (rootfs/etc/nginx/lua/balancer/sticky.lua): a request
     * whose cookie names an upstream still in the balancer's list goes there; without a cookie, or when
     * that upstream has left the list, a fresh pick is made and the cookie rewritten, so the whole
     * session (the key's cookie jar) moves to one new pod. No timeout (a session cookie).
     */
    static final class Sticky extends Balancer {
        private final Balancer fresh;
        private final Map<Integer, Integer> cookie = new HashMap<>();

        Sticky(Balancer fresh) {
            super(fresh.rnd);
            this.fresh = fresh;
        }

        @Override
        int pick(Candidates c, int key, Load load, double now) {
            if (key == NO_KEY) {
                return fresh.pick(c, key, load, now);
            }
            Integer p = cookie.get(key);
            if (p != null && c.contains(p)) {
                return p;
            }
            int q = fresh.pick(c, key, load, now);
            cookie.put(key, q);
            return q;
        }

        @Override
        void answered(int pod, double seconds, double now) {
            fresh.answered(pod, seconds, now);
        }

        @Override
        int holder(int key) {
            Integer p = cookie.get(key);
            return p == null ? -1 : p;
        }
    }

    /**
     * ingress-nginx {@code upstream-hash-by} (rootfs/etc/nginx/lua/balancer/chash.lua, resty.chash): a
     * key maps to an upstream by consistent hashing, so when an upstream leaves only its keys move, and
     * they move back when it returns. Modelled by rendezvous hashing (the highest hash of key and pod),
     * which has the same two properties as resty.chash's ring.
     */
    static final class ConsistentHash extends Balancer {
        private final Map<Integer, Integer> last = new HashMap<>();

        ConsistentHash(SplittableRandom rnd) {
            super(rnd);
        }

        @Override
        int pick(Candidates c, int key, Load load, double now) {
            if (key == NO_KEY) {
                return c.ids[rnd.nextInt(c.n)];
            }
            int best = c.ids[0];
            int top = mix(key * 0x9E3779B1 + best);
            for (int i = 1; i < c.n; i++) {
                int h = mix(key * 0x9E3779B1 + c.ids[i]);
                if (Integer.compareUnsigned(h, top) > 0) {
                    top = h;
                    best = c.ids[i];
                }
            }
            last.put(key, best);
            return best;
        }

        @Override
        int holder(int key) {
            Integer p = last.get(key);
            return p == null ? -1 : p;
        }
    }

    /** A 32-bit finaliser (MurmurHash3's fmix32): spreads keys over buckets. */
    static int mix(int h) {
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        h *= 0xc2b2ae35;
        h ^= h >>> 16;
        return h;
    }
}
