package dev.vitals.grpc;

import dev.vitals.Groups;
import dev.vitals.HealthRegistry;
import dev.vitals.Report;
import dev.vitals.grpc.HealthProtocol.ServingStatus;
import io.grpc.BindableService;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code grpc.health.v1.Health} ({@code Check}, {@code List} and {@code Watch}) answered from a
 * {@link HealthRegistry}, as a {@link BindableService}.
 *
 * <p><b>Not isolated.</b> Added to the application's own gRPC server, its calls wait behind that
 * server's interceptors, executor, rate limiters and connection limits — the shape of the failure
 * Vitals exists to prevent (DESIGN.md P1). Use it only when a team must serve probes on one
 * port; {@link GrpcHealthServer} serves the same service on its own port and event loop.
 * Do not also register grpc-java's {@code HealthStatusManager} service on the same server: both
 * claim the service name {@value HealthProtocol#SERVICE_NAME}.
 *
 * <pre>{@code
 * GrpcHealthService health = GrpcHealthService.builder(registry)
 *         .service("shop.Orders", Groups.READINESS)   // a name kubelet's probe may send
 *         .build();
 * Server app = ServerBuilder.forPort(9090).addService(orders).addService(health).build().start();
 * }</pre>
 *
 * <p>Service names map to groups: every group of the registry by its own name ({@code liveness},
 * {@code readiness}, {@code startup}, custom groups), names added with
 * {@link Builder#service(String, String)}, and {@code ""} (the whole server) to
 * {@link Builder#serverGroup(String)}, readiness by default. Another name is {@code NOT_FOUND}
 * on {@code Check} and {@code SERVICE_UNKNOWN} on {@code Watch}, whose stream stays open (both
 * as health.proto says). A group that is {@code UP} or {@code DEGRADED} is {@code SERVING};
 * {@code DOWN} and {@code UNKNOWN} are {@code NOT_SERVING}; after
 * {@link #enterTerminalState()} every known service is {@code NOT_SERVING}.
 *
 * <p>Answers come from memory: {@link HealthRegistry#report(String)} for scheduled groups; a
 * group with on-demand checks is evaluated with
 * {@link HealthRegistry#evaluate(String, java.util.Collection, Duration)} under the
 * {@linkplain Builder#probeBudget(Duration) probe budget} (800 ms, below the kubelet's default
 * {@code timeoutSeconds: 1}, as vitals-server's probes): its checks run on Vitals' check executor
 * (never on a gRPC thread), and a check still running when the budget ends reads as its last
 * result if younger than its {@code maxAge}, else UNKNOWN ({@code NOT_SERVING}); the answer is
 * sent from the thread that completes it.
 *
 * <p>{@code List} (gRFC A90) answers every service name above — {@code ""}, each group, each
 * added name — with the status {@code Check} would give it, in one response. More than
 * {@value #LIST_LIMIT} names is {@code RESOURCE_EXHAUSTED} (the gRFC's cap), never a partial list.
 * grpc-java's own {@code HealthStatusManager} has no {@code List} ({@code UNIMPLEMENTED}).
 *
 * <p>{@code Watch} sends the current status at once, then each change. Changes are found by
 * reading the in-memory reports every {@link Builder#watchInterval(Duration)} (100 ms by default)
 * on the registry's scheduler while at least one stream is open, so a drain or a stale check
 * reaches watchers within one interval. A watcher whose client does not read gets at most one
 * pending status (the latest), never a queue. At most {@link Builder#maxWatchStreams(int)}
 * streams are open at once; the next one is closed with {@code RESOURCE_EXHAUSTED}.
 *
 * <p>Thread-safe.
 */
public final class GrpcHealthService implements BindableService {
    private static final System.Logger LOG = System.getLogger("dev.vitals.grpc");

    /** The default {@link Builder#probeBudget(Duration)}: 800 ms, below the kubelet's default {@code timeoutSeconds: 1}. */
    public static final Duration DEFAULT_PROBE_BUDGET = Duration.ofMillis(800);

    /** The most service names {@code List} answers (gRFC A90); beyond it, {@code RESOURCE_EXHAUSTED}. */
    public static final int LIST_LIMIT = 100;

    private final HealthRegistry registry;
    private final String serverGroup;
    private final Map<String, String> aliases;
    private final int maxWatchStreams;
    private final long watchIntervalNanos;
    private final Duration probeBudget;

    private final Set<Watch> watches = ConcurrentHashMap.newKeySet();
    private final AtomicInteger watchSlots = new AtomicInteger();
    private final AtomicBoolean ticking = new AtomicBoolean();
    private final Map<String, AtomicBoolean> evaluating = new ConcurrentHashMap<>();
    private volatile boolean terminal;

    private GrpcHealthService(Builder b) {
        this.registry = b.registry;
        this.serverGroup = b.serverGroup;
        this.aliases = Collections.unmodifiableMap(new LinkedHashMap<>(b.aliases));
        this.maxWatchStreams = b.maxWatchStreams;
        this.watchIntervalNanos = b.watchInterval.toNanos();
        this.probeBudget = b.probeBudget;
    }

    /**
     * @param registry the registry to answer from
     * @return a builder with the defaults
     * @throws NullPointerException if {@code registry} is null
     */
    public static Builder builder(HealthRegistry registry) {
        return new Builder(registry);
    }

    @Override
    public ServerServiceDefinition bindService() {
        return ServerServiceDefinition.builder(HealthProtocol.SERVICE_NAME)
                .addMethod(HealthProtocol.CHECK, new CheckHandler())
                .addMethod(HealthProtocol.LIST, new ListHandler())
                .addMethod(HealthProtocol.WATCH, new WatchHandler())
                .build();
    }

    /**
     * @param service a service name as a client sends it
     * @return the group that answers it, or empty when the service is unknown
     */
    public Optional<String> groupOf(String service) {
        return Optional.ofNullable(resolve(Objects.requireNonNull(service, "service")));
    }

    /** @return the service names served besides the groups' own: {@code ""} and the aliases */
    public Map<String, String> services() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("", serverGroup);
        m.putAll(aliases);
        return Collections.unmodifiableMap(m);
    }

    /**
     * @return every service name {@code List} reports and the group that answers it: {@code ""},
     *     each group of the registry by its name, then the added names; at most
     *     {@value #LIST_LIMIT} are served
     */
    public Map<String, String> listedServices() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("", serverGroup);
        for (String g : registry.groups()) {
            m.put(g, g);
        }
        m.putAll(aliases);
        return Collections.unmodifiableMap(m);
    }

    /** @return Watch streams open now */
    public int watchStreams() {
        return watches.size();
    }

    /**
     * Every known service turns {@code NOT_SERVING} for good, and open {@code Watch} streams are
     * told at once (as grpc-java's {@code HealthStatusManager.enterTerminalState}). Call it when
     * the server is about to stop; a drain ({@link dev.vitals.Availability#drain(Duration)}) comes
     * before it. Idempotent.
     */
    public void enterTerminalState() {
        terminal = true;
        for (Watch w : watches) {
            w.deliver(w.group == null ? ServingStatus.SERVICE_UNKNOWN : ServingStatus.NOT_SERVING);
        }
    }

    /** @return whether {@link #enterTerminalState()} was called */
    public boolean isTerminal() {
        return terminal;
    }

    /**
     * Enters the terminal state and closes every open {@code Watch} stream with
     * {@code UNAVAILABLE}, so a graceful server shutdown need not wait for them. Idempotent.
     */
    public void closeWatchStreams() {
        enterTerminalState();
        for (Watch w : watches) {
            w.close(Status.UNAVAILABLE.withDescription("health service stopping"));
        }
    }

    // ---------------------------------------------------------------- internals

    String resolve(String service) {
        if (service.isEmpty()) {
            return serverGroup;
        }
        String alias = aliases.get(service);
        if (alias != null) {
            return alias;
        }
        return registry.groups().contains(service) ? service : null;
    }

    /** The in-memory status of a group, as the protocol names it. */
    ServingStatus current(String group) {
        if (terminal) {
            return ServingStatus.NOT_SERVING;
        }
        try {
            return toServing(registry.report(group));
        } catch (IllegalStateException | NoSuchElementException e) {
            return ServingStatus.NOT_SERVING; // registry closed
        }
    }

    private ServingStatus toServing(Report r) {
        return !terminal && r.status().isHealthy() ? ServingStatus.SERVING : ServingStatus.NOT_SERVING;
    }

    private boolean onDemand(String group) {
        try {
            return registry.hasOnDemandChecks(group);
        } catch (RuntimeException e) {
            return false;
        }
    }

    private CompletableFuture<Report> evaluate(String group) {
        try {
            return registry.evaluate(group, Set.of(), probeBudget);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private static <R> void answer(ServerCall<String, R> call, R message) {
        try {
            call.sendHeaders(new Metadata());
            call.sendMessage(message);
            call.close(Status.OK, new Metadata());
        } catch (IllegalStateException e) {
            // the call was cancelled or closed meanwhile: nothing to answer
        }
    }

    private static <T, R> ServerCall.Listener<T> closeAtOnce(ServerCall<String, R> call, Status status) {
        call.close(status, new Metadata());
        return new ServerCall.Listener<T>() {
        };
    }

    /** One request message, then half-close; anything else is INVALID_ARGUMENT (as grpc-stub). */
    private abstract static class OneRequest<R> extends ServerCall.Listener<String> {
        final ServerCall<String, R> call;
        private final String requestType;
        String request;
        boolean failed;

        OneRequest(ServerCall<String, R> call, String requestType) {
            this.call = call;
            this.requestType = requestType;
        }

        @Override
        public void onMessage(String message) {
            if (failed) {
                return;
            }
            if (message == HealthProtocol.MALFORMED) {
                failed = true;
                rejected();
                call.close(Status.INVALID_ARGUMENT.withDescription("malformed grpc.health.v1." + requestType), new Metadata());
                return;
            }
            if (request != null) {
                failed = true;
                rejected();
                call.close(Status.INVALID_ARGUMENT.withDescription("too many requests: one " + requestType + " per call"),
                        new Metadata());
                return;
            }
            request = message;
        }

        @Override
        public void onHalfClose() {
            if (failed) {
                return;
            }
            if (request == null) {
                failed = true;
                rejected();
                call.close(Status.INVALID_ARGUMENT.withDescription("half-closed without a " + requestType), new Metadata());
                return;
            }
            received(request);
        }

        abstract void received(String service);

        void rejected() {
        }
    }

    private final class CheckHandler implements ServerCallHandler<String, ServingStatus> {
        @Override
        public ServerCall.Listener<String> startCall(ServerCall<String, ServingStatus> call, Metadata headers) {
            call.request(2);
            return new OneRequest<>(call, "HealthCheckRequest") {
                @Override
                void received(String service) {
                    check(call, service);
                }
            };
        }
    }

    private final class ListHandler implements ServerCallHandler<String, Map<String, ServingStatus>> {
        @Override
        public ServerCall.Listener<String> startCall(ServerCall<String, Map<String, ServingStatus>> call, Metadata headers) {
            call.request(2);
            return new OneRequest<>(call, "HealthListRequest") {
                @Override
                void received(String ignored) {
                    list(call);
                }
            };
        }
    }

    /**
     * Answers every listed service at once: each group is read (or, on demand, evaluated) once,
     * however many names map to it; the answer goes out when the slowest evaluation completes.
     */
    private void list(ServerCall<String, Map<String, ServingStatus>> call) {
        Map<String, String> services = listedServices();
        if (services.size() > LIST_LIMIT) {
            call.close(Status.RESOURCE_EXHAUSTED.withDescription("server health list exceeds maximum capacity: "
                    + LIST_LIMIT + " (" + services.size() + " services)"), new Metadata());
            return;
        }
        Map<String, CompletableFuture<ServingStatus>> byGroup = new LinkedHashMap<>();
        for (String group : services.values()) {
            byGroup.computeIfAbsent(group, g -> terminal || !onDemand(g)
                    ? CompletableFuture.completedFuture(current(g))
                    : evaluate(g).handle((r, e) -> r == null ? ServingStatus.NOT_SERVING : toServing(r)));
        }
        CompletableFuture.allOf(byGroup.values().toArray(new CompletableFuture<?>[0])).whenComplete((v, e) -> {
            Map<String, ServingStatus> statuses = new LinkedHashMap<>();
            services.forEach((service, group) -> statuses.put(service, byGroup.get(group).join()));
            answer(call, statuses);
        });
    }

    private void check(ServerCall<String, ServingStatus> call, String service) {
        String group = resolve(service);
        if (group == null) {
            call.close(Status.NOT_FOUND.withDescription("unknown service"), new Metadata());
            return;
        }
        if (terminal || !onDemand(group)) {
            answer(call, current(group));
            return;
        }
        evaluate(group).whenComplete((r, e) -> answer(call, r == null ? ServingStatus.NOT_SERVING : toServing(r)));
    }

    private final class WatchHandler implements ServerCallHandler<String, ServingStatus> {
        @Override
        public ServerCall.Listener<String> startCall(ServerCall<String, ServingStatus> call, Metadata headers) {
            if (watchSlots.incrementAndGet() > maxWatchStreams) {
                watchSlots.decrementAndGet();
                return closeAtOnce(call, Status.RESOURCE_EXHAUSTED.withDescription(
                        "too many Watch streams (limit " + maxWatchStreams + ")"));
            }
            Watch w = new Watch(call);
            call.request(2);
            return w;
        }
    }

    private final class Watch extends OneRequest<ServingStatus> {
        private final AtomicBoolean released = new AtomicBoolean();
        volatile String group;
        private ServingStatus sent;
        private ServingStatus pending;
        private boolean closed;

        Watch(ServerCall<String, ServingStatus> call) {
            super(call, "HealthCheckRequest");
        }

        @Override
        void received(String service) {
            group = resolve(service);
            synchronized (this) {
                call.sendHeaders(new Metadata());
            }
            watches.add(this);
            if (group == null) {
                deliver(ServingStatus.SERVICE_UNKNOWN);
            } else {
                deliver(current(group));
                if (!terminal && onDemand(group)) {
                    refresh(group);
                }
            }
            ensureTicking();
        }

        @Override
        void rejected() {
            release();
        }

        @Override
        public void onReady() {
            synchronized (this) {
                if (!closed && pending != null && call.isReady()) {
                    send(pending);
                }
            }
        }

        @Override
        public void onCancel() {
            release();
        }

        @Override
        public void onComplete() {
            release();
        }

        /** Sends {@code s} if it differs from what the client last got; holds only the latest if the client is not reading. */
        void deliver(ServingStatus s) {
            synchronized (this) {
                if (closed || s == sent && pending == null) {
                    return;
                }
                if (s == sent) {
                    pending = null;
                    return;
                }
                if (call.isReady()) {
                    send(s);
                } else {
                    pending = s;
                }
            }
        }

        private void send(ServingStatus s) {
            try {
                call.sendMessage(s);
                sent = s;
                pending = null;
            } catch (IllegalStateException e) {
                closed = true;
            }
        }

        void close(Status status) {
            synchronized (this) {
                if (closed) {
                    return;
                }
                closed = true;
                try {
                    call.close(status, new Metadata());
                } catch (IllegalStateException e) {
                    // already closed
                }
            }
            release();
        }

        private void release() {
            if (released.compareAndSet(false, true)) {
                synchronized (this) {
                    closed = true;
                }
                watches.remove(this);
                watchSlots.decrementAndGet();
            }
        }
    }

    private void ensureTicking() {
        if (!watches.isEmpty() && ticking.compareAndSet(false, true)) {
            schedule();
        }
    }

    private void schedule() {
        try {
            registry.scheduler().schedule(watchIntervalNanos, this::tick);
        } catch (RejectedExecutionException e) {
            ticking.set(false); // the registry is closed: watchers keep their last status
        }
    }

    private void tick() {
        try {
            Map<String, ServingStatus> byGroup = new LinkedHashMap<>();
            for (Watch w : watches) {
                String g = w.group;
                if (g == null) {
                    continue;
                }
                ServingStatus s = byGroup.get(g);
                if (s == null) {
                    s = current(g);
                    byGroup.put(g, s);
                    if (!terminal && onDemand(g)) {
                        refresh(g);
                    }
                }
                w.deliver(s);
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "grpc health: Watch update failed: " + e);
        }
        if (watches.isEmpty()) {
            ticking.set(false);
            if (watches.isEmpty() || !ticking.compareAndSet(false, true)) {
                return;
            }
        }
        schedule();
    }

    /** Starts one evaluation of an on-demand group (if none is in flight) and tells its watchers the result. */
    private void refresh(String group) {
        AtomicBoolean busy = evaluating.computeIfAbsent(group, g -> new AtomicBoolean());
        if (!busy.compareAndSet(false, true)) {
            return;
        }
        evaluate(group).whenComplete((r, e) -> {
            busy.set(false);
            ServingStatus s = r == null ? ServingStatus.NOT_SERVING : toServing(r);
            for (Watch w : watches) {
                if (group.equals(w.group)) {
                    w.deliver(s);
                }
            }
        });
    }

    /**
     * Builds a {@link GrpcHealthService}. Not thread-safe; {@link #build()} may be called more
     * than once.
     */
    public static final class Builder {
        private final HealthRegistry registry;
        private String serverGroup = Groups.READINESS;
        private final Map<String, String> aliases = new LinkedHashMap<>();
        private int maxWatchStreams = 100;
        private Duration watchInterval = Duration.ofMillis(100);
        private Duration probeBudget = DEFAULT_PROBE_BUDGET;

        private Builder(HealthRegistry registry) {
            this.registry = Objects.requireNonNull(registry, "registry");
        }

        /**
         * @param group the group that answers service {@code ""} (the whole server); default
         *     {@code readiness}
         * @return this builder
         * @throws IllegalArgumentException if the registry has no such group
         */
        public Builder serverGroup(String group) {
            this.serverGroup = requireGroup(group, "serverGroup");
            return this;
        }

        /**
         * Adds a service name answered by a group, for a probe whose {@code service} field names
         * the application's own service (for example {@code "shop.Orders"}).
         *
         * @param service the name, not empty (use {@link #serverGroup(String)} for {@code ""})
         * @param group a group of the registry
         * @return this builder
         * @throws IllegalArgumentException if {@code service} is empty or {@code group} unknown
         */
        public Builder service(String service, String group) {
            Objects.requireNonNull(service, "service");
            if (service.isEmpty()) {
                throw new IllegalArgumentException("service must not be empty; \"\" is set with serverGroup(group)");
            }
            aliases.put(service, requireGroup(group, "service '" + service + "'"));
            return this;
        }

        /**
         * @param max concurrent {@code Watch} streams, 1–100000; default 100. Kubelet never
         *     watches; the cap bounds what other pods can hold open.
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder maxWatchStreams(int max) {
            if (max < 1 || max > 100_000) {
                throw new IllegalArgumentException("maxWatchStreams must be 1–100000, was " + max);
            }
            this.maxWatchStreams = max;
            return this;
        }

        /**
         * @param interval how often open {@code Watch} streams are compared with the in-memory
         *     reports, 10 ms–10 s; default 100 ms
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder watchInterval(Duration interval) {
            Objects.requireNonNull(interval, "interval");
            if (interval.compareTo(Duration.ofMillis(10)) < 0 || interval.compareTo(Duration.ofSeconds(10)) > 0) {
                throw new IllegalArgumentException("watchInterval must be 10 ms–10 s, was " + interval);
            }
            this.watchInterval = interval;
            return this;
        }

        /**
         * How long an answer ({@code Check}, {@code List}, a {@code Watch}'s update) waits for the
         * on-demand checks of its group; then it is answered with what is known: a check still
         * running reads as its last result if younger than its {@code maxAge}, else UNKNOWN
         * ({@code NOT_SERVING}), and its execution goes on for the next call (as vitals-server's
         * {@code probeBudget}). Scheduled groups are answered from memory and never wait.
         *
         * @param budget 1 ms–60 s; default {@link #DEFAULT_PROBE_BUDGET} (800 ms). Keep it a few
         *     hundred ms under the probe's {@code timeoutSeconds}
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder probeBudget(Duration budget) {
            Objects.requireNonNull(budget, "budget");
            if (budget.compareTo(Duration.ofMillis(1)) < 0 || budget.compareTo(Duration.ofSeconds(60)) > 0) {
                throw new IllegalArgumentException("probeBudget must be 1 ms–60 s, was " + budget);
            }
            this.probeBudget = budget;
            return this;
        }

        /** @return the service */
        public GrpcHealthService build() {
            return new GrpcHealthService(this);
        }

        private String requireGroup(String group, String what) {
            Objects.requireNonNull(group, "group");
            if (!registry.groups().contains(group)) {
                throw new IllegalArgumentException(what + ": no group '" + group + "'; groups are " + registry.groups());
            }
            return group;
        }
    }
}
