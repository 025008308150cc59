package dev.vitals.kubesim.fleet;

import java.time.Duration;
import java.util.Objects;

/**
 * How a connection or request reaches a pod: the layer that balances (kube-proxy for a Service, or
 * an L7 ingress proxy), its algorithm, its affinity and its traffic policy. Immutable. The model
 * engine turns it into a {@link Balancer} per run; the rules, with their public sources, are on
 * {@link Balancer}'s implementations.
 *
 * @param layer kube-proxy (per connection) or an ingress proxy (per request)
 * @param algorithm how a fresh pick is made; must belong to the layer (see {@link Algorithm#layer()})
 * @param affinity what keeps a client key on one pod
 * @param affinityTimeout {@link Affinity#CLIENT_IP}: how long an idle key keeps its endpoint
 *        ({@code sessionAffinityConfig.clientIP.timeoutSeconds}, default 10800 s, 1 s – 86400 s)
 * @param trafficPolicy node-local routing of in-cluster clients
 * @param nodes nodes the replicas are placed on, replica {@code i} on node {@code i mod nodes}, 1–{@value FleetSpec#MAX_REPLICAS}
 */
public record Routing(Layer layer, Algorithm algorithm, Affinity affinity, Duration affinityTimeout, TrafficPolicy trafficPolicy,
        int nodes) {

    /** Kubernetes' default {@code sessionAffinityConfig.clientIP.timeoutSeconds}: three hours. */
    public static final Duration DEFAULT_AFFINITY_TIMEOUT = Duration.ofSeconds(10800);

    /** kube-proxy in iptables mode, no affinity, Cluster policy, one node: what the model did before routing. */
    public static final Routing DEFAULT = new Routing(Layer.KUBE_PROXY, Algorithm.RANDOM, Affinity.NONE, DEFAULT_AFFINITY_TIMEOUT,
            TrafficPolicy.CLUSTER, 1);

    /**
     * Validates the combination.
     *
     * @param layer kube-proxy or an ingress proxy
     * @param algorithm how a fresh pick is made
     * @param affinity what keeps a key on one pod
     * @param affinityTimeout ClientIP's idle timeout, 1 s – 86400 s
     * @param trafficPolicy node-local routing
     * @param nodes nodes the replicas are placed on, 1–{@value FleetSpec#MAX_REPLICAS}
     * @throws IllegalArgumentException naming the field, when the algorithm or affinity does not exist at that
     *         layer (ClientIP is kube-proxy's; cookie and hash are the ingress's), or a bound is broken
     */
    public Routing {
        Objects.requireNonNull(layer, "layer");
        Objects.requireNonNull(algorithm, "algorithm");
        Objects.requireNonNull(affinity, "affinity");
        Objects.requireNonNull(affinityTimeout, "affinityTimeout");
        Objects.requireNonNull(trafficPolicy, "trafficPolicy");
        if (algorithm.layer() != layer) {
            throw new IllegalArgumentException("routing: " + algorithm.label() + " is " + (layer == Layer.KUBE_PROXY
                    ? "an ingress's load-balance, not a kube-proxy mode" : "a kube-proxy mode, not an ingress's load-balance"));
        }
        if (affinity == Affinity.CLIENT_IP && layer != Layer.KUBE_PROXY) {
            throw new IllegalArgumentException("routing: sessionAffinity ClientIP is the Service's (kube-proxy); an ingress "
                    + "balances to the pods directly: use affinity: cookie or upstream-hash-by");
        }
        if ((affinity == Affinity.COOKIE || affinity == Affinity.HASH) && layer != Layer.INGRESS) {
            throw new IllegalArgumentException("routing: cookie affinity and upstream-hash-by belong to an ingress");
        }
        if (affinityTimeout.compareTo(Duration.ofSeconds(1)) < 0 || affinityTimeout.compareTo(Duration.ofSeconds(86400)) > 0) {
            throw new IllegalArgumentException("sessionAffinityConfig.clientIP.timeoutSeconds must be 1-86400, was "
                    + affinityTimeout.toSeconds());
        }
        if (nodes < 1 || nodes > FleetSpec.MAX_REPLICAS) {
            throw new IllegalArgumentException("nodes must be 1-" + FleetSpec.MAX_REPLICAS + ", was " + nodes);
        }
    }

    /** @return true when every request is balanced on its own (an L7 proxy), false when a connection is (kube-proxy) */
    public boolean perRequest() {
        return layer == Layer.INGRESS;
    }

    /** @return a short description for reports, e.g. {@code kube-proxy iptables, sessionAffinity ClientIP (10800 s)} */
    public String describe() {
        StringBuilder sb = new StringBuilder(layer == Layer.KUBE_PROXY ? "kube-proxy " : "ingress ").append(algorithm.label());
        switch (affinity) {
            case CLIENT_IP:
                sb.append(", sessionAffinity ClientIP (").append(affinityTimeout.toSeconds()).append(" s)");
                break;
            case COOKIE:
                sb.append(", affinity cookie");
                break;
            case HASH:
                sb.append(", upstream-hash-by");
                break;
            default:
                break;
        }
        if (trafficPolicy != TrafficPolicy.CLUSTER) {
            sb.append(", ").append(trafficPolicy.label()).append(" over ").append(nodes).append(" node(s)");
        }
        return sb.toString();
    }

    /** Where balancing happens. */
    public enum Layer {
        /** kube-proxy: a new connection picks an endpoint; its requests stay there. */
        KUBE_PROXY,
        /** An L7 proxy (ingress-nginx, Envoy): each request picks an upstream over kept upstream connections. */
        INGRESS
    }

    /** How a fresh pick is made. */
    public enum Algorithm {
        /** kube-proxy iptables mode: a Ready endpoint at random (the default; kube-proxy: pkg/proxy/iptables/proxier.go). */
        RANDOM("iptables", Layer.KUBE_PROXY),
        /**
         * kube-proxy nftables mode: the same uniform pick per new connection ({@code numgen random mod n}
         * vmap, kube-proxy: pkg/proxy/nftables/proxier.go), named as configured.
         */
        NFTABLES("nftables", Layer.KUBE_PROXY),
        /** kube-proxy IPVS {@code rr}: endpoints in turn. */
        IPVS_RR("ipvs rr", Layer.KUBE_PROXY),
        /** kube-proxy IPVS {@code lc}: the endpoint with the fewest connections. */
        IPVS_LC("ipvs lc", Layer.KUBE_PROXY),
        /** kube-proxy IPVS {@code sh}: a hash of the source address. */
        IPVS_SH("ipvs sh", Layer.KUBE_PROXY),
        /** ingress-nginx {@code load-balance: round_robin}, per request. */
        ROUND_ROBIN("round_robin", Layer.INGRESS),
        /** Envoy {@code LEAST_REQUEST} (power of two choices), per request. */
        LEAST_REQUEST("least_request", Layer.INGRESS),
        /** ingress-nginx {@code load-balance: ewma}, per request. */
        EWMA("ewma", Layer.INGRESS);

        private final String label;
        private final Layer layer;

        Algorithm(String label, Layer layer) {
            this.label = label;
            this.layer = layer;
        }

        /** @return its name in fleet files and reports */
        public String label() {
            return label;
        }

        /** @return the layer it belongs to */
        public Layer layer() {
            return layer;
        }

        /** @return true for kube-proxy's uniform random pick per connection (iptables and nftables modes) */
        public boolean randomPick() {
            return this == RANDOM || this == NFTABLES;
        }
    }

    /** What keeps a client key (a source address, a cookie jar) on one pod. */
    public enum Affinity {
        /** None: each pick is fresh. */
        NONE,
        /** Service {@code sessionAffinity: ClientIP}. */
        CLIENT_IP,
        /** ingress-nginx {@code affinity: cookie}. */
        COOKIE,
        /** ingress-nginx {@code upstream-hash-by} (consistent hashing of the key). */
        HASH
    }

    /** Node-local routing for clients that run on a node. */
    public enum TrafficPolicy {
        /** {@code internalTrafficPolicy: Cluster}: every Ready endpoint. */
        CLUSTER("internalTrafficPolicy Cluster"),
        /** {@code internalTrafficPolicy: Local}: only endpoints on the client's node; none there: dropped. */
        LOCAL("internalTrafficPolicy Local"),
        /** {@code trafficDistribution: PreferSameNode}: endpoints on the client's node when there are any, else all. */
        PREFER_SAME_NODE("trafficDistribution PreferSameNode");

        private final String label;

        TrafficPolicy(String label) {
            this.label = label;
        }

        /** @return the Kubernetes field and value */
        public String label() {
            return label;
        }
    }
}
