package dev.vitals.kubesim.fleet;

import dev.vitals.kubesim.model.ProbeSpec;
import dev.vitals.kubesim.model.ProbeType;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What a fleet run simulates: N replicas of one service behind a Service, their probes, the
 * clients that call them, a shared dependency and timed actions. Immutable. Read one from YAML
 * with {@link FleetSpecReader}; the replays build theirs in code. Every duration is a
 * {@link Duration}; every rate is per second.
 *
 * @param replicas number of replicas, 1–1,000,000 (the model engine; about 4 KiB of heap each) or 1–64 (the live engine)
 * @param duration scenario time simulated after warm-up, ≥ 1 s
 * @param step the model engine's time step for the request model, 1 ms – 1 s (default 100 ms)
 * @param seed random seed for routing and arrivals (runs are reproducible)
 * @param replica the per-replica service model
 * @param probes the kubelet probes and what each one checks
 * @param dependency the shared dependency, if any
 * @param service the Service in front of the replicas
 * @param clients the client populations
 * @param actions timed actions (kills of single replicas)
 * @param expectations expectations checked at the end ({@link FleetExpectation} syntax)
 * @param rollout a rolling update during the scenario (both engines), if any
 * @param background the pods' own traffic beside the clients, if any (model engine)
 */
public record FleetSpec(int replicas, Duration duration, Duration step, long seed, Replica replica, Probes probes,
        Optional<Dependency> dependency, Service service, List<Clients> clients, List<Kill> actions,
        List<FleetExpectation> expectations, Optional<Rollout> rollout, Optional<Background> background) {

    /**
     * The largest fleet a file may declare (issue 37; was 20,000, before that 5,000). Not the real
     * bound, which is memory: see {@link #BYTES_PER_REPLICA} and {@link #replicasWithin(long, int)},
     * checked by {@code vitals fleet} against its own heap before a run. Time grows linearly: about
     * 2–3 ms of one core per replica-hour on a quiet machine ({@code FleetBenchmark}, docs/fleet.md).
     */
    public static final int MAX_REPLICAS = 1_000_000;
    /**
     * The heap one replica of the model engine holds, in bytes, rounded up: its kubelet model, probe
     * workers, scripted container, worker pool and report lanes. Measured by {@code FleetBenchmark}
     * as the live heap after GC at the end of a run over the replica count: 3.7–3.9 KiB at
     * 10,000 replicas × 1 h (issue 37).
     */
    public static final long BYTES_PER_REPLICA = 4096;

    /**
     * How many replicas fit a heap: each takes {@link #BYTES_PER_REPLICA}, and as much again is
     * left to the garbage collector (a step's short-lived objects), for each run at once.
     *
     * @param heapBytes the heap, e.g. {@code Runtime.getRuntime().maxMemory()}
     * @param runsAtOnce runs sharing that heap (an ensemble's threads), ≥ 1
     * @return the most replicas, within 1–{@link #MAX_REPLICAS}
     */
    public static int replicasWithin(long heapBytes, int runsAtOnce) {
        long fit = heapBytes / (2 * BYTES_PER_REPLICA * Math.max(1, runsAtOnce));
        return (int) Math.max(1, Math.min(MAX_REPLICAS, fit));
    }
    /**
     * The longest scenario, as for {@code simulate}: a longer one is a typo, and the per-second
     * series would not fit in memory (100,000 h ran out of it; issue 30).
     */
    public static final Duration MAX_DURATION = Duration.ofHours(24);
    /**
     * The most steps a client's timeout, think time or retry delay may span: the model keeps a
     * slot per step of the longest (4,194,304 slots, 32 MiB).
     */
    public static final long MAX_DELAY_STEPS = 1L << 22;

    /**
     * Validates the bounds above and copies the lists.
     *
     * @param replicas number of replicas, 1–1,000,000 (the model engine; about 4 KiB of heap each) or 1–64 (the live engine)
     * @param duration scenario time simulated after warm-up, ≥ 1 s
     * @param step the model engine's time step for the request model, 1 ms – 1 s (default 100 ms)
     * @param seed random seed for routing and arrivals (runs are reproducible)
     * @param replica the per-replica service model
     * @param probes the kubelet probes and what each one checks
     * @param dependency the shared dependency, if any
     * @param service the Service in front of the replicas
     * @param clients the client populations
     * @param actions timed actions (kills of single replicas)
     * @param expectations expectations checked at the end ({@link FleetExpectation} syntax)
     * @param rollout a rolling update during the scenario (model engine only), if any
     * @param background the pods' own traffic beside the clients, if any (model engine)
     * @throws IllegalArgumentException if a bound is broken, an action kills a replica beyond {@code
     *        replicas}, or clients run on a node the replicas are not placed on
     * @throws NullPointerException if a component is null
     */
    public FleetSpec {
        Objects.requireNonNull(duration, "duration");
        Objects.requireNonNull(step, "step");
        Objects.requireNonNull(replica, "replica");
        Objects.requireNonNull(probes, "probes");
        Objects.requireNonNull(dependency, "dependency");
        Objects.requireNonNull(service, "service");
        clients = List.copyOf(clients);
        actions = List.copyOf(actions);
        expectations = List.copyOf(expectations);
        Objects.requireNonNull(rollout, "rollout");
        Objects.requireNonNull(background, "background");
        if (replicas < 1 || replicas > MAX_REPLICAS) {
            throw new IllegalArgumentException("replicas must be 1-" + MAX_REPLICAS + ", was " + replicas);
        }
        if (duration.compareTo(Duration.ofSeconds(1)) < 0) {
            throw new IllegalArgumentException("duration must be at least 1s, was " + duration);
        }
        if (step.compareTo(Duration.ofMillis(1)) < 0 || step.compareTo(Duration.ofSeconds(1)) > 0) {
            throw new IllegalArgumentException("step must be 1ms-1s, was " + step);
        }
        if (duration.compareTo(MAX_DURATION) > 0) {
            throw new IllegalArgumentException("duration must be at most " + MAX_DURATION.toHours() + "h (the longest run), was "
                    + duration.toSeconds() + "s");
        }
        for (Clients c : clients) {
            Duration longest = Collections.max(List.of(c.timeout(), c.thinkTime(), c.retryDelay()));
            if (longest.toNanos() / step.toNanos() > MAX_DELAY_STEPS) {
                throw new IllegalArgumentException("clients '" + c.name() + "': a timeout, thinkTime or retryDelay of "
                        + longest.toSeconds() + "s is more than " + MAX_DELAY_STEPS + " steps of " + step.toMillis()
                        + "ms, which the model cannot hold; shorten it or lengthen step");
            }
        }
        for (Clients c : clients) {
            if (c.policy().node() >= service.routing().nodes()) {
                throw new IllegalArgumentException("clients '" + c.name() + "': node " + c.policy().node() + " but the replicas are on "
                        + service.routing().nodes() + " node(s) (0-" + (service.routing().nodes() - 1) + ")");
            }
        }
        for (Kill a : actions) {
            if (a.replica() >= replicas) {
                throw new IllegalArgumentException("actions: kill of replica " + a.replica() + " but there are only "
                        + replicas + " replicas (0-" + (replicas - 1) + ")");
            }
        }
    }

    /**
     * A fleet without a rollout.
     *
     * @param replicas number of replicas
     * @param duration scenario time simulated after warm-up
     * @param step the model engine's time step
     * @param seed random seed for routing and arrivals
     * @param replica the per-replica service model
     * @param probes the kubelet probes and what each one checks
     * @param dependency the shared dependency, if any
     * @param service the Service in front of the replicas
     * @param clients the client populations
     * @param actions timed actions
     * @param expectations expectations checked at the end
     */
    public FleetSpec(int replicas, Duration duration, Duration step, long seed, Replica replica, Probes probes,
            Optional<Dependency> dependency, Service service, List<Clients> clients, List<Kill> actions,
            List<FleetExpectation> expectations) {
        this(replicas, duration, step, seed, replica, probes, dependency, service, clients, actions, expectations, Optional.empty(),
                Optional.empty());
    }

    /**
     * A fleet without background traffic.
     *
     * @param replicas number of replicas
     * @param duration scenario time simulated after warm-up
     * @param step the model engine's time step
     * @param seed random seed for routing and arrivals
     * @param replica the per-replica service model
     * @param probes the kubelet probes and what each one checks
     * @param dependency the shared dependency, if any
     * @param service the Service in front of the replicas
     * @param clients the client populations
     * @param actions timed actions
     * @param expectations expectations checked at the end
     * @param rollout a rolling update during the scenario, if any
     */
    public FleetSpec(int replicas, Duration duration, Duration step, long seed, Replica replica, Probes probes,
            Optional<Dependency> dependency, Service service, List<Clients> clients, List<Kill> actions,
            List<FleetExpectation> expectations, Optional<Rollout> rollout) {
        this(replicas, duration, step, seed, replica, probes, dependency, service, clients, actions, expectations, rollout,
                Optional.empty());
    }

    /**
     * This fleet with another size.
     *
     * @param n number of replicas, 1–{@value #MAX_REPLICAS}
     * @return a copy with another replica count
     * @throws IllegalArgumentException if {@code n} is out of range or an action names a replica beyond it
     */
    public FleetSpec withReplicas(int n) {
        return new FleetSpec(n, duration, step, seed, replica, probes, dependency, service, clients, actions, expectations, rollout, background);
    }

    /**
     * This fleet over another scenario time.
     *
     * @param d scenario time after warm-up, ≥ 1 s
     * @return a copy with another duration
     * @throws IllegalArgumentException if {@code d} is shorter than 1 s
     */
    public FleetSpec withDuration(Duration d) {
        return new FleetSpec(replicas, d, step, seed, replica, probes, dependency, service, clients, actions, expectations, rollout, background);
    }

    /**
     * This fleet with another random seed.
     *
     * @param s the seed for routing and arrivals
     * @return a copy with another seed
     */
    public FleetSpec withSeed(long s) {
        return new FleetSpec(replicas, duration, step, s, replica, probes, dependency, service, clients, actions, expectations, rollout, background);
    }

    /**
     * This fleet with other expectations.
     *
     * @param e the expectations checked at the end
     * @return a copy with other expectations
     */
    public FleetSpec withExpectations(List<FleetExpectation> e) {
        return new FleetSpec(replicas, duration, step, seed, replica, probes, dependency, service, clients, actions, e, rollout, background);
    }

    /**
     * This fleet with another rolling update, or none.
     *
     * @param r the rollout, or empty for none
     * @return a copy with another rollout
     */
    public FleetSpec withRollout(Optional<Rollout> r) {
        return new FleetSpec(replicas, duration, step, seed, replica, probes, dependency, service, clients, actions, expectations, r, background);
    }

    /**
     * This fleet behind another Service (routing included).
     *
     * @param s the Service
     * @return a copy with another Service
     */
    public FleetSpec withService(Service s) {
        return new FleetSpec(replicas, duration, step, seed, replica, probes, dependency, s, clients, actions, expectations, rollout,
                background);
    }

    /**
     * This fleet with other clients.
     *
     * @param c the client populations
     * @return a copy with other clients
     */
    public FleetSpec withClients(List<Clients> c) {
        return new FleetSpec(replicas, duration, step, seed, replica, probes, dependency, service, c, actions, expectations, rollout,
                background);
    }

    /**
     * This fleet with other background traffic, or none.
     *
     * @param b the pods' own traffic, or empty
     * @return a copy with other background traffic
     */
    public FleetSpec withBackground(Optional<Background> b) {
        return new FleetSpec(replicas, duration, step, seed, replica, probes, dependency, service, clients, actions, expectations, rollout,
                b);
    }

    /**
     * The pods' own traffic: a stream of requests on each replica's worker pool that does not pass
     * the Service's routing (the service's usual users, spread evenly), so a scenario can say "the pods
     * were at 30 % when the script ran". Arrivals are Poisson per replica while it is up; a request of
     * it takes a service time in [{@code serviceMin}, {@code serviceMax}] like a client's, and is
     * counted in no client figure (it is not retried; a kill loses it).
     *
     * @param utilisation the share of the workers it keeps busy, 0–1 (the rate is utilisation ×
     *        workers ÷ mean service time); 0 when {@code rate} is given
     * @param rate requests per second per replica; 0 when {@code utilisation} is given
     * @param serviceMin shortest service time, ≥ 1 µs
     * @param serviceMax longest service time, ≥ serviceMin
     */
    public record Background(double utilisation, double rate, Duration serviceMin, Duration serviceMax) {
        /**
         * Validates the components.
         *
         * @param utilisation the share of the workers it keeps busy, 0–1, or 0
         * @param rate requests per second per replica, or 0
         * @param serviceMin shortest service time, ≥ 1 µs
         * @param serviceMax longest service time, ≥ serviceMin
         * @throws IllegalArgumentException unless exactly one of utilisation and rate is positive and within
         *         its bound, or if the service times are out of order
         */
        public Background {
            Objects.requireNonNull(serviceMin, "serviceMin");
            Objects.requireNonNull(serviceMax, "serviceMax");
            if ((utilisation > 0) == (rate > 0)) {
                throw new IllegalArgumentException("background: give exactly one of utilisation (0-1) or rate (per second per replica)");
            }
            if (!(utilisation >= 0 && utilisation < 1)) {
                throw new IllegalArgumentException("background.utilisation must be 0-0.99, was " + utilisation);
            }
            if (!(rate >= 0 && rate <= 10_000_000)) {
                throw new IllegalArgumentException("background.rate must be 0-10000000 per second, was " + rate);
            }
            if (serviceMin.compareTo(Duration.ofNanos(1000)) < 0) {
                throw new IllegalArgumentException("background.serviceTime must be at least 1us, was " + serviceMin);
            }
            if (serviceMax.compareTo(serviceMin) < 0) {
                throw new IllegalArgumentException("background.serviceTime max must be at least min, was " + serviceMax + " < "
                        + serviceMin);
            }
        }

        /** @return the mean service time, seconds */
        public double meanServiceSeconds() {
            return (serviceMin.toNanos() + serviceMax.toNanos()) / 2e9;
        }

        /**
         * @param workers the replica's workers
         * @return arrivals per second per replica
         */
        public double ratePerReplica(int workers) {
            return rate > 0 ? rate : utilisation * workers / meanServiceSeconds();
        }

        /** @return e.g. {@code 30% of the workers, 200-400 ms} */
        public String describe() {
            String st = serviceMin.equals(serviceMax) ? serviceMin.toMillis() + " ms"
                    : serviceMin.toMillis() + "-" + serviceMax.toMillis() + " ms";
            return (rate > 0 ? String.format(java.util.Locale.ROOT, "%.4g requests/s per replica", rate)
                    : Math.round(utilisation * 100) + "% of the workers") + ", " + st + " each";
        }
    }

    /** Where a replica answers its probes. */
    public enum ProbeServer {
        /** On the application's worker pool: a probe waits behind queued requests (the naive wiring). */
        APP_POOL,
        /** On a server of its own, answered from memory (Vitals, P1). */
        ISOLATED
    }

    /** How a probe treats the shared dependency. */
    public enum DependencyRole {
        /** The probe does not look at it. */
        NONE,
        /** The dependency's failure fails the probe (a critical check). */
        CRITICAL,
        /** The dependency's failure degrades the report (HTTP 200): the probe passes (P3). */
        NON_CRITICAL
    }

    /**
     * The per-replica queueing model.
     *
     * @param workers worker threads serving requests (and probes on {@link ProbeServer#APP_POOL}), ≥ 1
     * @param queueLimit requests waiting beyond the workers before new ones are refused with an
     *        error (an accept backlog or bounded executor queue), ≥ 0; {@code Integer.MAX_VALUE} = unbounded
     * @param startTime cold start: from container start until the application and its probe
     *        server answer (connections refused before)
     * @param stopTime after SIGTERM, how long in-flight requests may still complete before the
     *        process exits (new connections are refused at once)
     * @param probeServiceTime the time a probe takes once it has a thread
     * @param warmupFactor service times are multiplied by this right after start, falling
     *        linearly to 1 over {@code warmupTime} (a cold JIT), ≥ 1
     * @param warmupTime see {@code warmupFactor}
     */
    public record Replica(int workers, int queueLimit, Duration startTime, Duration stopTime, Duration probeServiceTime,
            double warmupFactor, Duration warmupTime) {
        /**
         * Validates the bounds above.
         *
         * @param workers worker threads serving requests (and probes on {@link ProbeServer#APP_POOL}), ≥ 1
         * @param queueLimit requests waiting beyond the workers before new ones are refused with an error (an
         *        accept
         *        backlog or bounded executor queue), ≥ 0; {@code Integer.MAX_VALUE} = unbounded
         * @param startTime cold start: from container start until the application and its probe server answer
         *        (connections refused before)
         * @param stopTime after SIGTERM, how long in-flight requests may still complete before the process
         *        exits
         *        (new connections are refused at once)
         * @param probeServiceTime the time a probe takes once it has a thread
         * @param warmupFactor service times are multiplied by this right after start, falling linearly to 1
         *        over
         *        {@code warmupTime} (a cold JIT), ≥ 1
         * @param warmupTime see {@code warmupFactor}
         * @throws IllegalArgumentException if a bound is broken or a duration is negative
         */
        public Replica {
            if (workers < 1) {
                throw new IllegalArgumentException("replica.workers must be at least 1, was " + workers);
            }
            if (queueLimit < 0) {
                throw new IllegalArgumentException("replica.queueLimit must be at least 0, was " + queueLimit);
            }
            if (!(warmupFactor >= 1) || warmupFactor > 100) {
                throw new IllegalArgumentException("replica.warmupFactor must be 1-100, was " + warmupFactor);
            }
            nonNegative("replica.startTime", startTime);
            nonNegative("replica.stopTime", stopTime);
            nonNegative("replica.probeServiceTime", probeServiceTime);
            nonNegative("replica.warmupTime", warmupTime);
        }
    }

    /**
     * The probes (kubelet fields in {@link ProbeSpec}), where they are served and what they check.
     *
     * @param startup the startup probe, if any
     * @param liveness the liveness probe, if any
     * @param readiness the readiness probe, if any
     * @param server where probes are answered
     * @param livenessDependency how liveness treats the shared dependency (a dependency in
     *        liveness is failure 2 of DESIGN.md section 1)
     * @param readinessDependency how readiness treats it (C21)
     */
    public record Probes(Optional<ProbeSpec> startup, Optional<ProbeSpec> liveness, Optional<ProbeSpec> readiness,
            ProbeServer server, DependencyRole livenessDependency, DependencyRole readinessDependency) {
        /**
         * Checks that no component is null.
         *
         * @param startup the startup probe, if any
         * @param liveness the liveness probe, if any
         * @param readiness the readiness probe, if any
         * @param server where probes are answered
         * @param livenessDependency how liveness treats the shared dependency (a dependency in liveness is
         *        failure 2
         *        of DESIGN.md section 1)
         * @param readinessDependency how readiness treats it (C21)
         * @throws NullPointerException if a component is null
         */
        public Probes {
            Objects.requireNonNull(startup, "startup");
            Objects.requireNonNull(liveness, "liveness");
            Objects.requireNonNull(readiness, "readiness");
            Objects.requireNonNull(server, "server");
            Objects.requireNonNull(livenessDependency, "livenessDependency");
            Objects.requireNonNull(readinessDependency, "readinessDependency");
        }

        /**
         * The probe of one type.
         *
         * @param t startup, liveness or readiness
         * @return the probe of that type, if configured
         */
        public Optional<ProbeSpec> probe(ProbeType t) {
            return t.pick(startup, liveness, readiness);
        }

        /**
         * How one probe treats the shared dependency.
         *
         * @param t startup, liveness or readiness
         * @return how the probe of that type treats the dependency (startup: never)
         */
        public DependencyRole dependencyRole(ProbeType t) {
            switch (t) {
                case LIVENESS:
                    return livenessDependency;
                case READINESS:
                    return readinessDependency;
                default:
                    return DependencyRole.NONE;
            }
        }
    }

    /**
     * A dependency every replica shares (a cache, a database).
     *
     * @param name its name in reports
     * @param checkTime how long a health check of it takes while it is down (a connect timeout;
     *        0 = refused at once); a probe whose check outlasts the probe's timeout times out
     * @param failTime how long a request that needs it takes to fail while it is down
     * @param outages when it is down, from scenario start
     * @param target live engine only: the real dependency, {@code host:port}; a fault proxy in
     *        front of it is what replicas reach ({@code DEPENDENCY_HOST}, {@code DEPENDENCY_PORT}),
     *        and an outage refuses new connections and resets open ones
     */
    public record Dependency(String name, Duration checkTime, Duration failTime, List<Window> outages, Optional<String> target) {
        /**
         * Validates the components and copies {@code outages}.
         *
         * @param name its name in reports
         * @param checkTime how long a health check of it takes while it is down (a connect timeout; 0 =
         *        refused at
         *        once); a probe whose check outlasts the probe's timeout times out
         * @param failTime how long a request that needs it takes to fail while it is down
         * @param outages when it is down, from scenario start
         * @param target live engine only: the real dependency, {@code host:port}; a fault proxy in front of
         *        it is
         *        what replicas reach ({@code DEPENDENCY_HOST}, {@code DEPENDENCY_PORT}), and an outage
         *        refuses new connections and resets open ones
         * @throws IllegalArgumentException if {@code target} is not {@code host:port} or a duration is negative
         */
        public Dependency {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(target, "target");
            if (target.isPresent() && !target.get().matches("[^:\\s]+:\\d{1,5}")) {
                throw new IllegalArgumentException("dependency.target must be host:port, was '" + target.get() + "'");
            }
            nonNegative("dependency.checkTime", checkTime);
            nonNegative("dependency.failTime", failTime);
            outages = List.copyOf(outages);
        }

        /**
         * Whether the dependency is down at a moment.
         *
         * @param t seconds from scenario start
         * @return true when {@code t} seconds after scenario start falls in an outage
         */
        public boolean downAt(double t) {
            for (Window w : outages) {
                if (w.contains(t)) {
                    return true;
                }
            }
            return false;
        }
    }

    /**
     * A time window from scenario start.
     *
     * @param at start
     * @param duration length, &gt; 0
     */
    public record Window(Duration at, Duration duration) {
        /**
         * Validates the components.
         *
         * @param at start
         * @param duration length, &gt; 0
         * @throws IllegalArgumentException if {@code at} or {@code duration} is negative
         */
        public Window {
            nonNegative("at", at);
            nonNegative("duration", duration);
        }

        /**
         * Whether a moment falls in this window.
         *
         * @param t seconds from scenario start
         * @return whether {@code t} seconds is inside [at, at + duration)
         */
        public boolean contains(double t) {
            double a = at.toNanos() / 1e9;
            return t >= a && t < a + duration.toNanos() / 1e9;
        }
    }

    /**
     * The Service in front of the replicas and how traffic reaches them ({@link Routing}: by default
     * kube-proxy's iptables mode, each new connection to a Ready endpoint at random; connections
     * already open stay where they are).
     *
     * @param propagationDelay from a Ready change in the kubelet until the Service sees it
     *        (endpoints controller + kube-proxy), default 1 s
     * @param routing the balancing layer, algorithm, affinity and traffic policy
     */
    public record Service(Duration propagationDelay, Routing routing) {
        /**
         * A Service with kube-proxy's default routing ({@link Routing#DEFAULT}).
         *
         * @param propagationDelay from a Ready change in the kubelet until the Service sees it
         * @throws IllegalArgumentException if {@code propagationDelay} is negative or more than {@link #MAX_DURATION}
         */
        public Service(Duration propagationDelay) {
            this(propagationDelay, Routing.DEFAULT);
        }

        /**
         * @param r other routing
         * @return a copy with it
         */
        public Service withRouting(Routing r) {
            return new Service(propagationDelay, r);
        }

        /**
         * Validates the delay.
         *
         * @param propagationDelay from a Ready change in the kubelet until the Service sees it (endpoints
         *        controller
         *        + kube-proxy), default 1 s
         * @param routing the balancing layer, algorithm, affinity and traffic policy
         * @throws IllegalArgumentException if {@code propagationDelay} is negative or more than {@link #MAX_DURATION}
         */
        public Service {
            Objects.requireNonNull(routing, "routing");
            nonNegative("service.propagationDelay", propagationDelay);
            if (propagationDelay.compareTo(MAX_DURATION) > 0) {
                throw new IllegalArgumentException("service.propagationDelay must be at most " + MAX_DURATION.toHours()
                        + "h (the longest run), was " + propagationDelay.toSeconds() + "s");
            }
        }
    }

    /**
     * One client population.
     *
     * @param name its name in reports
     * @param rate open loop: new requests per second (Poisson arrivals), or 0 for closed loop
     * @param concurrency closed loop: clients each keeping one request outstanding, or 0 for open loop
     * @param thinkTime closed loop: pause between a response and the next request
     * @param from when the population starts, from scenario start
     * @param until when it stops sending new requests (requests in flight complete)
     * @param serviceMin shortest service time of its requests
     * @param serviceMax longest service time (the model uses the mean of min and max)
     * @param timeout the client's timeout per attempt (the server keeps working on a timed-out request)
     * @param retries extra attempts after a failed one (timeout, refused, reset, error), ≥ 0
     * @param retryDelay pause before a retry
     * @param persistent closed loop: a client keeps its connection (and so its replica) until a
     *        failure, as HTTP keep-alive and gRPC channels do (C22)
     * @param connections open loop: 0 = a new connection per request; K &gt; 0 = the rate is
     *        carried by K kept connections, each staying on its replica until that process ends
     *        (then it reconnects through the Service: C22)
     * @param usesDependency its requests need the shared dependency and fail while it is down
     * @param total closed loop: requests in all (a batch job such as the incident's 53 exports): once
     *        {@code total} first attempts are sent the clients send nothing new, retries excepted;
     *        0 = no limit
     * @param policy how the clients appear to the routing layer (affinity keys, HTTP/2, node) and how they
     *        back off between retries
     */
    public record Clients(String name, double rate, int concurrency, Duration thinkTime, Duration from, Duration until,
            Duration serviceMin, Duration serviceMax, Duration timeout, int retries, Duration retryDelay,
            boolean persistent, int connections, boolean usesDependency, int total, ClientPolicy policy) {

        /**
         * A population with {@link ClientPolicy#DEFAULT}: every connection its own key, HTTP/1.1, a fixed retry delay.
         *
         * @param name its name in reports
         * @param rate open loop: new requests per second, or 0
         * @param concurrency closed loop: clients, or 0
         * @param thinkTime closed loop: pause between a response and the next request
         * @param from when the population starts
         * @param until when it stops sending new requests
         * @param serviceMin shortest service time
         * @param serviceMax longest service time
         * @param timeout the client's timeout per attempt
         * @param retries extra attempts after a failed one
         * @param retryDelay pause before a retry
         * @param persistent closed loop: keep the connection
         * @param connections open loop: kept connections
         * @param usesDependency its requests need the shared dependency
         * @param total closed loop: requests in all, 0 = no limit
         * @throws IllegalArgumentException naming the population and the bound, if one is broken
         */
        public Clients(String name, double rate, int concurrency, Duration thinkTime, Duration from, Duration until,
                Duration serviceMin, Duration serviceMax, Duration timeout, int retries, Duration retryDelay,
                boolean persistent, int connections, boolean usesDependency, int total) {
            this(name, rate, concurrency, thinkTime, from, until, serviceMin, serviceMax, timeout, retries, retryDelay, persistent,
                    connections, usesDependency, total, ClientPolicy.DEFAULT);
        }

        /**
         * @param p another policy
         * @return a copy with it
         * @throws IllegalArgumentException if the policy does not fit the population (HTTP/2 on an open loop)
         */
        public Clients withPolicy(ClientPolicy p) {
            return new Clients(name, rate, concurrency, thinkTime, from, until, serviceMin, serviceMax, timeout, retries, retryDelay,
                    persistent, connections, usesDependency, total, p);
        }

        /**
         * Validates the components: exactly one of rate and concurrency, the bounds above.
         *
         * @param name its name in reports
         * @param rate open loop: new requests per second (Poisson arrivals), or 0 for closed loop
         * @param concurrency closed loop: clients each keeping one request outstanding, or 0 for open loop
         * @param thinkTime closed loop: pause between a response and the next request
         * @param from when the population starts, from scenario start
         * @param until when it stops sending new requests (requests in flight complete)
         * @param serviceMin shortest service time of its requests
         * @param serviceMax longest service time (the model uses the mean of min and max)
         * @param timeout the client's timeout per attempt (the server keeps working on a timed-out request)
         * @param retries extra attempts after a failed one (timeout, refused, reset, error), ≥ 0
         * @param retryDelay pause before a retry
         * @param persistent closed loop: a client keeps its connection (and so its replica) until a failure,
         *        as HTTP
         *        keep-alive and gRPC channels do (C22)
         * @param connections open loop: 0 = a new connection per request; K &gt; 0 = the rate is carried by K
         *        kept
         *        connections, each staying on its replica until that process ends (then it reconnects through
         *        the Service: C22)
         * @param usesDependency its requests need the shared dependency and fail while it is down
         * @param total closed loop: requests in all (a batch job such as the incident's 53 exports): once
         *        {@code
         *        total} first attempts are sent the clients send nothing new, retries excepted; 0 = no limit
         * @param policy affinity keys, HTTP/2, node and retry back-off
         * @throws IllegalArgumentException naming the population and the bound, if one is broken
         */
        public Clients {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(policy, "policy");
            String where = "clients '" + name + "'";
            if (policy.http2() && concurrency == 0) {
                throw new IllegalArgumentException(where + ": http2 is for closed loop (concurrency): its requests share connections");
            }
            if ((rate > 0) == (concurrency > 0)) {
                throw new IllegalArgumentException(where + ": give exactly one of rate (open loop) or concurrency (closed loop)");
            }
            if (rate < 0 || rate > 10_000_000) {
                throw new IllegalArgumentException(where + ": rate must be 0-10000000 per second, was " + rate);
            }
            if (concurrency < 0 || concurrency > 10_000_000) {
                throw new IllegalArgumentException(where + ": concurrency must be 0-10000000, was " + concurrency);
            }
            if (connections < 0 || connections > 10_000_000) {
                throw new IllegalArgumentException(where + ": connections must be 0-10000000, was " + connections);
            }
            if (connections > 0 && concurrency > 0 && !policy.http2()) {
                throw new IllegalArgumentException(where + ": connections is for open loop (rate), or closed loop with http2; "
                        + "closed loop uses persistent");
            }
            if (total < 0 || total > 1_000_000_000) {
                throw new IllegalArgumentException(where + ": total must be 0-1000000000, was " + total);
            }
            if (total > 0 && concurrency == 0) {
                throw new IllegalArgumentException(where + ": total is for closed loop (concurrency)");
            }
            if (retries < 0 || retries > 100) {
                throw new IllegalArgumentException(where + ": retries must be 0-100, was " + retries);
            }
            nonNegative(where + ": thinkTime", thinkTime);
            nonNegative(where + ": from", from);
            nonNegative(where + ": until", until);
            nonNegative(where + ": retryDelay", retryDelay);
            if (serviceMin.compareTo(Duration.ofNanos(1000)) < 0) {
                throw new IllegalArgumentException(where + ": serviceTime must be at least 1us, was " + serviceMin);
            }
            if (serviceMax.compareTo(serviceMin) < 0) {
                throw new IllegalArgumentException(where + ": serviceTime max must be at least min, was " + serviceMax
                        + " < " + serviceMin);
            }
            if (timeout.compareTo(Duration.ofMillis(1)) < 0) {
                throw new IllegalArgumentException(where + ": timeout must be at least 1ms, was " + timeout);
            }
            if (until.compareTo(from) < 0) {
                throw new IllegalArgumentException(where + ": until must not be before from (" + until + " < " + from + ")");
            }
        }

        /** @return the mean service time in seconds */
        public double meanServiceSeconds() {
            return (serviceMin.toNanos() + serviceMax.toNanos()) / 2e9;
        }
    }

    /**
     * How a client population looks to the routing layer, and how it retries.
     *
     * @param keys affinity keys (source addresses or cookie jars) the population's connections share:
     *        0 = each connection its own (affinity keeps nothing together); 1 = one key (a script
     *        behind one host or NAT); K = connections and clients spread over K keys (closed loop:
     *        client {@code c} has key {@code c mod K}; open loop: a key at random per connection), 0–10,000,000
     * @param http2 closed loop: the clients' requests are multiplexed over {@code connections} HTTP/2
     *        connections (default 1), each routed once and kept until its pod's process ends, so
     *        through kube-proxy one connection puts all its requests on one pod; an ingress balances
     *        them per request
     * @param retryBackoff the retry delay grows by this factor per attempt (retry n waits retryDelay ×
     *        retryBackoff^(n−1), at most {@link FleetSpec#MAX_DELAY_STEPS} steps), 1–10; 1 = a fixed delay
     * @param node the node the clients run on, for node-local routing; -1 = outside the cluster
     *        (internalTrafficPolicy and trafficDistribution do not apply)
     * @param retryOn the failures a client retries (up to {@code retries}); the others fail the request at once
     */
    public record ClientPolicy(int keys, boolean http2, double retryBackoff, int node, java.util.Set<Failure> retryOn) {
        /** Every connection its own key, HTTP/1.1, a fixed retry delay, outside the cluster, retrying every failure. */
        public static final ClientPolicy DEFAULT = new ClientPolicy(0, false, 1, -1);

        /**
         * A policy that retries every kind of failure.
         *
         * @param keys affinity keys
         * @param http2 closed loop: requests multiplexed over kept connections
         * @param retryBackoff 1–10
         * @param node the clients' node, or -1
         * @throws IllegalArgumentException naming the field and bound
         */
        public ClientPolicy(int keys, boolean http2, double retryBackoff, int node) {
            this(keys, http2, retryBackoff, node, java.util.EnumSet.allOf(Failure.class));
        }

        /**
         * Validates the bounds.
         *
         * @param keys affinity keys, 0–10,000,000 (0 = one per connection)
         * @param http2 closed loop: requests multiplexed over kept connections
         * @param retryBackoff 1–10
         * @param node the clients' node, -1 or 0–4,999
         * @param retryOn the failures retried
         * @throws IllegalArgumentException naming the field and bound
         */
        public ClientPolicy {
            retryOn = java.util.Collections.unmodifiableSet(retryOn.isEmpty() ? java.util.EnumSet.noneOf(Failure.class)
                    : java.util.EnumSet.copyOf(retryOn));
            if (keys < 0 || keys > 10_000_000) {
                throw new IllegalArgumentException("keys must be 0-10000000, was " + keys);
            }
            if (!(retryBackoff >= 1 && retryBackoff <= 10)) {
                throw new IllegalArgumentException("retryBackoff must be 1-10, was " + retryBackoff);
            }
            if (node < -1 || node >= MAX_REPLICAS) {
                throw new IllegalArgumentException("node must be 0-" + (MAX_REPLICAS - 1) + ", was " + node);
            }
        }
    }

    /** Why an attempt failed, as a client sees it (what {@link ClientPolicy#retryOn()} selects). */
    public enum Failure {
        /** No answer within the client's timeout (also: a connection dropped by internalTrafficPolicy Local). */
        TIMEOUT,
        /** The connection was reset: the pod's process ended with the request in it. */
        RESET,
        /** The connection was refused: no endpoint, or an endpoint whose process is not listening. */
        REFUSED,
        /** An error answer: a full queue (503) or a failed dependency. */
        ERROR_5XX;

        /** @return its name in fleet files: {@code timeout}, {@code reset}, {@code refused}, {@code 5xx} */
        public String label() {
            return this == ERROR_5XX ? "5xx" : name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /**
     * A fleet spec's timed action (its {@code actions: - {at, kill}}): the container of one replica is
     * killed (OOM, a node drain, a deploy). Not a {@code scenario.Action}: it targets one replica of N.
     *
     * @param at when, from scenario start
     * @param replica which replica, 0-based
     */
    public record Kill(Duration at, int replica) {
        /**
         * Validates the components.
         *
         * @param at when, from scenario start
         * @param replica which replica, 0-based
         * @throws IllegalArgumentException if {@code at} is negative or {@code replica} below 0
         */
        public Kill {
            nonNegative("actions.at", at);
            if (replica < 0) {
                throw new IllegalArgumentException("actions: replica must be at least 0, was " + replica);
            }
        }
    }

    static void nonNegative(String name, Duration d) {
        Objects.requireNonNull(d, name);
        if (d.isNegative()) {
            throw new IllegalArgumentException(name + " must not be negative, was " + d);
        }
    }
}
