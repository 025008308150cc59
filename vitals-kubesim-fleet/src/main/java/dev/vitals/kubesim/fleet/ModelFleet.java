package dev.vitals.kubesim.fleet;

import dev.vitals.kubesim.model.ContainerRuntime;
import dev.vitals.kubesim.model.Kubelet;
import dev.vitals.kubesim.model.KubeletOptions;
import dev.vitals.kubesim.model.PodSpec;
import dev.vitals.kubesim.model.ProbeExecutor;
import dev.vitals.kubesim.model.ProbeOutcome;
import dev.vitals.kubesim.model.ProbeResult;
import dev.vitals.kubesim.model.ProbeSpec;
import dev.vitals.kubesim.model.ProbeType;
import dev.vitals.kubesim.model.SimEvent;
import dev.vitals.kubesim.model.VirtualTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import java.util.function.IntConsumer;

/**
 * The model engine: a fleet of replicas on one virtual clock. Each replica is the kubelet model
 * ({@link Kubelet}, the same one {@code simulate} and {@code lint} run) driving a queueing model
 * of the application instead of a process; clients, the Service and the shared dependency are
 * modelled on the same clock. The equations are in DESIGN.md section 7.3.
 *
 * <p>Deterministic for a given {@link FleetSpec#seed()}. Runs on the caller's thread; not
 * thread-safe; one run per instance.
 */
public final class ModelFleet {
    /** Warm-up ends when every replica is in the endpoints, or after this long (virtual time). */
    public static final Duration WARMUP_CAP = Duration.ofMinutes(2);
    /** Replicas' kubelet models start at seeded random times within this span. */
    public static final Duration START_SPREAD = Duration.ofSeconds(2);
    private static final int DOWN = 0;
    private static final int STARTING = 1;
    private static final int UP = 2;
    private static final int STOPPING = 3;
    private static final ProbeOutcome QUEUE_FULL = ProbeOutcome.of(ProbeResult.FAILURE, "queue full", Duration.ofMillis(1));
    private static final ProbeOutcome REFUSED = ProbeOutcome.of(ProbeResult.FAILURE, "connection refused", Duration.ofMillis(1));

    private final FleetSpec spec;
    private final String label;
    private final VirtualTime time = new VirtualTime();
    private final SplittableRandom rnd;
    private final long stepNs;
    private final double dt;
    private final Rep[] reps;
    private final Pop[] pops;
    private final Recorder rec;
    private final KubeletOptions options;
    // the Service's view of the endpoints (after the propagation delay)
    private final int[] endpoints;
    private final int[] endpointPos;
    private int endpointCount;
    private int readyCount;
    // wheels, indexed by step
    private final Wheel<Cohort> timeouts;
    private final Wheel<Send> sends;
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
    private final Pop background; // the pods' own traffic, or null
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
        this.stepNs = spec.step().toNanos();
        this.dt = stepNs / 1e9;
        desired = spec.replicas();
        rollout = spec.rollout().orElse(null);
        controller = rollout == null ? null : new DeploymentController(rollout, desired, new ModelPods());
        int n = rollout == null ? desired : 2 * desired;
        reps = new Rep[n];
        endpoints = new int[n];
        endpointPos = new int[n];
        split = new int[n];
        touched = new int[n];
        java.util.Arrays.fill(endpointPos, -1);
        routing = spec.service().routing();
        balancer = Balancer.of(routing, n, rnd);
        plainRandom = routing.algorithm().randomPick() && routing.affinity() == Routing.Affinity.NONE
                && (routing.trafficPolicy() == Routing.TrafficPolicy.CLUSTER || spec.clients().stream().allMatch(c -> c.policy().node() < 0));
        all = new Balancer.Candidates(endpoints, 0);
        local = new Balancer.Candidates(new int[n], 0);
        load = pod -> reps[pod].inSystem + split[pod];
        pops = new Pop[spec.clients().size()];
        long maxTimeout = 1;
        long maxDelay = 1;
        for (int p = 0; p < pops.length; p++) {
            FleetSpec.Clients c = spec.clients().get(p);
            pops[p] = new Pop(p, c);
            maxTimeout = Math.max(maxTimeout, c.timeout().toNanos());
            maxDelay = Math.max(maxDelay, Math.max(c.thinkTime().toNanos(), c.retryDelay().toNanos()));
            // the longest backed-off retry delay, within the most steps a delay may span
            double backedOff = c.retryDelay().toNanos() * Math.pow(c.policy().retryBackoff(), Math.max(0, c.retries() - 1));
            maxDelay = Math.max(maxDelay, (long) Math.min(backedOff, (double) FleetSpec.MAX_DELAY_STEPS * stepNs));
        }
        if (spec.background().isPresent()) {
            FleetSpec.Background b = spec.background().get();
            FleetSpec.Clients own = new FleetSpec.Clients("background", 1, 0, Duration.ZERO, Duration.ZERO, spec.duration(),
                    b.serviceMin(), b.serviceMax(), Duration.ofMillis(Math.max(1, maxTimeout / 1_000_000)), 0, Duration.ZERO, false, 0,
                    false, 0);
            background = new Pop(-1, own);
            background.background = true;
            backgroundRate = b.ratePerReplica(spec.replica().workers());
        } else {
            background = null;
            backgroundRate = 0;
        }
        timeouts = new Wheel<>(maxTimeout / stepNs + 3);
        sends = new Wheel<>(maxDelay / stepNs + 3);
        rec = new Recorder(n, desired, spec.duration().toNanos() / 1e9);
        rec.routing(routing.describe());
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
        pod = PodSpec.of("app", Map.of("http", 8080), spec.probes().startup(), spec.probes().liveness(),
                spec.probes().readiness());
        for (int i = 0; i < reps.length; i++) {
            Rep r = new Rep(i, i < desired ? 0 : 1);
            reps[i] = r;
            if (i < desired) {
                r.kubelet = new Kubelet(pod, options, time, r, r, r::onEvent);
                if (rollout != null) {
                    rec.pod(i, "old", Double.NEGATIVE_INFINITY);
                }
            }
        }
        for (int i = 0; i < desired; i++) {
            Rep r = reps[i];
            // replicas are created within START_SPREAD of each other (scheduling, image pulls), so
            // their probe ticks are not in phase
            time.schedule((long) (rnd.nextDouble() * START_SPREAD.toNanos()), r.kubelet::start);
        }
        time.schedule(0, this::step);
        long endNs;
        long cap = WARMUP_CAP.toNanos();
        while (!rec.started() && time.monotonicTime() < cap) {
            time.awaitUntil(time.monotonicTime() + Duration.ofSeconds(1).toNanos());
        }
        if (!rec.started()) {
            startScenario();
        }
        endNs = Math.round(rec.t0() * 1e9) + spec.duration().toNanos();
        time.awaitUntil(endNs);
        for (Rep r : reps) {
            if (r.kubelet != null) {
                r.kubelet.stop();
            }
        }
        FleetResult result = rec.result("model", label, endNs / 1e9, spec.expectations(), rolloutStatus());
        timerEvents = time.scheduled();
        time.close();
        return result;
    }

    /** @return the timer events the run scheduled on its virtual clock (0 before {@link #run()}) */
    public long timerEvents() {
        return timerEvents;
    }

    private double now() {
        return time.monotonicTime() / 1e9;
    }

    private void startScenario() {
        double now = now();
        rec.scenarioStart(now);
        if (rollout != null) {
            time.schedule(rollout.at().toNanos(), this::startRollout);
        }
        for (FleetSpec.Kill a : spec.actions()) {
            Rep r = reps[a.replica()];
            time.schedule(a.at().toNanos(), () -> r.die(r.epoch, 137));
        }
        for (Pop p : pops) {
            if (p.c.concurrency() > 0) {
                time.schedule(p.c.from().toNanos(), () -> sends.add(stepNo, new Send(p, -1, 0, p.c.concurrency(), 1)));
            }
        }
    }

    private double scenarioTime() {
        return rec.started() ? now() - rec.t0() : -1;
    }

    private boolean dependencyDown() {
        return spec.dependency().isPresent() && rec.started() && spec.dependency().get().downAt(scenarioTime());
    }

    // ---- the step: clients, Service, replicas ----------------------------------------------

    private void step() {
        double now = now();
        if (!rec.started() && endpointCount == desired) {
            startScenario();
        }
        // timeouts due now
        List<Cohort> due = timeouts.take(stepNo);
        if (due != null) {
            for (Cohort c : due) {
                if (c.n > 0 && !c.abandoned) {
                    c.abandoned = true;
                    failedOn(reps[c.replica], c.pop, c.n, c.attempt, FleetSpec.Failure.TIMEOUT);
                    Pop p = c.pop;
                    if (p.conn != null) {
                        // a client that timed out closes its kept connection and reconnects through the Service
                        int moved = Math.min(p.conn[c.replica], c.n);
                        p.conn[c.replica] -= moved;
                        p.unpinned += moved;
                    }
                }
            }
        }
        // deferred sends (think time over, retries, closed-loop starts)
        List<Send> ready = sends.take(stepNo);
        if (ready != null) {
            for (Send s : ready) {
                send(s.pop, s.pin, s.epoch, s.count, s.attempt);
            }
        }
        // open-loop arrivals
        if (rec.started()) {
            double t = scenarioTime();
            for (Pop p : pops) {
                if (p.c.rate() <= 0 || t < p.from || t >= p.until) {
                    continue;
                }
                if (p.conn == null || routing.perRequest()) {
                    // a new connection per request, or an ingress that balances each request over its own connections
                    if (plainRandom) {
                        arrive(p, now);
                    } else {
                        send(p, -1, 0, poisson(p.c.rate() * dt), 1);
                    }
                    continue;
                }
                connect(p);
                double perConn = p.c.rate() / p.c.connections() * dt;
                for (int i = 0; i < reps.length; i++) {
                    if (p.conn[i] > 0) {
                        int a = poisson(perConn * p.conn[i]);
                        if (a > 0) {
                            rec.attempts(now, a);
                            if (reps[i].state == UP) {
                                reps[i].enqueue(p, a, 1);
                            } else {
                                failedOn(reps[i], p, a, 1, FleetSpec.Failure.REFUSED);
                            }
                        }
                    }
                }
                if (p.unpinned > 0) {
                    // requests of connections with no replica: refused, retried by their clients
                    int a = poisson(perConn * p.unpinned);
                    if (a > 0) {
                        rec.attempts(now, a);
                        if (endpointCount == 0) {
                            rec.noEndpoint(now, a);
                        }
                        attemptFailed(p, a, 1, FleetSpec.Failure.REFUSED);
                    }
                }
            }
        }
        // a warm-up routine (vitals-core Warmup with a request count) exercises a new pod before it is Ready
        if (rollout != null && rollout.readinessWaitsForWarmup() && rollout.warmupRequests() > 0) {
            for (int i = desired; i < desired + controller.created(); i++) {
                Rep r = reps[i];
                if (r.state == UP && !r.kubeletReady && r.busy < spec.replica().workers()) {
                    r.routine += (spec.replica().workers() - r.busy) * dt / (pops[0].c.meanServiceSeconds() * r.warmup());
                }
            }
        }
        // the pods' own traffic: Poisson per replica that is up, straight onto its pool (it is not routed)
        if (background != null) {
            double lambda = backgroundRate * dt;
            for (Rep r : reps) {
                if (r.state == UP && !r.deleted) {
                    int a = poisson(lambda);
                    if (a > 0) {
                        r.enqueue(background, a, 1);
                    }
                }
            }
        }
        // service
        for (Rep r : reps) {
            if ((r.state == UP || r.state == STOPPING) && r.inSystem > 0) {
                r.serve(now, now + dt);
            }
        }
        rec.sample(now, endpointCount, readyCount, dt);
        stepNo++;
        time.schedule(stepNs, this::step);
    }

    /**
     * Open-loop arrivals on new connections: Poisson(λΔ) split over the E endpoints at random is
     * the same as an independent Poisson(λΔ/E) per endpoint, drawn here by inversion from a table.
     */
    private void arrive(Pop p, double now) {
        if (endpointCount == 0) {
            int a = poisson(p.c.rate() * dt);
            if (a > 0) {
                rec.attempts(now, a);
                rec.noEndpoint(now, a);
                attemptFailed(p, a, 1, FleetSpec.Failure.REFUSED); // refused: no endpoint
            }
            return;
        }
        double lambda = p.c.rate() * dt / endpointCount;
        if (lambda > 30) {
            send(p, -1, 0, poisson(p.c.rate() * dt), 1);
            return;
        }
        double[] cdf = p.cdf(lambda);
        long total = 0;
        for (int e = 0; e < endpointCount; e++) {
            double u = rnd.nextDouble();
            int a = 0;
            while (a < cdf.length - 1 && u > cdf[a]) {
                a++;
            }
            if (a > 0) {
                total += a;
                Rep r = reps[endpoints[e]];
                if (r.state == UP) {
                    r.enqueue(p, a, 1);
                } else {
                    failedOn(r, p, a, 1, FleetSpec.Failure.REFUSED);
                }
            }
        }
        rec.attempts(now, total);
    }

    /** Sends {@code count} attempts of population {@code p}: on a kept connection, or through the Service. */
    private void send(Pop p, int pin, int epoch, int count, int attempt) {
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
            Rep r = reps[pin];
            if (r.epoch == epoch && r.state == UP) {
                r.enqueue(p, count, attempt);
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
            Rep r = reps[j];
            if (r.state == UP) {
                r.enqueue(p, x, attempt);
            } else {
                failedOn(r, p, x, attempt, FleetSpec.Failure.REFUSED); // an endpoint not yet removed: refused
            }
        }
    }

    /**
     * Spreads {@code count} new connections over the Service's endpoints at random (kube-proxy's
     * iptables mode): afterwards {@code touched[0..k)} are the chosen replicas and {@code split[j]}
     * their shares, which the caller resets to 0.
     *
     * @return k; 0 when there is no endpoint; -1 when node-local routing finds none on the client's node
     */
    private int distribute(Pop p, int count) {
        int k = 0;
        if (endpointCount == 0) {
            return 0;
        }
        if (!plainRandom) {
            for (int q = 0; q < count; q++) {
                int j = route(p, p.key());
                if (j < 0) {
                    for (int i = 0; i < k; i++) {
                        split[touched[i]] = 0;
                    }
                    return -1;
                }
                if (split[j]++ == 0) {
                    touched[k++] = j;
                }
            }
            return k;
        }
        if (count <= 4 * endpointCount) {
            for (int q = 0; q < count; q++) {
                int j = endpoints[rnd.nextInt(endpointCount)];
                if (split[j]++ == 0) {
                    touched[k++] = j;
                }
            }
        } else {
            int left = count;
            for (int e = 0; e < endpointCount && left > 0; e++) {
                int x = e == endpointCount - 1 ? left : binomial(left, 1.0 / (endpointCount - e));
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

    /** Kept connections of an open-loop population that have no replica connect through the Service. */
    private void connect(Pop p) {
        if (p.unpinned == 0 || endpointCount == 0) {
            return;
        }
        int k = distribute(p, p.unpinned);
        for (int q = 0; q < k; q++) {
            int j = touched[q];
            if (reps[j].state == UP) {
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
    private int route(Pop p, int key) {
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
    private int multiplex(Pop p, int count) {
        int k = 0;
        for (int q = 0; q < count; q++) {
            int slot = p.h2Next++ % p.h2Pod.length;
            int j = p.h2Pod[slot];
            if (j < 0 || reps[j].epoch != p.h2Epoch[slot] || reps[j].state != UP) {
                j = route(p, p.key());
                if (j < 0) {
                    for (int i = 0; i < k; i++) {
                        split[touched[i]] = 0;
                    }
                    return -1;
                }
                p.h2Pod[slot] = j;
                p.h2Epoch[slot] = reps[j].epoch;
            }
            if (split[j]++ == 0) {
                touched[k++] = j;
            }
        }
        return k;
    }

    /** The process on replica {@code i} ended: its kept connections close and will reconnect. */
    private void dropConnections(int i) {
        for (Pop p : pops) {
            if (p.conn != null && p.conn[i] > 0) {
                p.unpinned += p.conn[i];
                p.conn[i] = 0;
            }
        }
    }

    /** Attempts failed on replica {@code r} (counted for its version in a rollout), then as {@link #attemptFailed}. */
    private void failedOn(Rep r, Pop p, int count, int attempt, FleetSpec.Failure why) {
        if (p.background) {
            return; // the pods' own traffic is in no client figure
        }
        if (rollout != null) {
            rec.versionFailed(r.version, now(), count);
        }
        attemptFailed(p, count, attempt, why);
    }

    /** One failed attempt (timeout, refused, reset, error): retry (when the client retries on {@code why}) or give up. */
    private void attemptFailed(Pop p, int count, int attempt, FleetSpec.Failure why) {
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

    private void succeeded(Pop p, int count, double latency, Rep r) {
        if (p.background) {
            return;
        }
        balancer.answered(r.index, latency, now());
        rec.ok(now(), count, latency);
        r.served += count;
        if (rollout != null) {
            rec.versionOk(r.version, now(), count, latency);
        }
        if (p.c.concurrency() > 0) {
            sends.add(stepNo + Math.max(1, p.thinkSteps), new Send(p, p.c.persistent() ? r.index : -1, r.epoch, count, 1));
        }
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

    // ---- the Deployment controller: a rolling update -----------------------------------------

    /** The new pod template is applied; the controller then syncs on pod events and its own timers. */
    private void startRollout() {
        controller.start();
    }

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
            Rep r = reps[i];
            return r.kubelet != null && !r.deleted && r.kubeletReady ? r.readyAt : Double.NaN;
        }

        @Override
        public boolean deleted(int i) {
            return reps[i].deleted;
        }

        @Override
        public void create(int i) {
            Rep r = reps[i];
            r.kubelet = new Kubelet(pod, options, time, r, r, r::onEvent);
            rec.pod(r.index, "new", now());
            r.kubelet.start();
        }

        /** The controller deletes an old pod: it leaves the endpoints at once and gets SIGTERM. */
        @Override
        public void delete(int i) {
            Rep r = reps[i];
            r.deleted = true;
            rec.gone(r.index, now());
            if (r.kubeletReady) {
                r.kubeletReady = false;
                readyCount--;
            }
            time.schedule(spec.service().propagationDelay().toNanos(), () -> setEndpoint(r.index, false));
            r.kubelet.deletePod(java.util.Optional.empty());
        }
    }

    private java.util.Optional<FleetResult.RolloutStatus> rolloutStatus() {
        return controller == null ? java.util.Optional.empty() : java.util.Optional.of(controller.status(now(), rec.versions()));
    }

    // ---- random numbers -----------------------------------------------------------------------

    private int poisson(double lambda) {
        if (lambda < 30) {
            double l = Math.exp(-lambda);
            int k = 0;
            double p = rnd.nextDouble();
            while (p > l) {
                k++;
                p *= rnd.nextDouble();
            }
            return k;
        }
        return (int) Math.max(0, Math.round(lambda + Math.sqrt(lambda) * gaussian()));
    }

    private int binomial(int n, double p) {
        double mean = n * p;
        if (n < 40) {
            int x = 0;
            for (int i = 0; i < n; i++) {
                if (rnd.nextDouble() < p) {
                    x++;
                }
            }
            return x;
        }
        if (mean < 15) {
            return Math.min(n, poisson(mean));
        }
        return (int) Math.min(n, Math.max(0, Math.round(mean + Math.sqrt(mean * (1 - p)) * gaussian())));
    }

    private double gaussian() {
        double u = 1 - rnd.nextDouble();
        return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rnd.nextDouble());
    }

    // ---- model types ----------------------------------------------------------------------------

    private final class Pop {
        final int index;
        final FleetSpec.Clients c;
        final double serviceLow;
        final double serviceHigh;
        final long timeoutSteps;
        final long thinkSteps;
        final long retrySteps;
        final double from;
        final double until;
        final int[] conn; // open loop with kept connections: connections per replica
        int unpinned;
        long sent; // closed loop with a total: first attempts sent so far
        boolean background; // the pods' own traffic: not routed, not counted, not retried
        final int[] h2Pod; // HTTP/2 through kube-proxy: each kept connection's pod (-1: none yet), and its process
        final int[] h2Epoch;
        int h2Next;

        /** @return the key of a new connection: {@link Balancer#NO_KEY}, or one of the population's keys */
        int key() {
            int k = c.policy().keys();
            return k == 0 ? Balancer.NO_KEY : k == 1 ? 0 : rnd.nextInt(k);
        }
        private double cdfLambda = -1;
        private double[] cdfTable;

        /** @return the Poisson(lambda) cumulative distribution up to where it reaches 1 − 1e-12 */
        double[] cdf(double lambda) {
            if (lambda != cdfLambda) {
                int n = (int) (lambda + 12 * Math.sqrt(lambda) + 12);
                double[] t = new double[n];
                double term = Math.exp(-lambda);
                double sum = term;
                t[0] = sum;
                for (int k = 1; k < n; k++) {
                    term *= lambda / k;
                    sum += term;
                    t[k] = sum;
                }
                t[n - 1] = 1;
                cdfTable = t;
                cdfLambda = lambda;
            }
            return cdfTable;
        }

        Pop(int index, FleetSpec.Clients c) {
            this.conn = c.connections() > 0 && !c.policy().http2() ? new int[reps.length] : null;
            this.h2Pod = c.policy().http2() ? new int[Math.max(1, c.connections())] : null;
            this.h2Epoch = h2Pod == null ? null : new int[h2Pod.length];
            if (h2Pod != null) {
                java.util.Arrays.fill(h2Pod, -1);
            }
            this.unpinned = conn == null ? 0 : c.connections();
            this.index = index;
            this.c = c;
            this.serviceLow = c.serviceMin().toNanos() / 1e9;
            this.serviceHigh = c.serviceMax().toNanos() / 1e9;
            this.timeoutSteps = Math.max(1, Math.round(c.timeout().toNanos() / (double) stepNs));
            this.thinkSteps = Math.round(c.thinkTime().toNanos() / (double) stepNs);
            this.retrySteps = Math.round(c.retryDelay().toNanos() / (double) stepNs);
            this.from = c.from().toNanos() / 1e9;
            this.until = c.until().toNanos() / 1e9;
        }
    }

    /**
     * Requests of one population and attempt that reached one replica in one step. {@code n}
     * counts those not yet answered (waiting or in service), {@code waiting} those without a worker.
     */
    private static final class Cohort {
        final Pop pop;
        final int attempt;
        final double arrival;
        final double serviceLow;
        final double serviceHigh;
        final boolean error;
        final int replica;
        int n;
        int waiting;
        boolean abandoned;

        Cohort(Pop pop, int replica, int attempt, double arrival, double serviceLow, double serviceHigh, boolean error, int n) {
            this.pop = pop;
            this.replica = replica;
            this.attempt = attempt;
            this.arrival = arrival;
            this.serviceLow = serviceLow;
            this.serviceHigh = serviceHigh;
            this.error = error;
            this.n = n;
            this.waiting = n;
        }

        double meanService() {
            return (serviceLow + serviceHigh) / 2;
        }
    }

    /** Attempts to send at a later step. */
    private static final class Send {
        final Pop pop;
        final int pin;
        final int epoch;
        final int count;
        final int attempt;

        Send(Pop pop, int pin, int epoch, int count, int attempt) {
            this.pop = pop;
            this.pin = pin;
            this.epoch = epoch;
            this.count = count;
            this.attempt = attempt;
        }
    }

    /** A ring of lists indexed by step number. */
    private static final class Wheel<T> {
        private final ArrayList<T>[] slots;

        @SuppressWarnings("unchecked")
        Wheel(long size) {
            slots = new ArrayList[(int) Math.min(Integer.MAX_VALUE - 8, size)];
        }

        int size() {
            return slots.length;
        }

        void add(long step, T item) {
            int i = (int) (step % slots.length);
            if (slots[i] == null) {
                slots[i] = new ArrayList<>();
            }
            slots[i].add(item);
        }

        /** @return the items due at {@code step} (the list is reused: read it before the next add to that slot) */
        List<T> take(long step) {
            int i = (int) (step % slots.length);
            ArrayList<T> l = slots[i];
            if (l == null || l.isEmpty()) {
                return null;
            }
            ArrayList<T> copy = spare;
            spare = l;
            slots[i] = copy;
            copy.clear();
            return l;
        }

        private ArrayList<T> spare = new ArrayList<>();
    }

    /** One replica: the kubelet's container runtime and prober, and the application's queue. */
    private final class Rep implements ContainerRuntime, ProbeExecutor {
        final int index;
        final int version; // 0: the old ReplicaSet (or no rollout), 1: the new one
        boolean deleted;
        double readyAt;
        long served; // requests answered successfully (warm-up by requests)
        double routine; // a warm-up routine's requests, fractional
        Kubelet kubelet;
        int state = DOWN;
        int epoch;
        int instance;
        double upSince;
        IntConsumer onExit;
        boolean kubeletReady;
        // waiting requests: a FIFO ring of cohorts
        Cohort[] q = new Cohort[8];
        int head;
        int size;
        long inSystem; // waiting + in service
        int busy; // workers in service
        double waitingWork; // worker-seconds the waiting requests need
        // requests in service: a min-heap of batches by completion time
        double[] bEnd = new double[8];
        int[] bCount = new int[8];
        Cohort[] bOwner = new Cohort[8];
        int bSize;

        Rep(int index, int version) {
            this.index = index;
            this.version = version;
        }

        void onEvent(SimEvent e) {
            double now = now();
            switch (e.type()) {
                case READY:
                case NOT_READY: {
                    boolean r = e.type() == SimEvent.Type.READY;
                    if (deleted) {
                        rec.ready(index, now, r);
                        break; // terminating: out of the endpoints for good
                    }
                    if (r && !kubeletReady) {
                        readyAt = now;
                    }
                    if (r != kubeletReady) {
                        kubeletReady = r;
                        readyCount += r ? 1 : -1;
                        if (controller != null) {
                            controller.podChanged(); // the ReplicaSet's status changes: the Deployment syncs
                        }
                    }
                    rec.ready(index, now, r);
                    time.schedule(spec.service().propagationDelay().toNanos(), () -> setEndpoint(index, r));
                    break;
                }
                case KILL:
                    if (!deleted) {
                        rec.kill(index, now); // not the controller's deletion of an old pod
                    }
                    break;
                case BACKOFF:
                    rec.backOff(index, now);
                    break;
                case START:
                    rec.start(index, now, e.instance() > 1);
                    break;
                default:
                    break;
            }
        }

        // ---- ContainerRuntime ----

        @Override
        public Instance start(int inst, IntConsumer exit) {
            epoch++;
            instance = inst;
            state = STARTING;
            onExit = exit;
            final int ep = epoch;
            Duration startTime = version == 1 ? rollout.startTime() : spec.replica().startTime();
            time.schedule(startTime.toNanos(), () -> {
                if (epoch == ep && state == STARTING) {
                    state = UP;
                    upSince = now();
                }
            });
            return new Instance() {
                @Override
                public String describe() {
                    return "model replica " + index + " instance " + inst;
                }

                @Override
                public void terminate() {
                    Rep.this.terminate(ep);
                }

                @Override
                public void kill() {
                    die(ep, 137);
                }

                @Override
                public void pause() {
                }

                @Override
                public void resume() {
                }

                @Override
                public void signal(String name) {
                    if (name.equals("TERM")) {
                        terminate();
                    } else if (name.equals("KILL")) {
                        kill();
                    }
                }

                @Override
                public void shutdown(Duration grace) {
                }
            };
        }

        void terminate(int ep) {
            if (ep != epoch || state == DOWN || state == STOPPING) {
                return;
            }
            if (state == STARTING || spec.replica().stopTime().isZero()) {
                die(ep, 143);
                return;
            }
            state = STOPPING;
            dropConnections(index);
            time.schedule(spec.replica().stopTime().toNanos(), () -> die(ep, 143));
        }

        /** The process ends: every request in it fails (connection reset) and is retried by its client. */
        void die(int ep, int code) {
            if (ep != epoch || state == DOWN) {
                return;
            }
            state = DOWN;
            dropConnections(index);
            for (int i = 0; i < size; i++) {
                fail(q[(head + i) % q.length]);
                q[(head + i) % q.length] = null;
            }
            for (int i = 0; i < bSize; i++) {
                fail(bOwner[i]);
                bOwner[i] = null;
            }
            head = 0;
            size = 0;
            bSize = 0;
            inSystem = 0;
            busy = 0;
            waitingWork = 0;
            onExit.accept(code);
        }

        // ---- the queue ----

        /** Connection reset: the client sees a failed attempt for every request not yet answered. */
        private void fail(Cohort c) {
            if (c.n > 0 && !c.abandoned) {
                c.abandoned = true;
                failedOn(this, c.pop, c.n, c.attempt, FleetSpec.Failure.RESET);
            }
            c.n = 0;
            c.waiting = 0;
        }

        void enqueue(Pop p, int count, int attempt) {
            FleetSpec.Replica m = spec.replica();
            long room = m.queueLimit() == Integer.MAX_VALUE ? Long.MAX_VALUE : (long) m.queueLimit() - (inSystem - busy)
                    + Math.max(0, m.workers() - busy);
            int accepted = (int) Math.max(0, Math.min(count, room));
            if (accepted < count) {
                failedOn(this, p, count - accepted, attempt, FleetSpec.Failure.ERROR_5XX); // queue full: rejected at once
            }
            if (accepted == 0) {
                return;
            }
            boolean error = p.c.usesDependency() && dependencyDown();
            if (size == 0 && busy + accepted <= m.workers()) {
                // Fast path: enqueues happen at the start of a step; requests that find free workers
                // and end within this step are answered here, as serve() would answer them.
                double lo = error ? spec.dependency().get().failTime().toNanos() / 1e9 : p.serviceLow * warmup();
                double hi = error ? lo : p.serviceHigh * warmup();
                if (hi <= dt) {
                    if (error) {
                        failedOn(this, p, accepted, attempt, FleetSpec.Failure.ERROR_5XX);
                    } else if (accepted == 1) {
                        succeeded(p, 1, lo + rnd.nextDouble() * (hi - lo), this);
                    } else {
                        int half = accepted / 2;
                        succeeded(p, half, lo + (hi - lo) / 4, this);
                        succeeded(p, accepted - half, lo + 3 * (hi - lo) / 4, this);
                    }
                    return;
                }
            }
            Cohort c;
            if (error) {
                double f = Math.max(1e-6, spec.dependency().get().failTime().toNanos() / 1e9);
                c = new Cohort(p, index, attempt, now(), f, f, true, accepted);
            } else {
                double w = warmup();
                c = new Cohort(p, index, attempt, now(), p.serviceLow * w, p.serviceHigh * w, false, accepted);
            }
            if (size == q.length) {
                Cohort[] nq = new Cohort[q.length * 2];
                for (int i = 0; i < size; i++) {
                    nq[i] = q[(head + i) % q.length];
                }
                q = nq;
                head = 0;
            }
            q[(head + size) % q.length] = c;
            size++;
            // a request that starts at once and ends before its timeout can only fail by a reset,
            // which die() handles: it needs no timeout entry
            boolean startsNow = size == 1 && busy + accepted <= m.workers();
            inSystem += accepted;
            rec.inFlight(index, inSystem);
            waitingWork += accepted * c.meanService();
            // the pods' own traffic has no client that gives up: no timeout entry
            if (!p.background && (!startsNow || c.serviceHigh >= p.c.timeout().toNanos() / 1e9)) {
                timeouts.add(stepNo + p.timeoutSteps, c);
            }
        }

        /**
         * Serves one step [now, end): waiting requests take free workers in FIFO order; a
         * request that starts at s with service time S is answered at s + S; a worker freed
         * inside the step takes the next waiting request at once.
         */
        void serve(double now, double end) {
            startWaiting(now);
            while (bSize > 0 && bEnd[0] <= end) {
                double e = bEnd[0];
                int k = bCount[0];
                Cohort c = bOwner[0];
                popBatch();
                busy -= k;
                c.n -= k;
                inSystem -= k;
                if (!c.abandoned) {
                    if (c.error) {
                        failedOn(this, c.pop, k, c.attempt, FleetSpec.Failure.ERROR_5XX);
                    } else {
                        succeeded(c.pop, k, e - c.arrival, this);
                    }
                }
                startWaiting(e);
            }
        }

        private void startWaiting(double t) {
            int w = spec.replica().workers();
            while (busy < w && size > 0) {
                Cohort c = q[head];
                int m = Math.min(c.waiting, w - busy);
                if (m > 0) {
                    if (c.serviceHigh > c.serviceLow && m > 1) {
                        // two halves at the quartiles of [min, max]: a spread, not one wave
                        double span = c.serviceHigh - c.serviceLow;
                        int lo = m / 2;
                        pushBatch(t + c.serviceLow + span / 4, lo, c);
                        pushBatch(t + c.serviceLow + 3 * span / 4, m - lo, c);
                    } else {
                        pushBatch(t + (m == 1 ? c.serviceLow + rnd.nextDouble() * (c.serviceHigh - c.serviceLow) : c.serviceLow),
                                m, c);
                    }
                    c.waiting -= m;
                    busy += m;
                    waitingWork -= m * c.meanService();
                }
                if (c.waiting == 0) {
                    q[head] = null;
                    head = (head + 1) % q.length;
                    size--;
                }
            }
            if (size == 0) {
                waitingWork = 0;
            }
        }

        private void pushBatch(double end, int count, Cohort c) {
            if (bSize == bEnd.length) {
                bEnd = java.util.Arrays.copyOf(bEnd, bSize * 2);
                bCount = java.util.Arrays.copyOf(bCount, bSize * 2);
                bOwner = java.util.Arrays.copyOf(bOwner, bSize * 2);
            }
            int i = bSize++;
            while (i > 0) {
                int parent = (i - 1) / 2;
                if (bEnd[parent] <= end) {
                    break;
                }
                bEnd[i] = bEnd[parent];
                bCount[i] = bCount[parent];
                bOwner[i] = bOwner[parent];
                i = parent;
            }
            bEnd[i] = end;
            bCount[i] = count;
            bOwner[i] = c;
        }

        private void popBatch() {
            int last = --bSize;
            double e = bEnd[last];
            int k = bCount[last];
            Cohort c = bOwner[last];
            bOwner[last] = null;
            if (last == 0) {
                return;
            }
            int i = 0;
            while (true) {
                int l = 2 * i + 1;
                if (l >= last) {
                    break;
                }
                int r = l + 1;
                int m = r < last && bEnd[r] < bEnd[l] ? r : l;
                if (bEnd[m] >= e) {
                    break;
                }
                bEnd[i] = bEnd[m];
                bCount[i] = bCount[m];
                bOwner[i] = bOwner[m];
                i = m;
            }
            bEnd[i] = e;
            bCount[i] = k;
            bOwner[i] = c;
        }

        double warmup() {
            if (version == 1) {
                return rollout.factor(now() - upSince, served + (long) routine);
            }
            FleetSpec.Replica m = spec.replica();
            if (m.warmupFactor() <= 1 || m.warmupTime().isZero()) {
                return 1;
            }
            double since = (now() - upSince) / (m.warmupTime().toNanos() / 1e9);
            return since >= 1 ? 1 : 1 + (m.warmupFactor() - 1) * (1 - since);
        }

        /**
         * How long a probe served on the worker pool waits for a worker: nothing while a worker
         * is free, else until the first request in service ends plus the waiting work shared by
         * the workers (DESIGN.md 7.3).
         */
        double poolWait(double now) {
            int w = spec.replica().workers();
            if (busy < w || bSize == 0) {
                return 0;
            }
            return Math.max(0, bEnd[0] - now) + waitingWork / w;
        }

        // ---- ProbeExecutor ----

        @Override
        public void execute(ProbeSpec probe, int inst, Consumer<ProbeOutcome> done) {
            ProbeOutcome o = answer(probe, inst);
            time.schedule(o.latency().toNanos(), () -> done.accept(o));
        }

        private ProbeOutcome answer(ProbeSpec probe, int inst) {
            if (inst != instance || state != UP) {
                return REFUSED;
            }
            double timeout = probe.timeoutSeconds();
            double latency = spec.replica().probeServiceTime().toNanos() / 1e9;
            if (spec.probes().server() == FleetSpec.ProbeServer.APP_POOL) {
                if (spec.replica().queueLimit() != Integer.MAX_VALUE && inSystem - busy >= spec.replica().queueLimit()) {
                    return QUEUE_FULL; // the accept queue is full: the probe's connection is refused too
                }
                latency += poolWait(now());
            }
            FleetSpec.DependencyRole role = spec.probes().dependencyRole(probe.type());
            boolean failing = false;
            if (role == FleetSpec.DependencyRole.CRITICAL && dependencyDown()) {
                failing = true;
                latency += spec.dependency().get().checkTime().toNanos() / 1e9;
            }
            if (latency >= timeout) {
                return ProbeOutcome.of(ProbeResult.FAILURE, "timeout", probe.timeout());
            }
            Duration l = Duration.ofNanos(Math.max(1000, Math.round(latency * 1e9)));
            if (probe.type() == ProbeType.READINESS && version == 1 && rollout.readinessWaitsForWarmup() && warmup() > 1) {
                return ProbeOutcome.of(ProbeResult.FAILURE, "HTTP 503 warming up", l); // vitals-core Warmup: DOWN
            }
            return failing ? ProbeOutcome.of(ProbeResult.FAILURE, "HTTP 503", l) : ProbeOutcome.of(ProbeResult.SUCCESS, "HTTP 200", l);
        }
    }

    /** @return the probe types the spec configures (for reports) */
    static List<ProbeType> probeTypes(FleetSpec spec) {
        List<ProbeType> out = new ArrayList<>();
        for (ProbeType t : ProbeType.values()) {
            if (spec.probes().probe(t).isPresent()) {
                out.add(t);
            }
        }
        return out;
    }
}
