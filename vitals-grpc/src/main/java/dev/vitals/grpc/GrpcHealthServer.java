package dev.vitals.grpc;

import dev.vitals.HealthRegistry;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.MultiThreadIoEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.nio.NioIoHandler;
import io.grpc.netty.shaded.io.netty.util.concurrent.FastThreadLocalThread;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The isolated gRPC health server (DESIGN.md P1, section 6b): {@code grpc.health.v1.Health}
 * ({@code Check}, {@code List}, {@code Watch}) on its own port and its own Netty event loop,
 * which Vitals creates and never shares with the application, with no interceptor but its own
 * (the connection cap's).
 *
 * <pre>{@code
 * GrpcHealthServer grpc = GrpcHealthServer.builder(registry)
 *         .port(8082)
 *         .service("shop.Orders", Groups.READINESS)
 *         .build()
 *         .start();
 * ...
 * grpc.stop(Duration.ofSeconds(2));
 * }</pre>
 *
 * <p>Kubernetes: {@code livenessProbe: {grpc: {port: 8082, service: liveness}}}; a probe without
 * {@code service} sends {@code ""}, answered by readiness unless
 * {@link Builder#serverGroup(String)} says otherwise. The service semantics are those of
 * {@link GrpcHealthService}.
 *
 * <p>Calls run on the event loop itself (grpc-java's direct executor): a call only reads an
 * in-memory report (≈ 30 ns) or hands an on-demand group to Vitals' check executor, so nothing on
 * a gRPC thread ever blocks or runs a check, and there is no executor queue for a flood to fill.
 *
 * <p>Limits, since every pod in the cluster can reach the port (defaults in brackets):
 * connections open [1024] and per peer address [256, a quarter], where a new connection is never
 * refused but the one longest without a call is closed to make room (vitals-server's policy);
 * concurrent calls per connection (HTTP/2 MAX_CONCURRENT_STREAMS) [32]; inbound message [1 KiB]
 * and metadata [8 KiB] size; HTTP/2 flow-control window [64 KiB]; a connection must send its first
 * bytes within [5 s] (until then it waits at a gate, unregistered: a flood of silent connections
 * costs no HTTP/2 set-up, so a probe's connection does not queue behind one; ready connections are
 * set up one per peer address in turn) and then finish its HTTP/2 handshake within [5 s], is
 * closed after [60 s] without calls and after at most [5 min]
 * plus a [10 s] grace (a Watch client reconnects); client keep-alive pings more often than every
 * [10 s], or without calls, end the connection; more than 200 RST_STREAM in 10 s (rapid reset)
 * end it too; Watch streams are capped [100]. A client that never reads holds at most its
 * connection's call limit of unsent answers; other connections' Checks are not delayed, since
 * the event loop never waits for a socket. grpc-java's per-stream WARNING logs for errors a client
 * causes are kept out of the application's log when they come from this server's threads (one
 * DEBUG line per 1000 on {@code dev.vitals.grpc} instead), so no pod can flood the log.
 *
 * <p>Threads: {@code vitals-grpc-N}, daemons, one per event-loop thread (1 on machines with
 * ≤ 2 cores, else 2). Watch updates run on the registry's scheduler. Thread-safe.
 */
public final class GrpcHealthServer implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger("dev.vitals.grpc");
    static final String THREAD_PREFIX = "vitals-grpc-";
    private static final AtomicInteger THREAD_IDS = new AtomicInteger();

    private final GrpcHealthService service;
    private final InetAddress bindAddress;
    private final int port;
    private final int eventLoopThreads;
    private final int maxCallsPerConnection;
    private final int maxInboundMessageSize;
    private final int maxInboundMetadataSize;
    private final int flowControlWindow;
    private final Duration handshakeTimeout;
    private final Duration maxConnectionIdle;
    private final Duration maxConnectionAge;
    private final Duration maxConnectionAgeGrace;
    private final Duration permitKeepAliveTime;
    private final int maxConnections;
    private final int maxConnectionsPerAddress;

    private final Object lifecycle = new Object();
    private State state = State.NEW;
    private EventLoopGroup group;
    private Server server;
    private volatile InetSocketAddress boundAddress;
    private volatile CappedServerChannel listening;

    private enum State { NEW, RUNNING, STOPPED }

    private GrpcHealthServer(Builder b) {
        this.service = b.service.build();
        this.bindAddress = b.bindAddress;
        this.port = b.port;
        this.eventLoopThreads = b.eventLoopThreads;
        this.maxCallsPerConnection = b.maxCallsPerConnection;
        this.maxInboundMessageSize = b.maxInboundMessageSize;
        this.maxInboundMetadataSize = b.maxInboundMetadataSize;
        this.flowControlWindow = b.flowControlWindow;
        this.handshakeTimeout = b.handshakeTimeout;
        this.maxConnectionIdle = b.maxConnectionIdle;
        this.maxConnectionAge = b.maxConnectionAge;
        this.maxConnectionAgeGrace = b.maxConnectionAgeGrace;
        this.permitKeepAliveTime = b.permitKeepAliveTime;
        this.maxConnections = b.maxConnections;
        this.maxConnectionsPerAddress = b.maxConnectionsPerAddress > 0 ? b.maxConnectionsPerAddress
                : Math.max(1, b.maxConnections / 4);
    }

    /**
     * @param registry the registry whose groups the server answers; it need not be started yet
     * @return a builder with the defaults
     * @throws NullPointerException if {@code registry} is null
     */
    public static Builder builder(HealthRegistry registry) {
        return new Builder(registry);
    }

    /**
     * Binds the port and starts answering.
     *
     * @return this server
     * @throws IllegalStateException if the server is running or was stopped (build a new one), or
     *     if the port cannot be bound; the message names the port
     */
    public GrpcHealthServer start() {
        synchronized (lifecycle) {
            if (state == State.RUNNING) {
                throw new IllegalStateException("gRPC health server is already running on port " + boundAddress.getPort());
            }
            if (state == State.STOPPED) {
                throw new IllegalStateException("gRPC health server (port " + port + ") was stopped; build a new one to start again");
            }
            TransportLogs.install();
            EventLoopGroup g = new MultiThreadIoEventLoopGroup(eventLoopThreads, threadFactory(), NioIoHandler.newFactory());
            InetSocketAddress address = bindAddress == null ? new InetSocketAddress(port) : new InetSocketAddress(bindAddress, port);
            // the listening channel is the connection cap (DESIGN.md 6c); one address, one channel
            CappedServerChannel capped = new CappedServerChannel(maxConnections, maxConnectionsPerAddress, handshakeTimeout);
            Server s = NettyServerBuilder.forAddress(address)
                    .channelFactory(() -> capped)
                    .bossEventLoopGroup(g)
                    .workerEventLoopGroup(g)
                    .directExecutor()
                    .addService(ServerInterceptors.intercept(service, capped.interceptor()))
                    .maxConcurrentCallsPerConnection(maxCallsPerConnection)
                    .maxInboundMessageSize(maxInboundMessageSize)
                    .maxInboundMetadataSize(maxInboundMetadataSize)
                    .flowControlWindow(flowControlWindow)
                    .handshakeTimeout(handshakeTimeout.toMillis(), TimeUnit.MILLISECONDS)
                    .maxConnectionIdle(maxConnectionIdle.toMillis(), TimeUnit.MILLISECONDS)
                    .maxConnectionAge(maxConnectionAge.toMillis(), TimeUnit.MILLISECONDS)
                    .maxConnectionAgeGrace(maxConnectionAgeGrace.toMillis(), TimeUnit.MILLISECONDS)
                    .permitKeepAliveTime(permitKeepAliveTime.toMillis(), TimeUnit.MILLISECONDS)
                    .permitKeepAliveWithoutCalls(false)
                    .maxRstFramesPerWindow(200, 10)
                    // fairness on the shared event loop: one read of at most 16 KiB per connection
                    // per turn, so a flooding connection cannot hold the loop for the others
                    .withChildOption(ChannelOption.RCVBUF_ALLOCATOR,
                            new AdaptiveRecvByteBufAllocator(64, 2048, 16384).maxMessagesPerRead(1))
                    .build();
            try {
                s.start();
            } catch (IOException | RuntimeException e) {
                s.shutdownNow();
                g.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS).awaitUninterruptibly(10, TimeUnit.SECONDS);
                String where = "port " + port + " (" + (bindAddress == null ? "all interfaces" : bindAddress.getHostAddress()) + ")";
                Throwable cause = e.getCause() != null ? e.getCause() : e;
                if (cause instanceof BindException) {
                    throw new IllegalStateException("gRPC health server cannot listen on " + where
                            + ": the port is already in use or not available (" + cause.getMessage() + ")", e);
                }
                throw new IllegalStateException("gRPC health server cannot listen on " + where + ": " + cause, e);
            }
            group = g;
            server = s;
            listening = capped;
            boundAddress = (InetSocketAddress) s.getListenSockets().get(0);
            state = State.RUNNING;
            LOG.log(Level.INFO, "gRPC health server listening on " + boundAddress + " (" + eventLoopThreads
                    + " event-loop thread" + (eventLoopThreads == 1 ? "" : "s") + "; \"\" = "
                    + service.services().get("") + ")");
            return this;
        }
    }

    /**
     * @return the bound port (useful with port 0)
     * @throws IllegalStateException if the server has not been started
     */
    public int port() {
        return address().getPort();
    }

    /**
     * @return the bound address
     * @throws IllegalStateException if the server has not been started
     */
    public InetSocketAddress address() {
        InetSocketAddress a = boundAddress;
        if (a == null) {
            throw new IllegalStateException("gRPC health server is not started");
        }
        return a;
    }

    /** @return connections open on the port now; 0 before {@link #start()} */
    public int openConnections() {
        CappedServerChannel c = listening;
        return c == null ? 0 : c.open();
    }

    /** @return connections closed so far to make room for newer ones at the connection limit */
    public long evictedConnections() {
        CappedServerChannel c = listening;
        return c == null ? 0 : c.evicted();
    }

    /**
     * Client-caused transport failures (an HTTP/1.x request, a TLS ClientHello or random bytes on
     * the gRPC port, a stream error) counted instead of logged (issue 30; see docs/grpc.md,
     * "Logging"): at most one INFO summary a minute is written on {@code dev.vitals.grpc}.
     *
     * @return failures counted so far by every Vitals gRPC health server in this JVM; never decreases
     */
    public long clientFailures() {
        return TransportLogs.quieted();
    }

    /** The listening channel, for tests; null before {@link #start()}. */
    CappedServerChannel listeningChannel() {
        return listening;
    }

    /** @return the connection limit ({@link Builder#maxConnections(int)}) */
    public int maxConnections() {
        return maxConnections;
    }

    /** @return the per-address share ({@link Builder#maxConnectionsPerAddress(int)}), resolved */
    public int maxConnectionsPerAddress() {
        return maxConnectionsPerAddress;
    }

    /** @return whether the server has been started and not stopped */
    public boolean isRunning() {
        synchronized (lifecycle) {
            return state == State.RUNNING;
        }
    }

    /** @return the health service this server answers with (for its terminal state and Watch count) */
    public GrpcHealthService service() {
        return service;
    }

    /**
     * Stops: every service turns {@code NOT_SERVING} and open Watch streams are told, then closed
     * ({@code UNAVAILABLE}); calls in flight get up to {@code grace} to finish; the event loop
     * stops. Call it after the drain ({@link dev.vitals.Availability#drain(Duration)}), never
     * before: kubelet must see readiness fail while the process still serves. Idempotent; a
     * server never started is only marked stopped.
     *
     * @param grace how long to wait for calls in flight, not negative
     * @throws IllegalArgumentException if {@code grace} is negative
     */
    public void stop(Duration grace) {
        Objects.requireNonNull(grace, "grace");
        if (grace.isNegative()) {
            throw new IllegalArgumentException("grace must not be negative, was " + grace);
        }
        Server s;
        EventLoopGroup g;
        synchronized (lifecycle) {
            if (state == State.STOPPED) {
                return;
            }
            state = State.STOPPED;
            s = server;
            g = group;
        }
        service.closeWatchStreams();
        if (s == null) {
            return;
        }
        s.shutdown();
        try {
            if (!s.awaitTermination(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                s.shutdownNow();
                s.awaitTermination(1, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            s.shutdownNow();
            Thread.currentThread().interrupt();
        }
        g.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
        LOG.log(Level.INFO, "gRPC health server stopped");
    }

    /** {@link #stop(Duration)} with a 1 s grace. */
    @Override
    public void close() {
        stop(Duration.ofSeconds(1));
    }

    private static ThreadFactory threadFactory() {
        return r -> {
            Thread t = new FastThreadLocalThread(r, THREAD_PREFIX + THREAD_IDS.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    /** Builds a {@link GrpcHealthServer}. Not thread-safe. */
    public static final class Builder {
        private final GrpcHealthService.Builder service;
        private InetAddress bindAddress;
        private int port = 8082;
        private int eventLoopThreads = Runtime.getRuntime().availableProcessors() <= 2 ? 1 : 2;
        private int maxCallsPerConnection = 32;
        private int maxInboundMessageSize = 1024;
        private int maxInboundMetadataSize = 8192;
        private int flowControlWindow = 65_535;
        private Duration handshakeTimeout = Duration.ofSeconds(5);
        private Duration maxConnectionIdle = Duration.ofSeconds(60);
        private Duration maxConnectionAge = Duration.ofMinutes(5);
        private Duration maxConnectionAgeGrace = Duration.ofSeconds(10);
        private Duration permitKeepAliveTime = Duration.ofSeconds(10);
        private int maxConnections = 1024;
        private int maxConnectionsPerAddress = -1;

        private Builder(HealthRegistry registry) {
            this.service = GrpcHealthService.builder(registry);
        }

        /**
         * @param port TCP port, 0–65535 (0 picks a free one); default 8082
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder port(int port) {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("port must be 0–65535, was " + port);
            }
            this.port = port;
            return this;
        }

        /**
         * @param address the interface to listen on; default all interfaces (kubelet probes the
         *     pod IP)
         * @return this builder
         */
        public Builder bindAddress(InetAddress address) {
            this.bindAddress = Objects.requireNonNull(address, "address");
            return this;
        }

        /**
         * @param threads event-loop threads, 1–16; default 1 on machines with ≤ 2 cores, else 2
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder eventLoopThreads(int threads) {
            this.eventLoopThreads = range("eventLoopThreads", threads, 1, 16);
            return this;
        }

        /**
         * As {@link GrpcHealthService.Builder#serverGroup(String)}.
         *
         * @param group the group that answers service {@code ""} (the whole server)
         * @return this builder
         * @throws IllegalArgumentException if the registry has no such group
         */
        public Builder serverGroup(String group) {
            service.serverGroup(group);
            return this;
        }

        /**
         * As {@link GrpcHealthService.Builder#service(String, String)}.
         *
         * @param name the service name, not empty
         * @param group a group of the registry
         * @return this builder
         * @throws IllegalArgumentException if {@code name} is empty or {@code group} unknown
         */
        public Builder service(String name, String group) {
            service.service(name, group);
            return this;
        }

        /**
         * As {@link GrpcHealthService.Builder#maxWatchStreams(int)}.
         *
         * @param max concurrent {@code Watch} streams, 1–100000
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder maxWatchStreams(int max) {
            service.maxWatchStreams(max);
            return this;
        }

        /**
         * As {@link GrpcHealthService.Builder#watchInterval(Duration)}.
         *
         * @param interval how often open {@code Watch} streams are compared with the in-memory report
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder watchInterval(Duration interval) {
            service.watchInterval(interval);
            return this;
        }

        /**
         * As {@link GrpcHealthService.Builder#probeBudget(Duration)}.
         *
         * @param budget how long an answer waits for its group's on-demand checks, 1 ms–60 s; default 800 ms
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder probeBudget(Duration budget) {
            service.probeBudget(budget);
            return this;
        }

        /**
         * @param max concurrent calls on one connection (HTTP/2 MAX_CONCURRENT_STREAMS), 1–1000;
         *     default 32 (a client at exactly the limit races its own stream closes and gets
         *     REFUSED_STREAM retries); Watch streams count too
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder maxCallsPerConnection(int max) {
            this.maxCallsPerConnection = range("maxCallsPerConnection", max, 1, 1000);
            return this;
        }

        /**
         * @param bytes largest request message accepted, 64 B–1 MiB; default 1 KiB (a
         *     HealthCheckRequest is a service name); larger ones are {@code RESOURCE_EXHAUSTED}
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder maxInboundMessageSize(int bytes) {
            this.maxInboundMessageSize = range("maxInboundMessageSize", bytes, 64, 1 << 20);
            return this;
        }

        /**
         * @param bytes largest header block (metadata) accepted, 1 KiB–64 KiB; default 8 KiB
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder maxInboundMetadataSize(int bytes) {
            this.maxInboundMetadataSize = range("maxInboundMetadataSize", bytes, 1024, 65536);
            return this;
        }

        /**
         * @param bytes HTTP/2 flow-control window per stream and connection, 64 KiB–1 MiB;
         *     default 64 KiB (65535 B)
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder flowControlWindow(int bytes) {
            this.flowControlWindow = range("flowControlWindow", bytes, 65_535, 1 << 20);
            return this;
        }

        /**
         * @param timeout time a new connection has to send its first bytes (until then it waits at
         *     the gate, costing no HTTP/2 set-up, and is closed when the time is up), and then again
         *     to complete the HTTP/2 handshake, 100 ms–60 s; default 5 s
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder handshakeTimeout(Duration timeout) {
            this.handshakeTimeout = range("handshakeTimeout", timeout, Duration.ofMillis(100), Duration.ofSeconds(60));
            return this;
        }

        /**
         * @param idle a connection without calls for this long is closed (GOAWAY), 1 s–1 h;
         *     default 60 s
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder maxConnectionIdle(Duration idle) {
            this.maxConnectionIdle = range("maxConnectionIdle", idle, Duration.ofSeconds(1), Duration.ofHours(1));
            return this;
        }

        /**
         * @param age a connection is told to go away after this long (±10 %, grpc-java's jitter),
         *     1 s–24 h; default 5 min
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder maxConnectionAge(Duration age) {
            this.maxConnectionAge = range("maxConnectionAge", age, Duration.ofSeconds(1), Duration.ofHours(24));
            return this;
        }

        /**
         * @param grace time calls (Watch streams) get after {@link #maxConnectionAge(Duration)}
         *     before the connection is closed, 0–10 min; default 10 s
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder maxConnectionAgeGrace(Duration grace) {
            this.maxConnectionAgeGrace = range("maxConnectionAgeGrace", grace, Duration.ZERO, Duration.ofMinutes(10));
            return this;
        }

        /**
         * @param time the shortest client keep-alive ping interval tolerated, 1 s–1 h; default
         *     10 s; more frequent pings end the connection (ping-flood protection)
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder permitKeepAliveTime(Duration time) {
            this.permitKeepAliveTime = range("permitKeepAliveTime", time, Duration.ofSeconds(1), Duration.ofHours(1));
            return this;
        }

        /**
         * @param max connections open on the port at once, 1–1,000,000; default 1024. At the limit
         *     a new connection is never refused: the one that has gone longest without a call is
         *     closed to make room (connections with a call open go last), the policy of
         *     vitals-server (docs/server.md "Connection limits"), so idle connections can neither
         *     exhaust the process's file descriptors nor keep a kubelet probe out
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder maxConnections(int max) {
            this.maxConnections = range("maxConnections", max, 1, 1_000_000);
            return this;
        }

        /**
         * @param max connections one peer (remote) address may hold, 1 to
         *     {@link #maxConnections(int)} (checked in {@link #build()}); default a quarter of
         *     maxConnections (256 for 1024). A new connection from an address at its share closes
         *     that address's own longest-uncalled connection, so one pod cannot push out others
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder maxConnectionsPerAddress(int max) {
            this.maxConnectionsPerAddress = range("maxConnectionsPerAddress", max, 1, 1_000_000);
            return this;
        }

        /**
         * @return the server, not started
         * @throws IllegalArgumentException if a setting conflicts with another
         *     (maxConnectionsPerAddress over maxConnections)
         */
        public GrpcHealthServer build() {
            if (maxConnectionsPerAddress > maxConnections) {
                throw new IllegalArgumentException("maxConnectionsPerAddress must be at most maxConnections ("
                        + maxConnections + "), was " + maxConnectionsPerAddress);
            }
            return new GrpcHealthServer(this);
        }

        private static int range(String name, int v, int min, int max) {
            if (v < min || v > max) {
                throw new IllegalArgumentException(name + " must be " + min + "–" + max + ", was " + v);
            }
            return v;
        }

        private static Duration range(String name, Duration v, Duration min, Duration max) {
            Objects.requireNonNull(v, name);
            if (v.compareTo(min) < 0 || v.compareTo(max) > 0) {
                throw new IllegalArgumentException(name + " must be " + min + "–" + max + ", was " + v);
            }
            return v;
        }
    }
}
