package dev.vitals.kubesim.fleet;

import dev.vitals.kubesim.model.Kubelet;
import dev.vitals.kubesim.model.KubeletOptions;
import dev.vitals.kubesim.model.PodSpec;
import dev.vitals.kubesim.model.SimEvent;
import dev.vitals.kubesim.model.VirtualTime;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SplittableRandom;

/**
 * The model engine: a fleet of replicas on one virtual clock. Each replica ({@link ModelReplica})
 * is the kubelet model ({@link Kubelet}, the same one {@code simulate} and {@code lint} run)
 * driving a scripted container and a queueing model of the application ({@link WorkerPool})
 * instead of a process; clients ({@link ClientPopulation}), the Service and the shared dependency
 * are modelled here, on the same clock, one step at a time. The equations are in DESIGN.md
 * section 7.3.
 *
 * <p>Deterministic for a given {@link FleetSpec#seed()}. Runs on the caller's thread; not
 * thread-safe; one run per instance. Memory: about {@link FleetSpec#BYTES_PER_REPLICA} per replica.
 */
public final class ModelFleet {
    /** Warm-up ends when every replica is in the endpoints, or after this long (virtual time). */
    public static final Duration WARMUP_CAP = Duration.ofMinutes(2);
    /** Replicas' kubelet models start at seeded random times within this span. */
    public static final Duration START_SPREAD = Duration.ofSeconds(2);

    private final FleetSpec spec;
    private final String label;
    private final VirtualTime time = new VirtualTime();
    private final SplittableRandom rnd;
    private final Draws draws;
    private final long stepNs;
    private final double dt;
    private final ModelReplica[] reps;
    private final WorkerPool[] pools; // reps[i].pool, read in the step's loops
    // per replica, in arrays the step's loops read without loading the pools (issue 37):
    private final int[] answersAtOnce; // requests its pool answers within the step as they arrive (WorkerPool.publish), or -1
    private final long[] served; // requests it answered successfully (a rollout's warm-up by requests)
    private final int[] epochs; // its process's number (ModelReplica.epoch): a kept connection belongs to one process
    // when its pool next has work for WorkerPool.serve, s: +∞ nothing to serve, −∞ requests waiting
    // for a worker, else the first completion (WorkerPool.publish); the step serves no other pool
    private final double[] workDue;
    private final boolean warm; // no cold start in the model: service times are the clients' own
    private final ClientPopulation[] pops;
    private final Recorder rec;
    private final KubeletOptions options;
    // the Service's view of the endpoints (after the propagation delay)
    private final int[] endpoints;
    private final int[] endpointPos;
    private int endpointCount;
    private int readyCount;
    // wheels, indexed by step
    private final StepWheel<Cohort> timeouts;
    private final StepWheel<Send> sends;
    private long stepNo;
    private final int[] split;
    private final int[] touched;
    private boolean ran;
    private long timerEvents;
    // the rollout (null without one): pods [0, desired) are the old ReplicaSet's, [desired, 2·desired) the new one's
    private final int desired;
    private final Rollout rollout;
    private PodSpec pod;
    private final DeploymentController controller; // with a rollout, else null
    // routing: how a connection (kube-proxy) or request (ingress) reaches a pod
    private final Routing routing;
    private final Balancer balancer;
    private final boolean plainRandom; // kube-proxy iptables, no affinity, no node policy: the fast paths below
    private final Balancer.Candidates all;
    private final Balancer.Candidates local;
    private final Balancer.Load load;
    private final ClientPopulation background; // the pods' own traffic, or null
    private final double backgroundRate;

    /**
     * @param spec the fleet
     * @param label what to call this run in reports, e.g. {@code incident naive}
     */
    public ModelFleet(FleetSpec spec, String label) {
        this(spec, label, KubeletOptions.defaults());
    }

    /**
     * @param spec the fleet
     * @param label what to call this run in reports
     * @param options the kubelet's options (back-off and so on)
     */
    public ModelFleet(FleetSpec spec, String label, KubeletOptions options) {
        this.spec = Objects.requireNonNull(spec, "spec");
        this.label = Objects.requireNonNull(label, "label");
        this.options = Objects.requireNonNull(options, "options");
        this.rnd = new SplittableRandom(spec.seed());
        this.draws = new Draws(rnd);
        this.stepNs = spec.step().toNanos();
        this.dt = stepNs / 1e9;
        desired = spec.replicas();
        rollout = spec.rollout().orElse(null);
        controller = rollout == null ? null : new DeploymentController(rollout, desired, new ModelPods());
        int n = rollout == null ? desired : 2 * desired;
        reps = new ModelReplica[n];
        pools = new WorkerPool[n];
        answersAtOnce = new int[n];
        Arrays.fill(answersAtOnce, -1);
        served = new long[n];
        epochs = new int[n];
        workDue = new double[n];
        Arrays.fill(workDue, Double.POSITIVE_INFINITY);
        warm = rollout == null && (spec.replica().warmupFactor() <= 1 || spec.replica().warmupTime().isZero());
        endpoints = new int[n];
        endpointPos = new int[n];
        split = new int[n];
        touched = new int[n];
        Arrays.fill(endpointPos, -1);
        routing = spec.service().routing();
        balancer = Balancer.of(routing, n, rnd);
        plainRandom = routing.algorithm().randomPick() && routing.affinity() == Routing.Affinity.NONE
                && (routing.trafficPolicy() == Routing.TrafficPolicy.CLUSTER || spec.clients().stream().allMatch(c -> c.policy().node() < 0));
        all = new Balancer.Candidates(endpoints, 0);
        local = new Balancer.Candidates(new int[n], 0);
        load = pod -> pools[pod].inSystem() + split[pod];
        pops = new ClientPopulation[spec.clients().size()];
        for (int p = 0; p < pops.length; p++) {
            FleetSpec.Clients c = spec.clients().get(p);
            // answered within the step by a free worker, as WorkerPool.enqueue would: no cold start, no dependency, short
            boolean inStep = warm && c.serviceMax().toNanos() / 1e9 <= dt && !(c.usesDependency() && spec.dependency().isPresent());
            pops[p] = new ClientPopulation(p, c, n, stepNs, inStep);
        }
        long maxTimeout = maxTimeoutNs(spec);
        if (spec.background().isPresent()) {
            FleetSpec.Background b = spec.background().get();
            FleetSpec.Clients own = new FleetSpec.Clients("background", 1, 0, Duration.ZERO, Duration.ZERO, spec.duration(),
                    b.serviceMin(), b.serviceMax(), Duration.ofMillis(Math.max(1, maxTimeout / 1_000_000)), 0, Duration.ZERO, false, 0,
                    false, 0);
            background = new ClientPopulation(-1, own, n, stepNs, false);
            backgroundRate = b.ratePerReplica(spec.replica().workers());
        } else {
            background = null;
            backgroundRate = 0;
        }
        timeouts = new StepWheel<>(maxTimeout / stepNs + 3);
        sends = new StepWheel<>(maxDelayNs(spec) / stepNs + 3);
        rec = new Recorder(n, desired, spec.duration().toNanos() / 1e9);
        rec.routing(routing.describe());
    }

    /** @return the longest client timeout, ns (at least 1) */
    private static long maxTimeoutNs(FleetSpec spec) {
        long max = 1;
        for (FleetSpec.Clients c : spec.clients()) {
            max = Math.max(max, c.timeout().toNanos());
        }
        return max;
    }

    /** @return the longest think time or (backed-off) retry delay, within the most steps a delay may span, ns */
    private static long maxDelayNs(FleetSpec spec) {
        long stepNs = spec.step().toNanos();
        long max = 1;
        for (FleetSpec.Clients c : spec.clients()) {
            max = Math.max(max, Math.max(c.thinkTime().toNanos(), c.retryDelay().toNanos()));
            double backedOff = c.retryDelay().toNanos() * Math.pow(c.policy().retryBackoff(), Math.max(0, c.retries() - 1));
            max = Math.max(max, (long) Math.min(backedOff, (double) FleetSpec.MAX_DELAY_STEPS * stepNs));
        }
        return max;
    }

    /**
     * Runs warm-up and the scenario.
     *
     * @return the result
     * @throws IllegalStateException when run twice
     */
    public FleetResult run() {
        if (ran) {
            throw new IllegalStateException("a ModelFleet runs once");
        }
        ran = true;
        createPods();
        time.schedule(0, this::step);
        long cap = WARMUP_CAP.toNanos();
        while (!rec.started() && time.monotonicTime() < cap) {
            time.awaitUntil(time.monotonicTime() + Duration.ofSeconds(1).toNanos());
        }
        if (!rec.started()) {
            startScenario();
        }
        long endNs = Math.round(rec.t0() * 1e9) + spec.duration().toNanos();
        time.awaitUntil(endNs);
        for (ModelReplica r : reps) {
            if (r.kubelet != null) {
                r.kubelet.stop();
            }
        }
        FleetResult result = rec.result("model", label, endNs / 1e9, spec.expectations(), rolloutStatus());
        timerEvents = time.scheduled();
        time.close();
        return result;
    }

    /** The replicas; the first {@code desired} get their kubelet, started at seeded times within {@link #START_SPREAD}. */
    private void createPods() {
        pod = PodSpec.of("app", Map.of("http", 8080), spec.probes().startup(), spec.probes().liveness(),
                spec.probes().readiness());
        for (int i = 0; i < reps.length; i++) {
            reps[i] = new ModelReplica(this, spec, time, i, i < desired ? 0 : 1);
        }
        for (int i = 0; i < reps.length; i++) {
            pools[i] = new WorkerPool(this, reps[i], spec.replica());
            reps[i].pool = pools[i];
        }
        for (int i = 0; i < desired; i++) {
            reps[i].kubelet = kubelet(reps[i]);
            if (rollout != null) {
                rec.pod(i, "old", Double.NEGATIVE_INFINITY);
            }
        }
        for (int i = 0; i < desired; i++) {
            Kubelet k = reps[i].kubelet;
            // replicas are created within START_SPREAD of each other (scheduling, image pulls), so
            // their probe ticks are not in phase
            time.schedule((long) (rnd.nextDouble() * START_SPREAD.toNanos()), k::start);
        }
    }

    private Kubelet kubelet(ModelReplica r) {
        Kubelet k = new Kubelet(pod, options, time, r.container, r, e -> onKubeletEvent(r, e));
        k.dropProbeEvents(); // onKubeletEvent reads none
        return k;
    }

    /** @return the timer events the run scheduled on its virtual clock (0 before {@link #run()}) */
    public long timerEvents() {
        return timerEvents;
    }

    double now() {
        return time.monotonicTime() / 1e9;
    }

    double dt() {
        return dt;
    }

    Draws draws() {
        return draws;
    }

    private void startScenario() {
        double now = now();
        rec.scenarioStart(now);
        if (rollout != null) {
            time.schedule(rollout.at().toNanos(), controller::start);
        }
        for (FleetSpec.Kill a : spec.actions()) {
            ModelReplica r = reps[a.replica()];
            time.schedule(a.at().toNanos(), r.container::kill);
        }
        for (ClientPopulation p : pops) {
            if (p.c.concurrency() > 0) {
                time.schedule(p.c.from().toNanos(), () -> sends.add(stepNo, new Send(p, -1, 0, p.c.concurrency(), 1)));
            }
        }
    }

    private double scenarioTime() {
        return rec.started() ? now() - rec.t0() : -1;
    }

    /** @return whether the shared dependency is down now */
    boolean dependencyDown() {
        return spec.dependency().isPresent() && rec.started() && spec.dependency().get().downAt(scenarioTime());
    }

    /** @return how long a request that needs the dependency takes to fail while it is down, seconds */
    double dependencyFailSeconds() {
        return spec.dependency().get().failTime().toNanos() / 1e9;
    }

    // ---- the step: clients, Service, replicas ----------------------------------------------

    private void step() {
        double now = now();
        if (!rec.started() && endpointCount == desired) {
            startScenario();
        }
        timeoutsDue();
        sendsDue();
        if (rec.started()) {
            openLoopArrivals(now);
        }
        warmupRoutines();
        backgroundArrivals();
        double end = now + dt;
        for (int i = 0; i < pools.length; i++) {
            if (workDue[i] <= end) {
                pools[i].serve(now, end);
            }
        }
        rec.sample(now, endpointCount, readyCount, dt);
        stepNo++;
        time.schedule(stepNs, this::step);
    }

    /** Requests whose clients' timeout ends now fail; a client that timed out closes its kept connection. */
    private void timeoutsDue() {
        List<Cohort> due = timeouts.take(stepNo);
        if (due == null) {
            return;
        }
        for (Cohort c : due) {
            if (c.n > 0 && !c.abandoned) {
                c.abandoned = true;
                failedOn(pools[c.replica], c.pop, c.n, c.attempt, FleetSpec.Failure.TIMEOUT);
                ClientPopulation p = c.pop;
                if (p.conn != null) {
                    // it reconnects through the Service
                    int moved = Math.min(p.conn[c.replica], c.n);
                    p.conn[c.replica] -= moved;
                    p.unpinned += moved;
                }
            }
        }
    }

    /** Deferred sends: think time over, retries, closed-loop starts. */
    private void sendsDue() {
        List<Send> ready = sends.take(stepNo);
        if (ready != null) {
            for (Send s : ready) {
                send(s.pop(), s.pin(), s.epoch(), s.count(), s.attempt());
            }
        }
    }

    /** Open-loop arrivals of this step, per population within its [from, until). */
    private void openLoopArrivals(double now) {
        double t = scenarioTime();
        for (ClientPopulation p : pops) {
            if (p.c.rate() <= 0 || t < p.from || t >= p.until) {
                continue;
            }
            if (p.conn == null || routing.perRequest()) {
                // a new connection per request, or an ingress that balances each request over its own connections
                if (plainRandom) {
                    arrive(p, now);
                } else {
                    send(p, -1, 0, draws.poisson(p.c.rate() * dt), 1);
                }
            } else {
                arriveOnKeptConnections(p, now);
            }
        }
    }

    /** Kept connections: replica i receives Poisson(λ·kᵢ/K·Δ); requests of connections with no replica are refused. */
    private void arriveOnKeptConnections(ClientPopulation p, double now) {
        connect(p);
        double perConn = p.c.rate() / p.c.connections() * dt;
        for (int i = 0; i < reps.length; i++) {
            if (p.conn[i] > 0) {
                int a = draws.poisson(perConn * p.conn[i]);
                if (a > 0) {
                    rec.attempts(now, a);
                    deliver(i, p, a, 1);
                }
            }
        }
        if (p.unpinned > 0) {
            // requests of connections with no replica: refused, retried by their clients
            int a = draws.poisson(perConn * p.unpinned);
            if (a > 0) {
                rec.attempts(now, a);
                if (endpointCount == 0) {
                    rec.noEndpoint(now, a);
                }
                attemptFailed(p, a, 1, FleetSpec.Failure.REFUSED);
            }
        }
    }

    /**
     * Attempts reach replica {@code i}: queued when its server takes requests, else refused. When
     * they would be answered within the step (a free worker each, nothing waiting, service within
     * the step, as {@link WorkerPool#enqueue} decides), they are answered here without loading the pool.
     */
    void deliver(int i, ClientPopulation p, int count, int attempt) {
        if (count <= answersAtOnce[i] && p.answeredInStep) {
            answeredAtOnce(p, count, p.serviceLow, p.serviceHigh, i);
            return;
        }
        WorkerPool w = pools[i];
        if (w.accepting()) {
            w.enqueue(p, count, attempt);
        } else {
            failedOn(w, p, count, attempt, FleetSpec.Failure.REFUSED); // an endpoint not yet removed: refused
        }
    }

    /** A warm-up routine (vitals-core Warmup with a request count) exercises a new pod before it is Ready. */
    private void warmupRoutines() {
        if (rollout == null || !rollout.readinessWaitsForWarmup() || rollout.warmupRequests() <= 0) {
            return;
        }
        for (int i = desired; i < desired + controller.created(); i++) {
            ModelReplica r = reps[i];
            int free = r.pool.freeWorkers();
            if (r.pool.accepting() && !r.kubeletReady && free > 0) {
                r.routine += free * dt / (pops[0].c.meanServiceSeconds() * r.warmup());
            }
        }
    }

    /** The pods' own traffic: Poisson per replica that is up, straight onto its pool (it is not routed). */
    private void backgroundArrivals() {
        if (background == null) {
            return;
        }
        double lambda = backgroundRate * dt;
        for (ModelReplica r : reps) {
            if (r.pool.accepting() && !r.deleted) {
                int a = draws.poisson(lambda);
                if (a > 0) {
                    r.pool.enqueue(background, a, 1);
                }
            }
        }
    }

    /**
     * Open-loop arrivals on new connections: Poisson(λΔ) split over the E endpoints at random is
     * the same as an independent Poisson(λΔ/E) per endpoint, drawn here by inversion from a table.
     */
    private void arrive(ClientPopulation p, double now) {
        if (endpointCount == 0) {
            int a = draws.poisson(p.c.rate() * dt);
            if (a > 0) {
                rec.attempts(now, a);
                rec.noEndpoint(now, a);
                attemptFailed(p, a, 1, FleetSpec.Failure.REFUSED); // refused: no endpoint
            }
            return;
        }
        double lambda = p.c.rate() * dt / endpointCount;
        if (lambda > 30) {
            send(p, -1, 0, draws.poisson(p.c.rate() * dt), 1);
            return;
        }
        Draws.PoissonTable perEndpoint = p.arrivals.of(lambda);
        long total = 0;
        if (p.answeredInStep && p.c.concurrency() == 0) {
            total = arriveTallied(p, perEndpoint, now);
        } else {
            for (int e = 0; e < endpointCount; e++) {
                int a = draws.poisson(perEndpoint);
                if (a > 0) {
                    total += a;
                    deliver(endpoints[e], p, a, 1);
                }
            }
        }
        rec.attempts(now, total);
    }

    /**
     * {@link #arrive}'s loop for an open-loop population whose requests a free worker answers within
     * the step (so no rollout: {@link #succeeded} only counts): the same draws in the same order, and
     * answers within the step counted as {@link #answeredAtOnce} counts them, on the recorder's tally
     * ({@link Recorder.Answers}) instead of one by one.
     *
     * @return the attempts that arrived
     */
    private long arriveTallied(ClientPopulation p, Draws.PoissonTable perEndpoint, double now) {
        double lo = p.serviceLow;
        double hi = p.serviceHigh;
        double q1 = lo + (hi - lo) / 4;
        double q3 = lo + 3 * (hi - lo) / 4;
        Recorder.Answers answers = rec.answers();
        answers.open(now);
        long total = 0;
        for (int e = 0; e < endpointCount; e++) {
            int a = draws.poisson(perEndpoint);
            if (a == 0) {
                continue;
            }
            total += a;
            int i = endpoints[e];
            if (a > answersAtOnce[i]) {
                answers.close(); // the pool may count answers itself
                deliver(i, p, a, 1);
                answers.open(now);
                continue;
            }
            if (a == 1) {
                double latency = lo + draws.uniform() * (hi - lo);
                balancer.answered(i, latency, now);
                answers.ok(1, latency);
            } else {
                int half = a / 2;
                balancer.answered(i, q1, now);
                answers.ok(half, q1);
                balancer.answered(i, q3, now);
                answers.ok(a - half, q3);
            }
            served[i] += a;
        }
        answers.close();
        return total;
    }

    /** Sends {@code count} attempts of population {@code p}: on a kept connection, or through the Service. */
    private void send(ClientPopulation p, int pin, int epoch, int count, int attempt) {
        if (attempt == 1 && p.c.concurrency() > 0 && scenarioTime() >= p.until) {
            return; // closed-loop clients stop sending at 'until'
        }
        if (attempt == 1 && p.c.total() > 0) {
            // a batch job: it sends 'total' requests in all, then nothing new (retries still go)
            count = (int) Math.min(count, p.c.total() - p.sent);
            if (count <= 0) {
                return;
            }
            p.sent += count;
        }
        if (count <= 0) {
            return;
        }
        rec.attempts(now(), count);
        if (pin >= 0 && !routing.perRequest()) {
            WorkerPool w = pools[pin];
            if (epochs[pin] == epoch && w.accepting()) {
                w.enqueue(p, count, attempt);
                return;
            }
            // the kept connection is gone: reconnect through the Service (no attempt lost)
        }
        if (endpointCount == 0) {
            rec.noEndpoint(now(), count);
            attemptFailed(p, count, attempt, FleetSpec.Failure.REFUSED); // refused: no endpoint
            return;
        }
        int k = p.h2Pod != null && !routing.perRequest() ? multiplex(p, count) : distribute(p, count);
        if (k < 0) {
            attemptFailed(p, count, attempt, FleetSpec.Failure.TIMEOUT); // internalTrafficPolicy Local, none on the client's node: dropped, so a connect timeout
            return;
        }
        for (int q = 0; q < k; q++) {
            int j = touched[q];
            int x = split[j];
            split[j] = 0;
            deliver(j, p, x, attempt);
        }
    }

    /**
     * Spreads {@code count} new connections over the Service's endpoints at random (kube-proxy's
     * iptables mode): afterwards {@code touched[0..k)} are the chosen replicas and {@code split[j]}
     * their shares, which the caller resets to 0.
     *
     * @return k; 0 when there is no endpoint; -1 when node-local routing finds none on the client's node
     */
    private int distribute(ClientPopulation p, int count) {
        if (endpointCount == 0) {
            return 0;
        }
        if (!plainRandom) {
            return routeEach(p, count);
        }
        int k = 0;
        if (count <= 4 * endpointCount) {
            for (int q = 0; q < count; q++) {
                int j = endpoints[draws.below(endpointCount)];
                if (split[j]++ == 0) {
                    touched[k++] = j;
                }
            }
        } else {
            int left = count;
            for (int e = 0; e < endpointCount && left > 0; e++) {
                int x = e == endpointCount - 1 ? left : draws.binomial(left, 1.0 / (endpointCount - e));
                if (x > 0) {
                    int j = endpoints[e];
                    split[j] = x;
                    touched[k++] = j;
                    left -= x;
                }
            }
        }
        return k;
    }

    /** {@link #distribute} through the routing layer, one pick per connection. */
    private int routeEach(ClientPopulation p, int count) {
        int k = 0;
        for (int q = 0; q < count; q++) {
            int j = route(p, p.key(draws));
            if (j < 0) {
                return unsplit(k);
            }
            if (split[j]++ == 0) {
                touched[k++] = j;
            }
        }
        return k;
    }

    /** Resets the first {@code k} shares: nothing is sent. @return -1 */
    private int unsplit(int k) {
        for (int i = 0; i < k; i++) {
            split[touched[i]] = 0;
        }
        return -1;
    }

    /** Kept connections of an open-loop population that have no replica connect through the Service. */
    private void connect(ClientPopulation p) {
        if (p.unpinned == 0 || endpointCount == 0) {
            return;
        }
        int k = distribute(p, p.unpinned);
        for (int q = 0; q < k; q++) {
            int j = touched[q];
            if (pools[j].accepting()) {
                p.conn[j] += split[j];
                p.unpinned -= split[j];
            }
            split[j] = 0;
        }
    }

    /**
     * One pick of the routing layer for a connection (kube-proxy) or request (ingress) of population
     * {@code p} with key {@code key}: the node policy narrows the endpoints, then the balancer picks.
     *
     * @return the pod, or -1 when internalTrafficPolicy Local finds no endpoint on the client's node
     */
    private int route(ClientPopulation p, int key) {
        Balancer.Candidates c = all;
        all.n = endpointCount;
        int node = p.c.policy().node();
        if (node >= 0 && routing.trafficPolicy() != Routing.TrafficPolicy.CLUSTER) {
            int m = 0;
            for (int e = 0; e < endpointCount; e++) {
                if (endpoints[e] % desired % routing.nodes() == node) {
                    local.ids[m++] = endpoints[e];
                }
            }
            local.n = m;
            if (m > 0) {
                c = local;
            } else if (routing.trafficPolicy() == Routing.TrafficPolicy.LOCAL) {
                return -1;
            }
        }
        int j = balancer.pick(c, key, load, now());
        if (key != Balancer.NO_KEY && key < Recorder.KEYS_FOLLOWED && p.index >= 0) {
            rec.holds(p.index, p.c.name(), key, j, now());
        }
        return j;
    }

    /**
     * HTTP/2 through kube-proxy: {@code count} requests of {@code p} go out over its few kept
     * connections in turn; a connection whose pod's process ended is opened again through the Service.
     * Fills {@code touched}/{@code split} as {@link #distribute} does.
     */
    private int multiplex(ClientPopulation p, int count) {
        int k = 0;
        for (int q = 0; q < count; q++) {
            int slot = p.h2Next++ % p.h2Pod.length;
            int j = p.h2Pod[slot];
            if (j < 0 || epochs[j] != p.h2Epoch[slot] || !pools[j].accepting()) {
                j = route(p, p.key(draws));
                if (j < 0) {
                    return unsplit(k);
                }
                p.h2Pod[slot] = j;
                p.h2Epoch[slot] = epochs[j];
            }
            if (split[j]++ == 0) {
                touched[k++] = j;
            }
        }
        return k;
    }

    /** The process on replica {@code i} stopped or ended: its kept connections close and will reconnect. */
    void dropConnections(int i) {
        for (ClientPopulation p : pops) {
            if (p.conn != null && p.conn[i] > 0) {
                p.unpinned += p.conn[i];
                p.conn[i] = 0;
            }
        }
    }

    /** A request queued on a replica times out after {@code steps} unless answered. */
    void timeoutAfter(long steps, Cohort c) {
        timeouts.add(stepNo + steps, c);
    }

    /** Replica {@code replica} holds {@code n} requests (its peak is reported). */
    void inFlight(int replica, long n) {
        rec.inFlight(replica, n);
    }

    /** Attempts failed on replica {@code r} (counted for its version in a rollout), then as {@link #attemptFailed}. */
    void failedOn(WorkerPool r, ClientPopulation p, int count, int attempt, FleetSpec.Failure why) {
        if (p.background) {
            return; // the pods' own traffic is in no client figure
        }
        if (rollout != null) {
            rec.versionFailed(r.version, now(), count);
        }
        attemptFailed(p, count, attempt, why);
    }

    /** One failed attempt (timeout, refused, reset, error): retry (when the client retries on {@code why}) or give up. */
    private void attemptFailed(ClientPopulation p, int count, int attempt, FleetSpec.Failure why) {
        if (p.background) {
            return;
        }
        if (attempt <= p.c.retries() && p.c.policy().retryOn().contains(why)) {
            double backoff = p.c.policy().retryBackoff();
            long delay = backoff == 1 ? p.retrySteps : Math.round(p.retrySteps * Math.pow(backoff, attempt - 1));
            sends.add(stepNo + Math.max(1, Math.min(delay, sends.size() - 2)), new Send(p, -1, 0, count, attempt + 1));
            return;
        }
        rec.failed(now(), count);
        if (p.c.concurrency() > 0) {
            sends.add(stepNo + Math.max(1, p.thinkSteps), new Send(p, -1, 0, count, 1));
        }
    }

    /**
     * {@code count} requests of {@code p} that found free workers on replica {@code i} at the start
     * of the step, with service times in [lo, hi] within the step: one is answered at a uniform draw,
     * more in two halves at the quartiles (as {@link WorkerPool#serve} spreads a cohort).
     */
    void answeredAtOnce(ClientPopulation p, int count, double lo, double hi, int i) { // arriveTallied splits the same way
        if (count == 1) {
            succeeded(p, 1, lo + draws.uniform() * (hi - lo), i);
        } else {
            int half = count / 2;
            succeeded(p, half, lo + (hi - lo) / 4, i);
            succeeded(p, count - half, lo + 3 * (hi - lo) / 4, i);
        }
    }

    /** {@code count} requests of {@code p} answered by replica {@code i} after {@code latency} seconds. */
    void succeeded(ClientPopulation p, int count, double latency, int i) {
        if (p.background) {
            return;
        }
        double now = now();
        balancer.answered(i, latency, now);
        rec.ok(now, count, latency);
        served[i] += count;
        if (rollout != null) {
            rec.versionOk(reps[i].version, now, count, latency);
        }
        if (p.c.concurrency() > 0) {
            sends.add(stepNo + Math.max(1, p.thinkSteps), new Send(p, p.c.persistent() ? i : -1, epochs[i], count, 1));
        }
    }

    /**
     * Replica {@code i}'s pool answers up to {@code atOnce} arriving requests within the step (−1:
     * none) and next has work to serve at {@code workDue} seconds ({@link WorkerPool}).
     */
    void published(int i, int atOnce, double workDue) {
        answersAtOnce[i] = atOnce;
        this.workDue[i] = workDue;
    }

    /** Replica {@code i}'s process moved; {@code epoch} is its number ({@link ModelReplica#epoch()}). */
    void moved(int i, int epoch) {
        epochs[i] = epoch;
    }

    /** @return requests replica {@code i} answered successfully so far */
    long served(int i) {
        return served[i];
    }

    private void setEndpoint(int i, boolean in) {
        if (in && endpointPos[i] < 0) {
            endpointPos[i] = endpointCount;
            endpoints[endpointCount++] = i;
        } else if (!in && endpointPos[i] >= 0) {
            int pos = endpointPos[i];
            int last = endpoints[--endpointCount];
            endpoints[pos] = last;
            endpointPos[last] = pos;
            endpointPos[i] = -1;
        }
    }

    // ---- the kubelet's events -----------------------------------------------------------------

    private void onKubeletEvent(ModelReplica r, SimEvent e) {
        double now = now();
        switch (e.type()) {
            case READY, NOT_READY -> readyChanged(r, e.type() == SimEvent.Type.READY, now);
            case KILL -> {
                if (!r.deleted) {
                    rec.kill(r.index, now); // not the controller's deletion of an old pod
                }
            }
            case BACKOFF -> rec.backOff(r.index, now);
            case START -> rec.start(r.index, now, e.instance() > 1);
            default -> {
            }
        }
    }

    /** The kubelet's Ready changed: the Deployment hears at once, the Service after the propagation delay. */
    private void readyChanged(ModelReplica r, boolean ready, double now) {
        if (r.deleted) {
            rec.ready(r.index, now, ready);
            return; // terminating: out of the endpoints for good
        }
        if (ready && !r.kubeletReady) {
            r.readyAt = now;
        }
        if (ready != r.kubeletReady) {
            r.kubeletReady = ready;
            readyCount += ready ? 1 : -1;
            if (controller != null) {
                controller.podChanged(); // the ReplicaSet's status changes: the Deployment syncs
            }
        }
        rec.ready(r.index, now, ready);
        int i = r.index;
        time.schedule(spec.service().propagationDelay().toNanos(), () -> setEndpoint(i, ready));
    }

    // ---- the Deployment controller: a rolling update -----------------------------------------

    /** The model's pods as the Deployment controller sees them, and the virtual clock. */
    private final class ModelPods implements DeploymentController.Pods {
        @Override
        public double now() {
            return ModelFleet.this.now();
        }

        @Override
        public double scenarioTime() {
            return ModelFleet.this.scenarioTime();
        }

        @Override
        public void after(double seconds, Runnable action) {
            time.schedule(Math.round(seconds * 1e9), action);
        }

        @Override
        public double readySince(int i) {
            ModelReplica r = reps[i];
            return r.kubelet != null && !r.deleted && r.kubeletReady ? r.readyAt : Double.NaN;
        }

        @Override
        public boolean deleted(int i) {
            return reps[i].deleted;
        }

        @Override
        public void create(int i) {
            ModelReplica r = reps[i];
            r.kubelet = kubelet(r);
            rec.pod(r.index, "new", now());
            r.kubelet.start();
        }

        /** The controller deletes an old pod: it leaves the endpoints at once and gets SIGTERM. */
        @Override
        public void delete(int i) {
            ModelReplica r = reps[i];
            r.deleted = true;
            rec.gone(r.index, now());
            if (r.kubeletReady) {
                r.kubeletReady = false;
                readyCount--;
            }
            time.schedule(spec.service().propagationDelay().toNanos(), () -> setEndpoint(r.index, false));
            r.kubelet.deletePod(Optional.empty());
        }
    }

    private Optional<FleetResult.RolloutStatus> rolloutStatus() {
        return controller == null ? Optional.empty() : Optional.of(controller.status(now(), rec.versions()));
    }
}
