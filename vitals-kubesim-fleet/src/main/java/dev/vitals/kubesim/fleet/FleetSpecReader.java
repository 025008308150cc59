package dev.vitals.kubesim.fleet;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vitals.kubesim.input.InvalidInputException;
import dev.vitals.kubesim.model.Durations;
import dev.vitals.kubesim.model.ProbeHandler;
import dev.vitals.kubesim.model.ProbeSpec;
import dev.vitals.kubesim.model.ProbeType;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Reads a {@link FleetSpec} from YAML. Every problem is one line naming the file, the field and
 * what is expected, thrown as {@link InvalidInputException} (the CLI's exit code 2). Unknown
 * fields are errors. The format, with defaults:
 *
 * <pre>{@code
 * replicas: 12                  # required, 1-1000000 (and what the heap holds)
 * duration: 10m                 # required: scenario time after warm-up
 * step: 100ms                   # the request model's time step
 * seed: 1
 * replica:
 *   workers: 40                 # required
 *   startTime: 5s               # required: container start until it answers
 *   stopTime: 500ms             # SIGTERM until exit
 *   queueLimit: unbounded       # or a number of waiting requests
 *   probeServiceTime: 1ms
 *   warmupFactor: 1             # service-time multiplier just after start
 *   warmupTime: 0s
 * probes:
 *   server: app-pool            # required: app-pool | isolated
 *   # each probe: kubelet's fields, plus dependency (none | critical | non-critical) and the
 *   # path the live engine probes (default /healthz on app-pool, /livez /readyz /startupz isolated)
 *   startup:   {periodSeconds: 1, timeoutSeconds: 1, failureThreshold: 60}
 *   liveness:  {periodSeconds: 2, timeoutSeconds: 3, failureThreshold: 3, dependency: none}
 *   readiness: {periodSeconds: 2, timeoutSeconds: 3, failureThreshold: 3, dependency: critical}
 * dependency:                   # optional
 *   name: cache
 *   checkTime: 0s               # a check of it while it is down
 *   failTime: 10ms              # a request that needs it while it is down
 *   outages: [{at: 60s, duration: 60s}]
 *   target: 127.0.0.1:6379      # live engine: the real one, behind a fault proxy
 * service:                      # or a Kubernetes Service object (apiVersion: v1, kind: Service, spec: ...)
 *   propagationDelay: 1s
 *   proxyMode: iptables         # iptables | nftables | ipvs (kube-proxy: a pick per new connection)
 *   ipvsScheduler: rr           # proxyMode ipvs: rr | lc | sh
 *   sessionAffinity: None       # None | ClientIP
 *   sessionAffinityConfig: {clientIP: {timeoutSeconds: 10800}}
 *   internalTrafficPolicy: Cluster   # Cluster | Local (clients with a node)
 *   trafficDistribution: PreferSameNode   # optional (clients with a node)
 * ingress:                      # optional: an L7 proxy balancing each request to the pods; or a
 *                               # Kubernetes Ingress object with ingress-nginx annotations
 *   loadBalance: round_robin    # round_robin | ewma | least_request
 *   affinity: cookie            # optional; or upstreamHashBy: $remote_addr
 * nodes: 1                      # replica i runs on node i mod nodes
 * background:                   # optional: the pods' own traffic on each replica's workers
 *   utilisation: 0.3            # or rate: 50 (per second per replica)
 *   serviceTime: {min: 100ms, max: 300ms}
 * clients:                      # required, at least one
 *   - name: users
 *     rate: 200                 # open loop, per second; or concurrency: 100 (closed loop)
 *     serviceTime: 50ms         # required; or {min: 4s, max: 12s}
 *     timeout: 10s              # required
 *     retries: 0
 *     retryDelay: 100ms
 *     thinkTime: 0s
 *     from: 0s
 *     until: <duration>
 *     persistent: false         # closed loop: keep the connection (and replica)
 *     connections: 0            # open loop: K kept connections carry the rate
 *     usesDependency: false
 *     keys: 0                   # affinity keys (source IPs, cookie jars): 0 = one per connection, 1 = one NAT
 *     http2: false              # closed loop: requests multiplexed over 'connections' (default 1)
 *     retryBackoff: 1           # retry n waits retryDelay x retryBackoff^(n-1)
 *     node: <none>              # the node the clients run on (node-local routing)
 *     retryOn: [timeout, reset, refused, 5xx]   # the failures retried (all by default)
 * actions: [{at: 60s, kill: 0}]
 * expect: ["endpoints > 0 always", "restarts == 0", "client errors < 1%"]
 * rollout:                      # optional (both engines): a rolling update of the Deployment
 *   at: 60s                     # required: when the new pod template is applied
 *   strategy: {maxSurge: 25%, maxUnavailable: 25%}   # counts or percentages
 *   minReadySeconds: 0
 *   progressDeadlineSeconds: 600
 *   startTime: <replica.startTime>   # the new version's cold start
 *   warmup: {factor: 3, period: 30s} # or {factor: 3, requests: 2000}
 *   readiness: port-open        # or warmed: readiness waits for warm-up (vitals-core Warmup)
 * }</pre>
 *
 * Thread-safe (stateless).
 */
public final class FleetSpecReader {

    private FleetSpecReader() {
    }

    /**
     * @param file the YAML file
     * @return the spec
     * @throws InvalidInputException when the file cannot be read or a field is missing or invalid
     */
    public static FleetSpec read(Path file) {
        return parse(text(file), file.toString()); // parsed from the text: messages carry the line
    }

    /**
     * The file's YAML tree, before any field is read: {@link FleetSweep} changes one value in it
     * and builds the spec with {@link #parse(JsonNode, String)}.
     *
     * @param file the YAML file
     * @return its one document (a mapping, unless the file is not a fleet file)
     * @throws InvalidInputException when the file cannot be read or is not one YAML document
     */
    static JsonNode tree(Path file) {
        return dev.vitals.kubesim.yaml.YamlDocs.readOne(text(file), file.toString());
    }

    private static String text(Path file) {
        try {
            return dev.vitals.kubesim.yaml.InputFiles.readText(file);
        } catch (IOException e) {
            throw new InvalidInputException(file + ": cannot read: " + (e instanceof java.nio.file.NoSuchFileException
                    ? "no such file" : String.valueOf(e.getMessage())), e);
        }
    }

    /**
     * @param yaml the YAML text
     * @param source the name used in messages
     * @return the spec
     * @throws InvalidInputException when a field is missing or invalid
     */
    public static FleetSpec parse(String yaml, String source) {
        List<dev.vitals.kubesim.yaml.YamlDocs.Doc> docs = dev.vitals.kubesim.yaml.YamlDocs.readAll(yaml, source, "render it first");
        if (docs.size() > 1) {
            throw new InvalidInputException(source + ":" + docs.get(1).line + ": holds " + docs.size()
                    + " YAML documents ('---'); this file is one document");
        }
        return docs.isEmpty() ? parse(null, source, List.of()) : parse(docs.get(0).root, source, List.of(docs.get(0).locations));
    }

    /**
     * @param root the YAML tree (as {@link #tree} reads it; not changed), or null
     * @param source the name used in messages
     * @return the spec, its messages without lines
     * @throws InvalidInputException when a field is missing or invalid
     */
    static FleetSpec parse(JsonNode root, String source) {
        return parse(root, source, List.of());
    }

    /**
     * @param root the YAML tree, or null
     * @param source the name used in messages
     * @param lines where the tree's keys were written (empty: messages without a line, e.g. a tree changed in memory)
     * @return the spec
     * @throws InvalidInputException when a field is missing or invalid
     */
    static FleetSpec parse(JsonNode root, String source, List<dev.vitals.kubesim.yaml.YamlDocs.Locations> lines) {
        if (root == null || !root.isObject()) {
            throw new InvalidInputException(source + ": expected a YAML mapping with replicas, duration, replica, probes, clients");
        }
        Node r = new Node(source, "", root, lines);
        try {
            return read(r);
        } catch (IllegalArgumentException e) {
            if (e instanceof InvalidInputException) {
                throw e;
            }
            throw new InvalidInputException(source + ": " + e.getMessage());
        }
    }

    private static FleetSpec read(Node r) {
        r.known("replicas", "duration", "step", "seed", "replica", "probes", "dependency", "service", "clients", "actions",
                "expect", "rollout", "ingress", "nodes", "background");
        int replicas = r.integer("replicas", 1, FleetSpec.MAX_REPLICAS);
        Duration duration = r.duration("duration");
        Duration step = r.optDuration("step").orElse(Duration.ofMillis(100));
        long seed = r.has("seed") ? r.integer("seed", Integer.MIN_VALUE, Integer.MAX_VALUE) : 1;
        FleetSpec.Replica replica = replica(r.object("replica"));
        FleetSpec.Probes probes = probes(r.object("probes"));
        Optional<FleetSpec.Dependency> dependency = r.has("dependency") ? Optional.of(dependency(r.object("dependency")))
                : Optional.empty();
        Duration delay = Duration.ofSeconds(1);
        Routing routing = routing(r);
        if (r.has("service") && !r.object("service").has("kind")) {
            delay = r.object("service").optDuration("propagationDelay").orElse(delay);
        }
        Optional<FleetSpec.Background> background = r.has("background") ? Optional.of(background(r.object("background")))
                : Optional.empty();
        List<FleetSpec.Clients> clients = clients(r, dependency.isPresent(), duration, routing);
        List<FleetSpec.Kill> actions = new ArrayList<>();
        if (r.has("actions")) {
            for (Node a : r.list("actions")) {
                a.known("at", "kill");
                actions.add(new FleetSpec.Kill(a.duration("at"), a.integer("kill", 0, replicas - 1)));
            }
        }
        List<FleetExpectation> expect = expectations(r);
        Optional<Rollout> rollout = r.has("rollout") ? Optional.of(rollout(r.object("rollout"), replica)) : Optional.empty();
        return new FleetSpec(replicas, duration, step, seed, replica, probes, dependency,
                new FleetSpec.Service(delay, routing), clients, actions, expect, rollout, background);
    }

    /** {@code replica:}: the model replica's workers, queue, start and stop times, probe cost and warm-up. */
    private static FleetSpec.Replica replica(Node m) {
        m.known("workers", "startTime", "stopTime", "queueLimit", "probeServiceTime", "warmupFactor", "warmupTime");
        int queueLimit = Integer.MAX_VALUE;
        if (m.has("queueLimit") && !m.text("queueLimit").equals("unbounded")) {
            queueLimit = m.integer("queueLimit", 0, Integer.MAX_VALUE - 1);
        }
        return new FleetSpec.Replica(m.integer("workers", 1, 1_000_000), queueLimit,
                m.duration("startTime"), m.optDuration("stopTime").orElse(Duration.ofMillis(500)),
                m.optDuration("probeServiceTime").orElse(Duration.ofMillis(1)),
                m.has("warmupFactor") ? m.number("warmupFactor", 1, 100) : 1,
                m.optDuration("warmupTime").orElse(Duration.ZERO));
    }

    /** {@code probes:}: where probes are served, the three probes, and what liveness and readiness check of the dependency. */
    private static FleetSpec.Probes probes(Node p) {
        p.known("server", "startup", "liveness", "readiness");
        String server = p.text("server");
        FleetSpec.ProbeServer ps;
        if (server.equals("app-pool")) {
            ps = FleetSpec.ProbeServer.APP_POOL;
        } else if (server.equals("isolated")) {
            ps = FleetSpec.ProbeServer.ISOLATED;
        } else {
            throw p.bad("server", "must be app-pool or isolated, was '" + server + "'");
        }
        Optional<ProbeSpec> startup = probe(p, "startup", ProbeType.STARTUP);
        Optional<ProbeSpec> liveness = probe(p, "liveness", ProbeType.LIVENESS);
        Optional<ProbeSpec> readiness = probe(p, "readiness", ProbeType.READINESS);
        return new FleetSpec.Probes(startup, liveness, readiness, ps, role(p, "liveness"), role(p, "readiness"));
    }

    /** {@code dependency:}: its name, check and failure times, outages and (live) target. */
    private static FleetSpec.Dependency dependency(Node d) {
        d.known("name", "checkTime", "failTime", "outages", "target");
        List<FleetSpec.Window> outages = new ArrayList<>();
        for (Node o : d.list("outages")) {
            o.known("at", "duration");
            outages.add(new FleetSpec.Window(o.duration("at"), o.duration("duration")));
        }
        return new FleetSpec.Dependency(d.has("name") ? d.text("name") : "dependency",
                d.optDuration("checkTime").orElse(Duration.ZERO), d.optDuration("failTime").orElse(Duration.ofMillis(10)),
                outages, d.has("target") ? Optional.of(d.text("target")) : Optional.empty());
    }

    /** {@code background:}: other traffic on each replica, by utilisation or rate. */
    private static FleetSpec.Background background(Node b) {
        b.known("utilisation", "rate", "serviceTime");
        if (b.has("utilisation") == b.has("rate")) {
            throw b.bad("", "give exactly one of utilisation (0-0.99) or rate (per second per replica)");
        }
        Duration[] st = serviceTime(b);
        return new FleetSpec.Background(b.has("utilisation") ? b.number("utilisation", 0.001, 0.99) : 0,
                b.has("rate") ? b.number("rate", 0.001, 10_000_000) : 0, st[0], st[1]);
    }

    /** {@code clients:}: at least one population, open loop (rate) or closed loop (concurrency). */
    private static List<FleetSpec.Clients> clients(Node r, boolean dependency, Duration duration, Routing routing) {
        List<FleetSpec.Clients> clients = new ArrayList<>();
        List<Node> cl = r.list("clients");
        if (cl.isEmpty()) {
            throw r.bad("clients", "needs at least one client population (e.g. - {name: users, rate: 100, serviceTime: 50ms, timeout: 10s})");
        }
        int n = 0;
        for (Node c : cl) {
            c.known("name", "rate", "concurrency", "thinkTime", "from", "until", "serviceTime", "timeout", "retries",
                    "retryDelay", "persistent", "connections", "usesDependency", "total", "keys", "http2", "retryBackoff", "node", "retryOn");
            String name = c.has("name") ? c.text("name") : "clients-" + n;
            n++;
            if (c.has("rate") == c.has("concurrency")) {
                throw c.bad("", "give exactly one of rate (open loop, per second) or concurrency (closed loop)");
            }
            double rate = c.has("rate") ? c.number("rate", 0.001, 10_000_000) : 0;
            int conc = c.has("concurrency") ? c.integer("concurrency", 1, 10_000_000) : 0;
            Duration[] st = serviceTime(c);
            Duration min = st[0];
            Duration max = st[1];
            if (c.has("usesDependency") && c.bool("usesDependency") && !dependency) {
                throw c.bad("usesDependency", "is true but there is no dependency section");
            }
            clients.add(new FleetSpec.Clients(name, rate, conc, c.optDuration("thinkTime").orElse(Duration.ZERO),
                    c.optDuration("from").orElse(Duration.ZERO), c.optDuration("until").orElse(duration), min, max,
                    c.duration("timeout"), c.has("retries") ? c.integer("retries", 0, 100) : 0,
                    c.optDuration("retryDelay").orElse(Duration.ofMillis(100)), c.has("persistent") && c.bool("persistent"),
                    c.has("connections") ? c.integer("connections", 0, 10_000_000) : 0, c.has("usesDependency") && c.bool("usesDependency"),
                    c.has("total") ? c.integer("total", 1, 1_000_000_000) : 0, clientPolicy(c, routing)));
        }
        return clients;
    }

    /** {@code expect:}: a list of expectations such as {@code 'restarts == 0'}. */
    private static List<FleetExpectation> expectations(Node r) {
        List<FleetExpectation> expect = new ArrayList<>();
        if (!r.has("expect")) {
            return expect;
        }
        JsonNode e = r.node.get("expect");
        if (!e.isArray()) {
            throw r.bad("expect", "must be a list of strings such as 'restarts == 0'");
        }
        for (JsonNode x : e) {
            try {
                expect.add(FleetExpectation.parse(x.asText()));
            } catch (IllegalArgumentException ex) {
                throw new InvalidInputException(r.source + ": expect: " + ex.getMessage());
            }
        }
        return expect;
    }

    private static Duration[] serviceTime(Node c) {
        if (c.has("serviceTime") && c.node.get("serviceTime").isObject()) {
            Node st = c.object("serviceTime");
            st.known("min", "max");
            return new Duration[] {st.duration("min"), st.duration("max")};
        }
        Duration d = c.duration("serviceTime");
        return new Duration[] {d, d};
    }

    private static FleetSpec.ClientPolicy clientPolicy(Node c, Routing routing) {
        int node = -1;
        if (c.has("node")) {
            node = c.integer("node", 0, routing.nodes() - 1);
        }
        boolean http2 = c.has("http2") && c.bool("http2");
        if (http2 && !c.has("concurrency")) {
            throw c.bad("http2", "is for closed loop (concurrency): its requests share 'connections' connections");
        }
        int keys = c.has("keys") ? c.integer("keys", 0, 10_000_000) : 0;
        double backoff = c.has("retryBackoff") ? c.number("retryBackoff", 1, 10) : 1;
        java.util.Set<FleetSpec.Failure> retryOn = java.util.EnumSet.allOf(FleetSpec.Failure.class);
        if (c.has("retryOn")) {
            JsonNode v = c.node.get("retryOn");
            if (!v.isArray()) {
                throw c.bad("retryOn", "must be a list of timeout, reset, refused, 5xx (e.g. [reset, refused])");
            }
            retryOn = java.util.EnumSet.noneOf(FleetSpec.Failure.class);
            outer:
            for (JsonNode x : v) {
                for (FleetSpec.Failure f : FleetSpec.Failure.values()) {
                    if (f.label().equals(x.asText())) {
                        retryOn.add(f);
                        continue outer;
                    }
                }
                throw c.bad("retryOn", "'" + x.asText() + "' is not one of timeout, reset, refused, 5xx");
            }
        }
        return new FleetSpec.ClientPolicy(keys, http2, backoff, node, retryOn); // within the bounds checked above
    }

    /**
     * The routing: the fleet file's {@code service:} (its short form, or a Kubernetes Service), its
     * {@code ingress:} (short form, or a Kubernetes Ingress with ingress-nginx annotations) and {@code
     * nodes}.
     */
    private static Routing routing(Node r) {
        int nodes = r.has("nodes") ? r.integer("nodes", 1, FleetSpec.MAX_REPLICAS) : 1;
        ServiceFields service = r.has("service") ? service(r.object("service")) : ServiceFields.DEFAULT;
        Routing.Layer layer = Routing.Layer.KUBE_PROXY;
        Routing.Algorithm algorithm = service.algorithm();
        Routing.Affinity affinity = service.affinity();
        if (r.has("ingress")) {
            Node in = r.object("ingress");
            IngressFields ingress = ingress(in);
            if (affinity == Routing.Affinity.CLIENT_IP) {
                throw in.bad("", "an ingress balances to the pods directly, so the Service's sessionAffinity: ClientIP would "
                        + "never apply; drop one of them");
            }
            layer = Routing.Layer.INGRESS;
            algorithm = ingress.algorithm();
            affinity = ingress.affinity();
        }
        try {
            return new Routing(layer, algorithm, affinity, service.timeout(), service.policy(), nodes);
        } catch (IllegalArgumentException e) {
            throw r.bad(r.has("ingress") ? "ingress" : "service", e.getMessage());
        }
    }

    /** What a Service gives the routing: kube-proxy's algorithm, the session affinity and its timeout, the traffic policy. */
    private record ServiceFields(Routing.Algorithm algorithm, Routing.Affinity affinity, Duration timeout,
            Routing.TrafficPolicy policy) {
        static final ServiceFields DEFAULT = new ServiceFields(Routing.Algorithm.RANDOM, Routing.Affinity.NONE,
                Routing.DEFAULT_AFFINITY_TIMEOUT, Routing.TrafficPolicy.CLUSTER);
    }

    /** {@code service:}: the short form (with proxyMode, ipvsScheduler) or a Kubernetes Service. */
    private static ServiceFields service(Node s) {
        if (s.has("kind")) {
            kubernetesObject(s, "Service", "v1");
            return s.has("spec") ? serviceSpec(s.object("spec"), Routing.Algorithm.RANDOM) : ServiceFields.DEFAULT;
        }
        s.known("propagationDelay", "proxyMode", "ipvsScheduler", "sessionAffinity", "sessionAffinityConfig",
                "internalTrafficPolicy", "trafficDistribution");
        String mode = s.has("proxyMode") ? s.text("proxyMode") : "iptables";
        if (!List.of("iptables", "nftables", "ipvs").contains(mode)) {
            throw s.bad("proxyMode", "must be iptables, nftables or ipvs, was '" + mode + "'");
        }
        if (s.has("ipvsScheduler") && !mode.equals("ipvs")) {
            throw s.bad("ipvsScheduler", "is for proxyMode: ipvs");
        }
        if (!mode.equals("ipvs")) { // nftables: the same pick as iptables, reported as configured
            return serviceSpec(s, mode.equals("nftables") ? Routing.Algorithm.NFTABLES : Routing.Algorithm.RANDOM);
        }
        String sch = s.has("ipvsScheduler") ? s.text("ipvsScheduler") : "rr";
        switch (sch) {
            case "rr":
                return serviceSpec(s, Routing.Algorithm.IPVS_RR);
            case "lc":
                return serviceSpec(s, Routing.Algorithm.IPVS_LC);
            case "sh":
                return serviceSpec(s, Routing.Algorithm.IPVS_SH);
            default:
                throw s.bad("ipvsScheduler", "must be rr, lc or sh (the schedulers modelled), was '" + sch + "'");
        }
    }

    /** A Service's spec fields: sessionAffinity, sessionAffinityConfig, internalTrafficPolicy, trafficDistribution. */
    private static ServiceFields serviceSpec(Node spec, Routing.Algorithm algorithm) {
        Routing.Affinity affinity = Routing.Affinity.NONE;
        Duration timeout = Routing.DEFAULT_AFFINITY_TIMEOUT;
        Routing.TrafficPolicy policy = Routing.TrafficPolicy.CLUSTER;
        if (spec.has("sessionAffinity")) {
            String a = spec.text("sessionAffinity");
            if (a.equals("ClientIP")) {
                affinity = Routing.Affinity.CLIENT_IP;
            } else if (!a.equals("None")) {
                throw spec.bad("sessionAffinity", "must be None or ClientIP, was '" + a + "'");
            }
        }
        if (spec.has("sessionAffinityConfig")) {
            Node cfg = spec.object("sessionAffinityConfig");
            cfg.known("clientIP");
            Node ip = cfg.object("clientIP");
            ip.known("timeoutSeconds");
            if (ip.has("timeoutSeconds")) {
                timeout = Duration.ofSeconds(ip.integer("timeoutSeconds", 1, 86400));
            }
            if (affinity != Routing.Affinity.CLIENT_IP) {
                throw spec.bad("sessionAffinityConfig", "is for sessionAffinity: ClientIP");
            }
        }
        if (spec.has("internalTrafficPolicy")) {
            String t = spec.text("internalTrafficPolicy");
            if (t.equals("Local")) {
                policy = Routing.TrafficPolicy.LOCAL;
            } else if (!t.equals("Cluster")) {
                throw spec.bad("internalTrafficPolicy", "must be Cluster or Local, was '" + t + "'");
            }
        }
        if (spec.has("trafficDistribution")) {
            String t = spec.text("trafficDistribution");
            if (!t.equals("PreferSameNode")) {
                throw spec.bad("trafficDistribution", "must be PreferSameNode (PreferClose and PreferSameZone need zones, "
                        + "which the model does not place), was '" + t + "'");
            }
            if (policy == Routing.TrafficPolicy.CLUSTER) {
                policy = Routing.TrafficPolicy.PREFER_SAME_NODE; // Local takes precedence (KEP-4444)
            }
        }
        return new ServiceFields(algorithm, affinity, timeout, policy);
    }

    /** What an ingress gives the routing: ingress-nginx's balancing and affinity. */
    private record IngressFields(Routing.Algorithm algorithm, Routing.Affinity affinity) {
    }

    /** {@code ingress:}: the short form or a Kubernetes Ingress with ingress-nginx annotations. */
    private static IngressFields ingress(Node in) {
        String lb;
        String aff;
        String hash;
        if (in.has("kind")) {
            kubernetesObject(in, "Ingress", "networking.k8s.io/v1");
            Node meta = in.object("metadata");
            Node ann = meta.has("annotations") ? meta.object("annotations") : null;
            String pre = "nginx.ingress.kubernetes.io/";
            lb = ann != null && ann.has(pre + "load-balance") ? ann.text(pre + "load-balance") : "round_robin";
            aff = ann != null && ann.has(pre + "affinity") ? ann.text(pre + "affinity") : "";
            hash = ann != null && ann.has(pre + "upstream-hash-by") ? ann.text(pre + "upstream-hash-by") : "";
            Node where = ann != null ? ann : meta;
            if (!List.of("round_robin", "ewma").contains(lb)) {
                throw where.bad(pre + "load-balance", "must be round_robin or ewma (ingress-nginx), was '" + lb + "'");
            }
            if (!aff.isEmpty() && !aff.equals("cookie")) {
                throw where.bad(pre + "affinity", "must be cookie (the only affinity ingress-nginx has), was '" + aff + "'");
            }
        } else {
            in.known("loadBalance", "affinity", "upstreamHashBy");
            lb = in.has("loadBalance") ? in.text("loadBalance") : "round_robin";
            aff = in.has("affinity") ? in.text("affinity") : "";
            hash = in.has("upstreamHashBy") ? in.text("upstreamHashBy") : "";
            if (!List.of("round_robin", "ewma", "least_request").contains(lb)) {
                throw in.bad("loadBalance", "must be round_robin, ewma or least_request, was '" + lb + "'");
            }
            if (!aff.isEmpty() && !aff.equals("cookie") && !aff.equals("none")) {
                throw in.bad("affinity", "must be cookie or none, was '" + aff + "'");
            }
        }
        if (aff.equals("cookie") && !hash.isEmpty()) {
            throw in.bad("", "give one of affinity: cookie or upstream-hash-by, not both");
        }
        return new IngressFields(lb.equals("ewma") ? Routing.Algorithm.EWMA : lb.equals("least_request") ? Routing.Algorithm.LEAST_REQUEST
                : Routing.Algorithm.ROUND_ROBIN,
                aff.equals("cookie") ? Routing.Affinity.COOKIE : hash.isEmpty() ? Routing.Affinity.NONE : Routing.Affinity.HASH);
    }

    /**
     * Takes the routing from the Kubernetes {@code Service} and {@code Ingress} in a manifest (the
     * {@code --manifest} beside a fleet file): the same fields as a Service or Ingress written in the
     * fleet file. Other objects in it are ignored here (the probes are read by {@code ManifestReader}).
     *
     * @param spec the fleet
     * @param manifest the manifest file
     * @return the fleet with the manifest's routing, or unchanged when the manifest has no Service or Ingress
     * @throws InvalidInputException one line, with the file and line: when it cannot be read, holds more than one
     *         Service or Ingress, a field read is invalid, or the fleet file gives routing too
     */
    public static FleetSpec withManifestRouting(FleetSpec spec, Path manifest) {
        String text;
        try {
            text = dev.vitals.kubesim.yaml.InputFiles.readText(manifest);
        } catch (IOException e) {
            throw new InvalidInputException(manifest + ": cannot read: " + e.getMessage(), e);
        }
        String source = manifest.toString();
        com.fasterxml.jackson.databind.node.ObjectNode wrapper = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode();
        List<dev.vitals.kubesim.yaml.YamlDocs.Locations> lines = new ArrayList<>();
        for (dev.vitals.kubesim.yaml.YamlDocs.Doc d : dev.vitals.kubesim.yaml.YamlDocs.readAll(text, source, "render it first")) {
            String kind = d.root.path("kind").asText();
            String field = kind.equals("Service") ? "service" : kind.equals("Ingress") ? "ingress" : null;
            if (field == null) {
                continue;
            }
            if (wrapper.has(field)) {
                throw new InvalidInputException(source + ":" + d.line + ": a second " + kind + "; keep the one in front of the fleet's pods");
            }
            lines.add(d.locations); // looked up by node identity: each document's for its own nodes
            wrapper.set(field, d.root);
        }
        if (wrapper.isEmpty()) {
            return spec;
        }
        if (!spec.service().routing().equals(Routing.DEFAULT)) {
            throw new InvalidInputException(source + ": has a Service or Ingress, and the fleet file gives routing too "
                    + "(service:/ingress:); keep one");
        }
        wrapper.put("nodes", spec.service().routing().nodes());
        Node root = new Node(source, "", wrapper, lines);
        return spec.withService(spec.service().withRouting(routing(root)));
    }

    /**
     * The ingress-nginx annotations of the Ingress in a fleet file ({@code ingress:} written as a
     * Kubernetes object) or in a manifest ({@code kind: Ingress}) that the model does not read
     * ({@link dev.vitals.kubesim.manifest.IngressNginx}): one notice line each, {@code FILE:LINE: Ingress NAME:
     * annotation … not modelled …}. Call it after the file was read without error.
     *
     * @param file a fleet file or a manifest
     * @return the notice lines, empty when there is nothing to say or the file cannot be read again
     */
    public static List<String> ingressNotices(Path file) {
        List<String> out = new ArrayList<>();
        if (!Files.isRegularFile(file)) {
            return out; // a pipe was read once; a second read would wait for a writer that is gone
        }
        String text;
        try {
            text = dev.vitals.kubesim.yaml.InputFiles.readText(file);
        } catch (IOException | RuntimeException e) {
            return out; // read once already: a second read that fails has nothing to add
        }
        for (dev.vitals.kubesim.yaml.YamlDocs.Doc d : dev.vitals.kubesim.yaml.YamlDocs.readAll(text, file.toString(), "render it first")) {
            JsonNode ingress = d.root.path("kind").asText().equals("Ingress") ? d.root
                    : d.root.path("ingress").path("kind").asText().equals("Ingress") ? d.root.path("ingress") : null;
            if (ingress == null) {
                continue;
            }
            JsonNode ann = ingress.path("metadata").path("annotations");
            String name = ingress.path("metadata").path("name").asText("(unnamed)");
            for (String a : dev.vitals.kubesim.manifest.IngressNginx.unmodelled(ann)) {
                out.add(file + ":" + d.locations.line(ann, a) + ": Ingress " + name + ": annotation " + a + " is "
                        + dev.vitals.kubesim.manifest.IngressNginx.why());
            }
        }
        return out;
    }

    /** Checks a Kubernetes object's kind and apiVersion; its other fields are the API's business (only those read are checked). */
    private static void kubernetesObject(Node o, String kind, String apiVersion) {
        String k = o.text("kind");
        if (!k.equals(kind)) {
            throw o.bad("kind", "must be " + kind + " here, was '" + k + "'");
        }
        if (o.has("apiVersion") && !o.text("apiVersion").equals(apiVersion)) {
            throw o.bad("apiVersion", "must be " + apiVersion + " for a " + kind + ", was '" + o.text("apiVersion") + "'");
        }
    }

    private static Rollout rollout(Node o, FleetSpec.Replica replica) {
        o.known("at", "strategy", "minReadySeconds", "progressDeadlineSeconds", "startTime", "warmup", "readiness");
        String surge = "25%";
        String unavailable = "25%";
        if (o.has("strategy")) {
            Node s = o.object("strategy");
            s.known("maxSurge", "maxUnavailable");
            surge = s.has("maxSurge") ? s.text("maxSurge") : surge;
            unavailable = s.has("maxUnavailable") ? s.text("maxUnavailable") : unavailable;
        }
        double factor = 1;
        Duration period = Duration.ZERO;
        int requests = 0;
        if (o.has("warmup")) {
            Node w = o.object("warmup");
            w.known("factor", "period", "requests");
            factor = w.number("factor", 1, 100);
            if (w.has("period") == w.has("requests")) {
                throw w.bad("", "give exactly one of period (e.g. 30s) or requests (e.g. 2000)");
            }
            period = w.optDuration("period").orElse(Duration.ZERO);
            requests = w.has("requests") ? w.integer("requests", 1, 1_000_000_000) : 0;
        }
        boolean warmed = false;
        if (o.has("readiness")) {
            String rd = o.text("readiness");
            if (!rd.equals("port-open") && !rd.equals("warmed")) {
                throw o.bad("readiness", "must be port-open or warmed, was '" + rd + "'");
            }
            warmed = rd.equals("warmed");
        }
        Duration at = o.duration("at");
        int minReady = o.has("minReadySeconds") ? o.integer("minReadySeconds", 0, 86_400) : 0;
        int deadline = o.has("progressDeadlineSeconds") ? o.integer("progressDeadlineSeconds", 1, 86_400) : 600;
        Duration start = o.optDuration("startTime").orElse(replica.startTime());
        try {
            return new Rollout(at, surge, unavailable, minReady, deadline, start, factor, period, requests, warmed);
        } catch (IllegalArgumentException e) {
            throw new InvalidInputException(o.source + ": " + e.getMessage());
        }
    }

    private static Optional<ProbeSpec> probe(Node p, String field, ProbeType type) {
        if (!p.has(field)) {
            return Optional.empty();
        }
        Node o = p.object(field);
        o.known("initialDelaySeconds", "periodSeconds", "timeoutSeconds", "successThreshold", "failureThreshold",
                "terminationGracePeriodSeconds", "dependency", "path");
        // the live engine sends HTTP probes here: on the app port (/healthz) or on PROBE_PORT (/livez, /readyz, /startupz)
        String path = o.has("path") ? o.text("path") : p.text("server").equals("app-pool") ? "/healthz"
                : "/" + (type == ProbeType.LIVENESS ? "livez" : type == ProbeType.READINESS ? "readyz" : "startupz");
        if (!path.startsWith("/")) {
            throw o.bad("path", "must start with /, was '" + path + "'");
        }
        ProbeSpec.Builder b = ProbeSpec.builder(type).fieldPrefix(o.path)
                .handler(new ProbeHandler.HttpGet(Optional.empty(), ProbeHandler.PortRef.of(8080), path, "HTTP", List.of()));
        for (String f : List.of("initialDelaySeconds", "periodSeconds", "timeoutSeconds", "successThreshold", "failureThreshold")) {
            if (o.has(f)) {
                long v = o.integer(f, 0, Integer.MAX_VALUE);
                switch (f) {
                    case "initialDelaySeconds":
                        b.initialDelaySeconds(v);
                        break;
                    case "periodSeconds":
                        b.periodSeconds(v);
                        break;
                    case "timeoutSeconds":
                        b.timeoutSeconds(v);
                        break;
                    case "successThreshold":
                        b.successThreshold(v);
                        break;
                    default:
                        b.failureThreshold(v);
                }
            }
        }
        if (o.has("terminationGracePeriodSeconds")) {
            b.terminationGracePeriodSeconds(o.integer("terminationGracePeriodSeconds", 1, Integer.MAX_VALUE));
        }
        try {
            return Optional.of(b.build());
        } catch (InvalidInputException e) {
            throw new InvalidInputException(p.source + ": " + e.getMessage().replace("\n  ", " "));
        }
    }

    private static FleetSpec.DependencyRole role(Node p, String field) {
        if (!p.has(field)) {
            return FleetSpec.DependencyRole.NONE;
        }
        Node o = p.object(field);
        if (!o.has("dependency")) {
            return FleetSpec.DependencyRole.NONE;
        }
        String v = o.text("dependency");
        switch (v) {
            case "none":
                return FleetSpec.DependencyRole.NONE;
            case "critical":
                return FleetSpec.DependencyRole.CRITICAL;
            case "non-critical":
                return FleetSpec.DependencyRole.NON_CRITICAL;
            default:
                throw o.bad("dependency", "must be none, critical or non-critical, was '" + v + "'");
        }
    }

    /** A YAML node with its path, for one-line messages. */
    private static final class Node {
        final String source;
        final String path;
        final JsonNode node;
        final List<dev.vitals.kubesim.yaml.YamlDocs.Locations> lines; // one per document the nodes come from

        Node(String source, String path, JsonNode node, List<dev.vitals.kubesim.yaml.YamlDocs.Locations> lines) {
            this.source = source;
            this.path = path;
            this.node = node;
            this.lines = lines;
        }

        String at(String field) {
            return field.isEmpty() ? path : path.isEmpty() ? field : path + "." + field;
        }

        /** @return {@code source:LINE: path: what}, the line of the field (else of its mapping) when known */
        InvalidInputException bad(String field, String what) {
            String where = at(field);
            int line = 0;
            for (dev.vitals.kubesim.yaml.YamlDocs.Locations l : lines) {
                line = line > 0 ? line : field.isEmpty() || field.contains("[") ? l.line(node) : l.line(node, field);
            }
            return new InvalidInputException(source + (line > 0 ? ":" + line : "") + ": " + (where.isEmpty() ? "" : where + ": ") + what);
        }

        void known(String... fields) {
            Set<String> k = new LinkedHashSet<>(List.of(fields));
            Iterator<String> it = node.fieldNames();
            while (it.hasNext()) {
                String f = it.next();
                if (!k.contains(f)) {
                    throw bad(f, "unknown field (known here: " + String.join(", ", k) + ")");
                }
            }
        }

        boolean has(String f) {
            JsonNode v = node.get(f);
            return v != null && !v.isNull();
        }

        JsonNode need(String f) {
            if (!has(f)) {
                throw bad(f, "missing");
            }
            return node.get(f);
        }

        Node object(String f) {
            JsonNode v = need(f);
            if (!v.isObject()) {
                throw bad(f, "must be a mapping");
            }
            return new Node(source, at(f), v, lines);
        }

        List<Node> list(String f) {
            JsonNode v = need(f);
            if (!v.isArray()) {
                throw bad(f, "must be a list");
            }
            List<Node> out = new ArrayList<>();
            for (int i = 0; i < v.size(); i++) {
                if (!v.get(i).isObject()) {
                    throw bad(f + "[" + i + "]", "must be a mapping");
                }
                out.add(new Node(source, at(f) + "[" + i + "]", v.get(i), lines));
            }
            return out;
        }

        String text(String f) {
            JsonNode v = need(f);
            if (!v.isValueNode()) {
                throw bad(f, "must be a single value");
            }
            return v.asText().trim();
        }

        int integer(String f, long min, long max) {
            JsonNode v = need(f);
            long x;
            if (v.isIntegralNumber() && v.canConvertToLong()) {
                x = v.asLong();
            } else if (v.isTextual() && v.asText().trim().matches("-?\\d{1,18}")) {
                x = Long.parseLong(v.asText().trim());
            } else {
                throw bad(f, "must be a whole number, was '" + v.asText() + "'");
            }
            if (x < min || x > max) {
                throw bad(f, "must be " + min + "-" + max + ", was " + x);
            }
            return (int) x;
        }

        double number(String f, double min, double max) {
            JsonNode v = need(f);
            double x;
            if (v.isNumber()) {
                x = v.asDouble();
            } else {
                try {
                    x = Double.parseDouble(v.asText());
                } catch (NumberFormatException e) {
                    throw bad(f, "must be a number, was '" + v.asText() + "'");
                }
            }
            if (!(x >= min && x <= max)) {
                throw bad(f, "must be " + min + "-" + max + ", was " + x);
            }
            return x;
        }

        boolean bool(String f) {
            JsonNode v = need(f);
            if (v.isBoolean()) {
                return v.asBoolean();
            }
            throw bad(f, "must be true or false, was '" + v.asText() + "'");
        }

        Duration duration(String f) {
            JsonNode v = need(f);
            try {
                return Durations.parse(v.asText());
            } catch (InvalidInputException e) {
                throw bad(f, e.getMessage());
            }
        }

        Optional<Duration> optDuration(String f) {
            return has(f) ? Optional.of(duration(f)) : Optional.empty();
        }
    }
}
