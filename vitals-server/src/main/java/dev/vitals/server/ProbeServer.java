package dev.vitals.server;

import dev.vitals.HealthRegistry;
import dev.vitals.internal.ConnectionTable;
import dev.vitals.internal.Logs;
import java.lang.System.Logger.Level;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The isolated probe server (DESIGN.md P1 and section 6): an HTTP/1.1 listener on its own event
 * loop (the JDK's {@code java.nio} by default, or Netty's: {@link Builder#transport}), which
 * Vitals creates and never shares with the application, answering
 * {@code /livez}, {@code /readyz}, {@code /startupz} (plus per-check paths, {@code ?verbose},
 * {@code ?exclude=}) and JSON reports at {@code /health} and {@code /health/<group>}.
 *
 * <pre>{@code
 * ProbeServer server = ProbeServer.builder(registry)
 *         .port(8081)
 *         .detailsPolicy(DetailsPolicy.whenAuthorized(System.getenv("VITALS_TOKEN")))
 *         .build()
 *         .start();
 * ...
 * server.stop(Duration.ofSeconds(2));
 * }</pre>
 *
 * <p>Requests are parsed incrementally on the event loop, so a slow or malicious client costs a
 * buffer, not a thread; answers are written from the event loop straight from
 * {@link HealthRegistry#report(String)}, which never blocks. Only groups with on-demand checks are
 * evaluated, on Vitals' check executor. A probe ({@code /livez}, {@code /readyz},
 * {@code /startupz}, their per-check paths) waits at most the
 * {@linkplain Builder#probeBudget(Duration) probe budget} (800 ms) or the group deadline (the
 * longest timeout of its on-demand checks), whichever is shorter: checks still running then read
 * as their last result, or UNKNOWN. A JSON report ({@code /health…}, for people and dashboards)
 * waits for the group deadline. A safety margin of 100 ms more is enforced on the event loop,
 * after which the request is answered from the current in-memory state.
 *
 * <p>Limits: a request's line and its header block are each limited to
 * {@link Builder#maxHeaderSize(int)} bytes (431 for headers, 400 for the line, then close);
 * malformed requests get 400 and a close; a request must arrive within
 * {@link Builder#readTimeout(Duration)} of its first byte (of the connection's opening for the
 * first request); a kept-alive connection is closed after {@link Builder#idleTimeout(Duration)}
 * without a request. At {@link Builder#maxConnections(int)} (or a peer address's
 * {@link Builder#maxConnectionsPerAddress(int)}) a new connection is still accepted and the
 * longest-unanswered connection is closed to make room (DESIGN.md 6b): a flood of idle, half-sent
 * or slow-drip connections cannot keep a kubelet probe, which always opens a new connection, out.
 * A probe of a group with on-demand checks waits at most {@link Builder#probeBudget(Duration)}.
 * Requests with a body are answered and the connection closed. {@code Connection: close} (kubelet
 * sends it) is honoured; other HTTP/1.1 requests are kept alive. TCP_NODELAY is on. An error on a
 * connection is logged once, at debug level, without a stack trace, to the
 * {@link System.Logger} {@code dev.vitals.server}.
 *
 * <p>Threads: {@code vitals-probe-N}, daemons, one per event loop (either transport; the JDK
 * transport accepts on the first). Thread-safe.
 */
public final class ProbeServer implements AutoCloseable {
    private static final System.Logger LOG = Logs.get("dev.vitals.server");
    private static final AtomicInteger THREAD_IDS = new AtomicInteger();
    /**
     * Connections the kernel may queue before accept (capped by net.core.somaxconn). The queue is
     * first in, first out: a probe waits behind everything queued, so a deeper queue is a longer
     * wait under a flood, and a full one drops the probe's SYN (a 1 s retransmit).
     */
    static final int ACCEPT_BACKLOG = 1024;
    /** How long accepting pauses after {@code accept()} failed (e.g. "Too many open files"). */
    static final long ACCEPT_PAUSE_MILLIS = 1000;
    private static final Duration MAX_TIMEOUT = Duration.ofDays(1);

    private final HealthRegistry registry;
    private final InetAddress bindAddress;
    private final int port;
    private final int eventLoopThreads;
    private final Transport transport;
    private final int maxConnections;
    private final int maxConnectionsPerAddress;
    private final int maxHeaderSize;
    private final Duration probeBudget;
    private final Duration readTimeout;
    private final Duration idleTimeout;
    private final String basePath;
    private final DetailsPolicy detailsPolicy;
    private final long readTimeoutNanos;
    private final long idleTimeoutNanos;

    private final Object lifecycle = new Object();
    private final ConnectionTable<ProbeConnection> table;
    private final ProbeConnection.Settings connectionSettings = new ConnectionSettings();
    private State state = State.NEW;
    private volatile boolean stopping;
    private ServerTransport transportImpl;
    private volatile InetSocketAddress boundAddress;

    private enum State { NEW, RUNNING, STOPPED }

    /**
     * What carries the probe server's bytes. Only the event loop differs: both hand raw bytes to
     * the same connection state machine and HTTP/1.x parser, so they answer every request alike
     * (routes, formats, details policy, limits, deadlines, pipelining, keep-alive and the
     * connection policy of DESIGN.md 6b), run on {@code vitals-probe-N} daemon threads of their
     * own, and answer on-demand evaluations the same way; they differ in what they load into the
     * JVM (DESIGN.md 6a).
     */
    public enum Transport {
        /**
         * Netty's NIO event loops. Costs the Netty classes the server needs (transport, buffer,
         * common), loaded at start; free when the application already loads Netty. Requires
         * {@code io.netty:netty-transport} 4.1 or 4.2, which vitals-server does not bring (an
         * optional dependency): {@link ProbeServer#start()} throws {@link IllegalStateException}
         * naming it when it is missing.
         */
        NETTY,
        /**
         * The JDK's {@code java.nio} alone ({@code Selector}, {@code ServerSocketChannel},
         * {@code SocketChannel}), the default: no Netty class is loaded and no Netty jar is
         * needed, on the class path or the module path, so the server costs a few dozen classes
         * of its own.
         */
        JDK
    }

    private ProbeServer(Builder b) {
        this.registry = b.registry;
        this.bindAddress = b.bindAddress;
        this.port = b.port;
        this.eventLoopThreads = b.eventLoopThreads;
        this.transport = b.transport;
        this.maxConnections = b.maxConnections;
        this.maxConnectionsPerAddress = b.maxConnectionsPerAddress > 0 ? b.maxConnectionsPerAddress
                : Math.max(1, b.maxConnections / 4);
        this.maxHeaderSize = b.maxHeaderSize;
        this.probeBudget = b.probeBudget;
        this.readTimeout = b.readTimeout;
        this.idleTimeout = b.idleTimeout;
        this.basePath = b.basePath;
        this.detailsPolicy = b.detailsPolicy;
        this.readTimeoutNanos = readTimeout.toNanos();
        this.idleTimeoutNanos = idleTimeout.toNanos();
        this.table = new ConnectionTable<>(maxConnections, maxConnectionsPerAddress);
    }

    /**
     * @param registry the registry whose groups the server answers; it need not be started yet
     *     (checks read UNKNOWN until their first run), but must not be closed when
     *     {@link #start()} is called
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
     * @throws IllegalStateException if the server is running or was stopped (build a new one), if
     *     the registry is closed, if the port cannot be bound (the message names the port, for
     *     example "port 8081 is already in use"), or if {@link Transport#NETTY} was chosen and
     *     Netty is not present (the message names the artifact to add)
     */
    public ProbeServer start() {
        synchronized (lifecycle) {
            if (state == State.RUNNING) {
                throw new IllegalStateException("probe server is already running on port " + boundAddress.getPort());
            }
            if (state == State.STOPPED) {
                throw new IllegalStateException("probe server (port " + describePort() + ") was stopped;"
                        + " build a new one to start again");
            }
            ProbeResponder responder = new ProbeResponder(registry,
                    new ProbeRouter(Catalog.of(registry), basePath, detailsPolicy), probeBudget);
            warnAboutLongTimeouts();
            InetSocketAddress address = bindAddress == null ? new InetSocketAddress(port) : new InetSocketAddress(bindAddress, port);
            ServerTransport t = newTransport(transport, responder);
            boundAddress = t.bind(address);
            transportImpl = t;
            state = State.RUNNING;
            LOG.log(Level.INFO, "probe server listening on " + boundAddress + " (" + transport + " transport, "
                    + eventLoopThreads + " event-loop thread" + (eventLoopThreads == 1 ? "" : "s") + ", details "
                    + detailsPolicy + ")");
            return this;
        }
    }

    /**
     * Stops gracefully: stops accepting, closes idle connections at once, lets answers being
     * prepared finish (each with {@code Connection: close}) for at most {@code grace}, then closes
     * what is left and stops the event-loop threads. Idempotent; a server never started just
     * becomes stopped.
     *
     * @param grace how long to wait for answers in progress; zero closes everything at once
     * @throws NullPointerException if {@code grace} is null
     * @throws IllegalArgumentException if {@code grace} is negative
     */
    public void stop(Duration grace) {
        Objects.requireNonNull(grace, "grace");
        if (grace.isNegative()) {
            throw new IllegalArgumentException("grace must not be negative, was " + grace);
        }
        synchronized (lifecycle) {
            if (state != State.RUNNING) {
                state = State.STOPPED;
                return;
            }
            state = State.STOPPED;
            stopping = true;
            long deadline = System.nanoTime() + grace.toNanos();
            ServerTransport t = transportImpl;
            t.stopAccepting(Math.max(1000, grace.toMillis()));
            t.closeIdle();
            while (t.connections() > 0 && System.nanoTime() - deadline < 0) {
                try {
                    Thread.sleep(10);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            long left = Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
            t.shutdown(left);
            LOG.log(Level.INFO, "probe server on port " + boundAddress.getPort() + " stopped");
        }
    }

    /**
     * The transport of this server, for tests (cast to {@code NettyTransport} or
     * {@code NioTransport}); null before {@link #start()}.
     */
    ServerTransport transportImpl() {
        synchronized (lifecycle) {
            return transportImpl;
        }
    }

    /**
     * Chooses the implementation; each branch names its class only here, so the one not chosen
     * (and, for {@link Transport#JDK}, every Netty class) is never loaded.
     */
    private ServerTransport newTransport(Transport kind, ProbeResponder responder) {
        if (kind == Transport.JDK) {
            return new NioTransport(this, responder);
        }
        requireNetty();
        return new NettyTransport(this, responder);
    }

    /** The artifact {@link Transport#NETTY} needs, which vitals-server declares optional. */
    static final String NETTY_ARTIFACT = "io.netty:netty-transport";

    /**
     * @throws IllegalStateException naming {@link #NETTY_ARTIFACT} if Netty's transport cannot be
     *     loaded by this module (absent from the class path, or from the module path's resolved
     *     modules)
     */
    static void requireNetty() {
        try {
            Class.forName("io.netty.channel.nio.NioEventLoopGroup", false, ProbeServer.class.getClassLoader());
            Class.forName("io.netty.buffer.ByteBuf", false, ProbeServer.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            throw new IllegalStateException("probe server: Transport.NETTY needs " + NETTY_ARTIFACT
                    + " (4.1 or 4.2), which is not present: add it to the application's dependencies"
                    + " (on the module path also require io.netty.transport), or use Transport.JDK", e);
        }
    }

    /**
     * Admits a new connection through the connection table (DESIGN.md 6b): never refuses it, and
     * asks the connections chosen to make room to close (at once when on their own event loop,
     * so the descriptor is free before the next accept). Called by a transport on accept.
     */
    void admit(ConnectionTable.Entry<ProbeConnection> entry) {
        for (ConnectionTable.Entry<ProbeConnection> victim : table.admit(entry)) {
            long n = table.evicted();
            if (n == 1 || n % 1000 == 0) {
                LOG.log(Level.DEBUG, "probe server at its limit of " + maxConnections + " connections (" + maxConnectionsPerAddress
                        + " per address): closed the longest-unanswered one, from " + victim.peer() + " (" + n + " so far)");
            }
            victim.handle().evict();
        }
    }

    /**
     * Logs a failed {@code accept()} (e.g. "Too many open files") at DEBUG, one line without a
     * stack trace, the first and then every 1000th; the transport pauses accepting for
     * {@link #ACCEPT_PAUSE_MILLIS}, so a failing accept cannot spin its loop.
     *
     * @param n failures so far, this one included
     */
    static void acceptFailed(long n, Throwable cause) {
        if (n == 1 || n % 1000 == 0) {
            LOG.log(Level.DEBUG, "probe server: accepting a connection failed (" + n + " so far; accepting"
                    + " pauses " + ACCEPT_PAUSE_MILLIS + " ms): " + cause);
        }
    }

    /** @return the name of a new event-loop thread: {@code vitals-probe-N}, N counting up in this JVM */
    static String nextThreadName() {
        return "vitals-probe-" + THREAD_IDS.incrementAndGet();
    }

    /** @return where the server binds, for messages: "port 8081 (all interfaces)" */
    String describeBind() {
        return "port " + port + " (" + (bindAddress == null ? "all interfaces" : bindAddress.getHostAddress()) + ")";
    }

    /** @return the exception {@link #start()} throws for a bind that failed with {@code cause} */
    IllegalStateException bindFailed(Throwable cause) {
        if (cause instanceof BindException) {
            return new IllegalStateException("probe server cannot listen on " + describeBind()
                    + ": " + bindReason((BindException) cause) + " (" + cause.getMessage() + ")", cause);
        }
        return new IllegalStateException("probe server cannot listen on " + describeBind() + ": " + cause, cause);
    }

    /**
     * Why a bind failed, in words, from the operating system's message (Linux, macOS):
     * the port taken, an address this machine does not have, a privileged port.
     *
     * @param e the bind's failure
     * @return one phrase, e.g. "the port is already in use"
     */
    static String bindReason(BindException e) {
        String m = e.getMessage() == null ? "" : e.getMessage();
        if (m.contains("already in use")) {
            return "the port is already in use";
        }
        if (m.contains("assign requested address")) {
            return "the address is not one of this machine's";
        }
        if (m.contains("ermission denied")) {
            return "no permission to listen on this port (below 1024?)";
        }
        return "the port is not available";
    }

    /** @return the exception {@link #start()} throws for a bind that failed as {@code what} says */
    IllegalStateException bindFailed(String what) {
        return new IllegalStateException("probe server " + what);
    }

    /** Logs once per on-demand check whose timeout the probe budget cuts short. */
    private void warnAboutLongTimeouts() {
        for (dev.vitals.Check c : registry.checks()) {
            if (c.mode() == dev.vitals.Mode.ON_DEMAND && c.timeout().compareTo(probeBudget) > 0) {
                LOG.log(Level.INFO, "check '" + c.name() + "': timeout " + c.timeout().toMillis()
                        + " ms is longer than the probe budget of " + probeBudget.toMillis() + " ms; a probe that finds it"
                        + " running answers with its last result (UNKNOWN without one) and the execution goes on");
            }
        }
    }

    /** Stops at once: {@code stop(Duration.ZERO)}. */
    @Override
    public void close() {
        stop(Duration.ZERO);
    }

    /** @return whether the server has started and not been stopped */
    public boolean isRunning() {
        synchronized (lifecycle) {
            return state == State.RUNNING;
        }
    }

    /**
     * @return the bound port while running (the ephemeral one when configured with 0); the
     *     configured port before {@link #start()}; the last bound port after {@link #stop(Duration)}
     */
    public int port() {
        InetSocketAddress a = boundAddress;
        return a != null ? a.getPort() : port;
    }

    /** @return the bound address while running or after having run; empty before {@link #start()} */
    public Optional<InetSocketAddress> localAddress() {
        return Optional.ofNullable(boundAddress);
    }

    /** @return the configured bind address; empty means all interfaces */
    public Optional<InetAddress> bindAddress() {
        return Optional.ofNullable(bindAddress);
    }

    /** @return the number of event-loop threads */
    public int eventLoopThreads() {
        return eventLoopThreads;
    }

    /** @return the most connections open at once */
    public int maxConnections() {
        return maxConnections;
    }

    /** @return the limit in bytes of the request line and of the header block, each */
    public int maxHeaderSize() {
        return maxHeaderSize;
    }

    /** @return the time a request may take to arrive, from its first byte */
    public Duration readTimeout() {
        return readTimeout;
    }

    /** @return the time a kept-alive connection may sit without a request */
    public Duration idleTimeout() {
        return idleTimeout;
    }

    /** @return the path prefix of every route, "" for none */
    public String basePath() {
        return basePath;
    }

    /** @return who may see details, error messages and error types */
    public DetailsPolicy detailsPolicy() {
        return detailsPolicy;
    }

    /** @return the most connections one peer address may hold open at once */
    public int maxConnectionsPerAddress() {
        return maxConnectionsPerAddress;
    }

    /** @return the longest time a probe waits for on-demand checks before it is answered */
    public Duration probeBudget() {
        return probeBudget;
    }

    /** @return the number of connections open now */
    public int openConnections() {
        return table.size();
    }

    /** @return how many connections were closed to make room for newer ones since the server was built */
    public long evictedConnections() {
        return table.evicted();
    }

    /** @return which transport carries the server */
    public Transport transport() {
        return transport;
    }

    /** @return what each connection reads from this server (limits, deadlines, clock, table), for the transports */
    ProbeConnection.Settings connectionSettings() {
        return connectionSettings;
    }

    /** {@link ProbeConnection.Settings} of this server: its fields, the system clock and its table. */
    private final class ConnectionSettings implements ProbeConnection.Settings {
        @Override
        public int maxHeaderSize() {
            return maxHeaderSize;
        }

        @Override
        public long readTimeoutNanos() {
            return readTimeoutNanos;
        }

        @Override
        public long idleTimeoutNanos() {
            return idleTimeoutNanos;
        }

        @Override
        public boolean stopping() {
            return stopping;
        }

        @Override
        public dev.vitals.Clock clock() {
            return dev.vitals.Clock.SYSTEM;
        }

        @Override
        public ConnectionTable<ProbeConnection> table() {
            return table;
        }
    }

    private String describePort() {
        InetSocketAddress a = boundAddress;
        return String.valueOf(a != null ? a.getPort() : port);
    }

    @Override
    public String toString() {
        return "ProbeServer{port=" + describePort() + ", basePath='" + basePath + "', details=" + detailsPolicy + '}';
    }

    /**
     * Builds a {@link ProbeServer}. Setters validate at once and name the bound. Not thread-safe.
     */
    public static final class Builder {
        /** Default port: 8081. */
        public static final int DEFAULT_PORT = 8081;
        /** Default probe budget: 800 ms, below the kubelet's default {@code timeoutSeconds: 1}. */
        public static final Duration DEFAULT_PROBE_BUDGET = Duration.ofMillis(800);

        private final HealthRegistry registry;
        private InetAddress bindAddress;
        private int port = DEFAULT_PORT;
        private int eventLoopThreads = 1;
        private Transport transport = Transport.JDK;
        private int maxConnections = 1024;
        private int maxConnectionsPerAddress = -1;
        private int maxHeaderSize = 8192;
        private Duration probeBudget = DEFAULT_PROBE_BUDGET;
        private Duration readTimeout = Duration.ofSeconds(5);
        private Duration idleTimeout = Duration.ofSeconds(60);
        private String basePath = "";
        private DetailsPolicy detailsPolicy = DetailsPolicy.never();

        private Builder(HealthRegistry registry) {
            this.registry = Objects.requireNonNull(registry, "registry");
        }

        /**
         * @param address the local address to listen on; default all interfaces, since kubelet
         *     calls the pod IP (kubelet probes never reach a loopback-only listener)
         * @return this builder
         * @throws NullPointerException if {@code address} is null
         */
        public Builder bindAddress(InetAddress address) {
            this.bindAddress = Objects.requireNonNull(address, "address");
            return this;
        }

        /**
         * @param port 0–65535; 0 picks an ephemeral port, readable with {@link ProbeServer#port()}
         *     once started; default {@value #DEFAULT_PORT}
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder port(int port) {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("port must be in 0..65535, was " + port);
            }
            this.port = port;
            return this;
        }

        /**
         * @param threads event-loop threads, 1–16; default 1 (one thread answers tens of thousands
         *     of probes per second; a probe server should cost the application one thread)
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder eventLoopThreads(int threads) {
            if (threads < 1 || threads > 16) {
                throw new IllegalArgumentException("eventLoopThreads must be in 1..16, was " + threads);
            }
            this.eventLoopThreads = threads;
            return this;
        }

        /**
         * @param transport what carries the bytes: {@link Transport#JDK} (default: java.nio only,
         *     no Netty class loaded or needed) or {@link Transport#NETTY} (needs
         *     {@code io.netty:netty-transport}, an optional dependency); the HTTP contract, limits,
         *     deadlines and connection policy are the same, from one connection state machine
         * @return this builder
         * @throws NullPointerException if {@code transport} is null
         */
        public Builder transport(Transport transport) {
            this.transport = Objects.requireNonNull(transport, "transport");
            return this;
        }

        /**
         * @param max connections open at once, 1–1,000,000; default 1024. At the limit a new
         *     connection is always accepted, and the connection that has gone longest without
         *     being answered (sent nothing, part of a request, or idle between kept-alive
         *     requests) is closed to make room; connections whose answer is being prepared go
         *     last (DESIGN.md 6b).
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder maxConnections(int max) {
            if (max < 1 || max > 1_000_000) {
                throw new IllegalArgumentException("maxConnections must be in 1..1000000, was " + max);
            }
            this.maxConnections = max;
            return this;
        }

        /**
         * @param max connections one peer (remote) address may hold open at once, 1 to
         *     {@link #maxConnections(int)} (checked in {@link #build()}); default a quarter of
         *     maxConnections (256 for the default 1024). A new connection from an address at its
         *     share closes that address's own longest-unanswered connection, so one pod flooding
         *     the probe port cannot push out the kubelet's probes nor other clients.
         * @return this builder
         * @throws IllegalArgumentException if under 1 or over 1,000,000
         */
        public Builder maxConnectionsPerAddress(int max) {
            if (max < 1 || max > 1_000_000) {
                throw new IllegalArgumentException("maxConnectionsPerAddress must be in 1..1000000, was " + max);
            }
            this.maxConnectionsPerAddress = max;
            return this;
        }

        /**
         * @param budget the longest time a probe ({@code /livez}, {@code /readyz},
         *     {@code /startupz} and their per-check paths) of a group with on-demand checks waits
         *     for them, 1 ms to 60 s; default 800 ms, so the answer beats the kubelet's default 1 s
         *     timeout. JSON reports ({@code /health…}) are for people and dashboards and wait for
         *     the checks' timeouts.
         *     When it runs out the probe is answered with what is known: each check still running
         *     shows its last result if younger than its maxAge, else UNKNOWN, marked "still
         *     running"; the execution goes on and the next probe reads or joins it. An on-demand
         *     check whose timeout exceeds the budget is named in one INFO line at start.
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder probeBudget(Duration budget) {
            Objects.requireNonNull(budget, "budget");
            if (budget.compareTo(Duration.ofMillis(1)) < 0 || budget.compareTo(Duration.ofSeconds(60)) > 0) {
                throw new IllegalArgumentException("probeBudget must be in 1 ms..60 s, was " + budget);
            }
            this.probeBudget = budget;
            return this;
        }

        /**
         * @param bytes limit of the request line and of the header block, each, 256–1,048,576
         *     bytes; default 8192. Over it: 431 (headers) or 400 (line), then close.
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder maxHeaderSize(int bytes) {
            if (bytes < 256 || bytes > 1 << 20) {
                throw new IllegalArgumentException("maxHeaderSize must be in 256..1048576 bytes, was " + bytes);
            }
            this.maxHeaderSize = bytes;
            return this;
        }

        /**
         * @param timeout time a request may take to arrive completely, from its first byte (from
         *     the connection's opening, for the first request), 1 ms to 1 day; default 5 s. A
         *     connection that misses it is closed without an answer; the deadline is not pushed
         *     back by each byte, so a slow-drip client is shed at it however it paces its bytes.
         * @return this builder
         * @throws IllegalArgumentException if shorter than 1 ms or longer than 1 day
         */
        public Builder readTimeout(Duration timeout) {
            this.readTimeout = atLeastOneMilli("readTimeout", timeout);
            return this;
        }

        /**
         * @param timeout time a kept-alive connection may sit without a request, 1 ms to 1 day;
         *     default 60 s
         * @return this builder
         * @throws IllegalArgumentException if shorter than 1 ms or longer than 1 day
         */
        public Builder idleTimeout(Duration timeout) {
            this.idleTimeout = atLeastOneMilli("idleTimeout", timeout);
            return this;
        }

        /**
         * @param path a prefix for every route, such as {@code /probes} (then
         *     {@code /probes/livez}); "" (the default) for none. Starts with '/', does not end
         *     with '/', letters, digits and {@code - . _ ~ /} only.
         * @return this builder
         * @throws IllegalArgumentException if malformed
         */
        public Builder basePath(String path) {
            Objects.requireNonNull(path, "path");
            if (!path.isEmpty()) {
                if (!path.startsWith("/") || path.endsWith("/") || path.contains("//")) {
                    throw new IllegalArgumentException("basePath must start with '/' and not end with '/', was '" + path + "'");
                }
                for (int i = 0; i < path.length(); i++) {
                    char c = path.charAt(i);
                    boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                            || c == '-' || c == '.' || c == '_' || c == '~' || c == '/';
                    if (!ok) {
                        throw new IllegalArgumentException("basePath may hold letters, digits and - . _ ~ / only, was '"
                                + path + "'");
                    }
                }
            }
            this.basePath = path;
            return this;
        }

        /**
         * @param policy who may see details, error messages and error types; default
         *     {@link DetailsPolicy#never()}
         * @return this builder
         * @throws NullPointerException if {@code policy} is null
         */
        public Builder detailsPolicy(DetailsPolicy policy) {
            this.detailsPolicy = Objects.requireNonNull(policy, "policy");
            return this;
        }

        /**
         * @return the server, not started
         * @throws IllegalArgumentException if maxConnectionsPerAddress exceeds maxConnections
         */
        public ProbeServer build() {
            if (maxConnectionsPerAddress > maxConnections) {
                throw new IllegalArgumentException("maxConnectionsPerAddress must be at most maxConnections ("
                        + maxConnections + "), was " + maxConnectionsPerAddress);
            }
            return new ProbeServer(this);
        }

        private static Duration atLeastOneMilli(String name, Duration d) {
            Objects.requireNonNull(d, name);
            if (d.compareTo(Duration.ofMillis(1)) < 0) {
                throw new IllegalArgumentException(name + " must be at least 1 ms, was " + d);
            }
            if (d.compareTo(MAX_TIMEOUT) > 0) {
                throw new IllegalArgumentException(name + " must be at most 1 day (" + MAX_TIMEOUT + "), was " + d);
            }
            return d;
        }
    }
}
