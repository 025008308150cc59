package dev.vitals.kubesim.fleet;

import java.util.Arrays;

/**
 * One replica's application server in the model engine (DESIGN.md 7.3, "Queue"): W workers serve
 * a FIFO queue of {@link Cohort}s; a request that starts at s with service time S ends at s + S,
 * S split at the quartiles of [min, max] (two waves, not one); requests in service sit in a
 * min-heap of batches by completion time. Whether it takes requests is its {@link Server} state,
 * which follows the process ({@link ModelReplica}). Outcomes go to the engine. Engine thread only.
 */
final class WorkerPool {
    /** Whether the server takes and serves requests; moves only through {@link #move(Server)}. */
    enum Server {
        /** No process answers (not started, starting, exited): requests are refused. */
        CLOSED,
        /** Takes and serves requests. */
        OPEN,
        /** SIGTERM: refuses new requests, serves those it holds until the process exits. */
        DRAINING;

        /** @return whether the server may move from this state to {@code next} */
        boolean canMoveTo(Server next) {
            return switch (this) {
                case CLOSED -> next == OPEN;
                case OPEN -> next == DRAINING || next == CLOSED;
                case DRAINING -> next == CLOSED;
            };
        }
    }

    private static final Cohort[] NO_COHORTS = new Cohort[0];
    private static final double[] NO_ENDS = new double[0];
    private static final int[] NO_COUNTS = new int[0];

    private final ModelFleet fleet;
    private final ModelReplica replica;
    /** The replica's index and version (0: the old ReplicaSet or no rollout, 1: the new one), read on every answer. */
    final int index;
    final int version;
    /** Whether the service-time factor is always 1 (no cold start to model): the hot path skips asking the replica. */
    private final boolean alwaysWarm;
    private final int workers;
    private final int queueLimit;
    private Server server = Server.CLOSED;
    // waiting requests: a FIFO ring of cohorts
    // the arrays are allocated at the first request that waits: the pools of a large fleet stay
    // small and close together in memory, which the step's loops over every replica read
    private Cohort[] q = NO_COHORTS;
    private int head;
    private int size;
    private long inSystem; // waiting + in service
    private int busy; // workers in service
    private double waitingWork; // worker-seconds the waiting requests need
    // requests in service: a min-heap of batches by completion time
    private double[] bEnd = NO_ENDS;
    private int[] bCount = NO_COUNTS;
    private Cohort[] bOwner = NO_COHORTS;
    private int bSize;

    WorkerPool(ModelFleet fleet, ModelReplica replica, FleetSpec.Replica spec) {
        this.fleet = fleet;
        this.replica = replica;
        this.index = replica.index;
        this.version = replica.version;
        this.alwaysWarm = version == 0 && (spec.warmupFactor() <= 1 || spec.warmupTime().isZero());
        this.workers = spec.workers();
        this.queueLimit = spec.queueLimit();
    }

    Server server() {
        return server;
    }

    /** @return whether new requests are taken */
    boolean accepting() {
        return server == Server.OPEN;
    }

    /** @return whether requests are served and there are some */
    boolean serving() {
        return server != Server.CLOSED && inSystem > 0;
    }

    /** @return requests waiting or in service */
    long inSystem() {
        return inSystem;
    }

    /** @return the replica's service-time factor now ({@link ModelReplica#warmup()}) */
    private double warmup() {
        return alwaysWarm ? 1 : replica.warmup();
    }

    /** @return workers not serving a request */
    int freeWorkers() {
        return workers - busy;
    }

    /** @return whether the accept queue is full (a probe on the pool is refused too) */
    boolean full() {
        return queueLimit != Integer.MAX_VALUE && inSystem - busy >= queueLimit;
    }

    /**
     * The one assignment of the server state.
     *
     * @throws IllegalStateException on a move {@link Server#canMoveTo} refuses (a model bug)
     */
    void move(Server next) {
        if (!server.canMoveTo(next)) {
            throw new IllegalStateException("model replica " + index + ": no server move " + server + " → " + next);
        }
        server = next;
        publish();
    }

    /**
     * Tells the engine how many requests this pool would answer within the step as they arrive
     * (free workers while it is open and nothing waits; −1 otherwise) and when it next has work to
     * serve: the step's loops read that from small arrays instead of from every pool
     * ({@link ModelFleet#deliver}).
     */
    private void publish() {
        fleet.published(index, server == Server.OPEN && size == 0 ? workers - busy : -1, workDue());
    }

    /**
     * @return when {@link #serve} next has work, s: never (+∞) with nothing to serve, at once (−∞)
     *     while requests wait for a worker, else when the first request in service ends (a step
     *     that ends before then would change nothing: with nothing waiting the waiting work is 0)
     */
    private double workDue() {
        if (!serving()) {
            return Double.POSITIVE_INFINITY;
        }
        return size > 0 || bSize == 0 ? Double.NEGATIVE_INFINITY : bEnd[0];
    }

    /** The process ended: every request in it fails (connection reset) and is retried by its client. */
    void close() {
        if (server != Server.CLOSED) {
            move(Server.CLOSED);
        }
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
        publish();
    }

    /** Connection reset: the client sees a failed attempt for every request not yet answered. */
    private void fail(Cohort c) {
        if (c.n > 0 && !c.abandoned) {
            c.abandoned = true;
            fleet.failedOn(this, c.pop, c.n, c.attempt, FleetSpec.Failure.RESET);
        }
        c.n = 0;
        c.waiting = 0;
    }

    /**
     * {@code count} attempts number {@code attempt} of {@code p} arrive now (the start of a step):
     * beyond W + queue limit they are refused (5xx); those that find free workers and end within
     * the step are answered at once; the rest queue as one cohort.
     */
    void enqueue(ClientPopulation p, int count, int attempt) {
        long room = queueLimit == Integer.MAX_VALUE ? Long.MAX_VALUE : (long) queueLimit - (inSystem - busy) + Math.max(0, workers - busy);
        int accepted = (int) Math.max(0, Math.min(count, room));
        if (accepted < count) {
            fleet.failedOn(this, p, count - accepted, attempt, FleetSpec.Failure.ERROR_5XX); // queue full: rejected at once
        }
        if (accepted == 0) {
            return;
        }
        boolean error = p.c.usesDependency() && fleet.dependencyDown();
        if (size == 0 && busy + accepted <= workers && answeredAtOnce(p, accepted, attempt, error)) {
            return;
        }
        Cohort c;
        if (error) {
            double f = Math.max(1e-6, fleet.dependencyFailSeconds());
            c = new Cohort(p, index, attempt, fleet.now(), f, f, true, accepted);
        } else {
            double w = warmup();
            c = new Cohort(p, index, attempt, fleet.now(), p.serviceLow * w, p.serviceHigh * w, false, accepted);
        }
        push(c);
        // a request that starts at once and ends before its timeout can only fail by a reset,
        // which close() handles: it needs no timeout entry
        boolean startsNow = size == 1 && busy + accepted <= workers;
        inSystem += accepted;
        fleet.inFlight(index, inSystem);
        waitingWork += accepted * c.meanService();
        // the pods' own traffic has no client that gives up: no timeout entry
        if (!p.background && (!startsNow || c.serviceHigh >= p.timeoutSeconds)) {
            fleet.timeoutAfter(p.timeoutSteps, c);
        }
        publish();
    }

    /**
     * Fast path: enqueues happen at the start of a step; requests that find free workers and end
     * within this step are answered here, as {@link #serve} would answer them.
     *
     * @return whether they were answered
     */
    private boolean answeredAtOnce(ClientPopulation p, int accepted, int attempt, boolean error) {
        double lo = error ? fleet.dependencyFailSeconds() : p.serviceLow * warmup();
        double hi = error ? lo : p.serviceHigh * warmup();
        if (hi > fleet.dt()) {
            return false;
        }
        if (error) {
            fleet.failedOn(this, p, accepted, attempt, FleetSpec.Failure.ERROR_5XX);
        } else {
            fleet.answeredAtOnce(p, accepted, lo, hi, index);
        }
        return true;
    }

    private void push(Cohort c) {
        if (size == q.length) {
            Cohort[] nq = new Cohort[Math.max(8, q.length * 2)];
            for (int i = 0; i < size; i++) {
                nq[i] = q[(head + i) % q.length];
            }
            q = nq;
            head = 0;
        }
        q[(head + size) % q.length] = c;
        size++;
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
                    fleet.failedOn(this, c.pop, k, c.attempt, FleetSpec.Failure.ERROR_5XX);
                } else {
                    fleet.succeeded(c.pop, k, e - c.arrival, index);
                }
            }
            startWaiting(e);
        }
        publish();
    }

    private void startWaiting(double t) {
        while (busy < workers && size > 0) {
            Cohort c = q[head];
            int m = Math.min(c.waiting, workers - busy);
            if (m > 0) {
                if (c.serviceHigh > c.serviceLow && m > 1) {
                    // two halves at the quartiles of [min, max]: a spread, not one wave
                    double span = c.serviceHigh - c.serviceLow;
                    int lo = m / 2;
                    pushBatch(t + c.serviceLow + span / 4, lo, c);
                    pushBatch(t + c.serviceLow + 3 * span / 4, m - lo, c);
                } else {
                    pushBatch(t + (m == 1 ? c.serviceLow + fleet.draws().uniform() * (c.serviceHigh - c.serviceLow) : c.serviceLow),
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
            int n = Math.max(8, bSize * 2);
            bEnd = Arrays.copyOf(bEnd, n);
            bCount = Arrays.copyOf(bCount, n);
            bOwner = Arrays.copyOf(bOwner, n);
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

    /**
     * How long a probe served on the worker pool waits for a worker: nothing while a worker
     * is free, else until the first request in service ends plus the waiting work shared by
     * the workers (DESIGN.md 7.3).
     */
    double poolWait(double now) {
        if (busy < workers || bSize == 0) {
            return 0;
        }
        return Math.max(0, bEnd[0] - now) + waitingWork / workers;
    }
}
