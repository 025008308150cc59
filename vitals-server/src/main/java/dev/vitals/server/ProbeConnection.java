package dev.vitals.server;

import dev.vitals.Clock;
import dev.vitals.internal.ConnectionTable;
import dev.vitals.internal.Logs;
import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One probe-server connection's protocol, the same for both transports and free of I/O: bytes
 * in ({@link #read}), decisions and bytes out through its {@link Io} — answer these bytes, flush,
 * close lingering after the last answer, close now, arm a timer. {@link NettyTransport} and
 * {@link NioTransport} are thin adapters around it that move bytes and run timers; every rule
 * lives here once:
 *
 * <ul>
 *   <li>Parsing: {@link Http1Parser}, the one HTTP/1.x path (limits, 400 on a control byte at
 *       once, 431 for a long header block).</li>
 *   <li>Deadlines: a request must arrive completely within the read timeout of its first byte
 *       (of the connection's opening, for the first request), never pushed back by later bytes;
 *       a kept-alive connection may sit without a byte for the idle timeout. One lazily re-armed
 *       timer per connection enforces both.</li>
 *   <li>Answers: at once from the registry's in-memory report, or, for groups with on-demand
 *       checks, when the evaluation completes on Vitals' check executor (hopping back to the
 *       loop), with a safety deadline of the route's wait + {@value #SAFETY_MARGIN_MILLIS} ms
 *       after which the answer comes from memory. Requests pipelined meanwhile wait in a queue of
 *       at most {@value #MAX_QUEUED} (one more closes the connection) and are answered in order.</li>
 *   <li>Keep-alive: HTTP/1.1 unless {@code Connection: close}, HTTP/1.0 only with
 *       {@code Connection: keep-alive}; never for a request with a body, a bad request or while
 *       the server stops. A connection not kept alive is closed lingering after its last answer
 *       ({@link Io#closeAfterWriting}), for at most {@value #LINGER_MILLIS} ms or the read
 *       timeout.</li>
 *   <li>Connection policy: its {@link ConnectionTable.Entry} is marked busy while an answer is
 *       prepared, moved to the young end on each answer, and removed on close; {@link #evict}
 *       closes it when the table makes room.</li>
 *   <li>Logging: one debug line per connection error, without a stack trace.</li>
 * </ul>
 *
 * <p>Everything but {@link #evict()} runs on the connection's event loop, so the state needs no
 * locks. Its adapter calls {@link #opened()} once, {@link #read} for each chunk of input,
 * {@link #failed} on an I/O error and {@link #closed()} once the connection is closed.
 */
final class ProbeConnection implements ConnectionTable.Handle {
    /**
     * What a transport does for one connection; every call comes from the connection's event loop
     * except {@link #execute} and {@link #inLoop}.
     */
    interface Io {
        /**
         * Queues one answer, whose bytes are {@code head}, {@code connection} and {@code body} in
         * that order; nothing is written before {@link #flush()} or {@link #closeAfterWriting}.
         */
        void write(byte[] head, byte[] connection, byte[] body);

        /** Writes what is queued, as far as the socket takes it now (the rest when it can). */
        void flush();

        /**
         * Writes what is queued, then closes lingering: shuts output down, keeps reading (the
         * connection drops what arrives) until the client closes, and closes after
         * {@code lingerMillis} at the latest, or at once if writing failed. Closing at once with
         * unread input would make the kernel send a reset, which can destroy the answer (a 431 to
         * a 200 KB header, say) before the client reads it.
         */
        void closeAfterWriting(long lingerMillis);

        /** Closes now; {@link ProbeConnection#closed()} follows on the loop. */
        void close();

        /** Runs {@code task} on the loop after {@code delayNanos}. */
        Timer schedule(long delayNanos, Runnable task);

        /** Runs {@code task} on the loop, from any thread; dropped when the loop has stopped. */
        void execute(Runnable task);

        /** @return whether the calling thread is the connection's event loop */
        boolean inLoop();

        /** @return the peer, for log lines */
        Object remote();
    }

    /**
     * What a connection reads from its server — limits, deadlines, whether the server stops, the
     * clock the deadlines run on — and the connection table it is in. {@link ProbeServer}
     * implements it privately; a test gives a manual clock. Thread-safe.
     */
    interface Settings {
        /** @return the longest request head, in bytes (431 beyond it) */
        int maxHeaderSize();

        /** @return how long a request may take to arrive from its first byte, in nanoseconds */
        long readTimeoutNanos();

        /** @return how long a kept-alive connection may sit without a byte, in nanoseconds */
        long idleTimeoutNanos();

        /** @return whether the server is stopping: no answer keeps its connection alive then */
        boolean stopping();

        /** @return the monotonic clock of the deadlines */
        Clock clock();

        /** @return the server's connection table (DESIGN.md 6b) */
        ConnectionTable<ProbeConnection> table();
    }

    /**
     * Where the connection is. Deadlines hold in {@code READING} (the read timeout from the
     * request's first byte) and {@code IDLE} (the idle timeout), none elsewhere.
     */
    enum Phase {
        /** A request is expected or arriving: the read deadline runs. */
        READING,
        /** Kept alive after an answer, no byte of the next request yet: the idle deadline runs. */
        IDLE,
        /** An on-demand evaluation prepares the answer; pipelined requests queue behind it. */
        ANSWERING,
        /** Closing: lingering after its last answer, or asked to close; input is dropped. */
        CLOSING,
        /** Closed; terminal. */
        CLOSED
    }

    /** A timer armed by {@link Io#schedule}. */
    interface Timer {
        /** Cancels it; a timer that ran or was cancelled stays so. */
        void cancel();
    }

    private static final System.Logger LOG = Logs.get("dev.vitals.server");
    private static final byte[] NOTHING = {};
    /** The end of the head: the {@code Connection} header, if any, and the blank line. */
    private static final byte[] END = "\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CONNECTION_CLOSE = "Connection: close\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CONNECTION_KEEP_ALIVE = "Connection: keep-alive\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    /** Pipelined requests queued behind one being answered; one more closes the connection. */
    static final int MAX_QUEUED = 16;
    /**
     * Slack granted on top of the route's wait (the probe budget, or the group deadline if
     * shorter or for a JSON report) before the event loop answers by itself from memory.
     */
    static final long SAFETY_MARGIN_MILLIS = 100;
    /** Longest wait for a client to close after the last answer on a closing connection. */
    static final long LINGER_MILLIS = 2000;

    private final Settings settings;
    private final Clock clock;
    private final ProbeResponder responder;
    private final Io io;
    private final ConnectionTable.Entry<ProbeConnection> entry;
    private final Http1Parser parser;
    /** Written on the loop only; volatile for {@link #busy()}, which the table reads from any thread. */
    private volatile Phase phase = Phase.READING;
    // the deadline of READING or IDLE, and the one lazily re-armed timer that enforces it
    private long deadline;
    private Timer timer;
    private long timerAt;
    // output and logging
    private boolean needsFlush;
    private boolean errorLogged;
    private Pending pending;
    private final ArrayDeque<Http1Parser.Request> queued = new ArrayDeque<>(2);

    /**
     * @param settings the server's limits, deadlines, clock and connection table
     * @param responder answers routes
     * @param io the adapter that moves this connection's bytes
     * @param peer the peer's address, for the connection table's per-address share; null if unknown
     */
    ProbeConnection(Settings settings, ProbeResponder responder, Io io, InetAddress peer) {
        this.settings = settings;
        this.clock = settings.clock();
        this.responder = responder;
        this.io = io;
        this.entry = new ConnectionTable.Entry<>(this, peer);
        this.parser = new Http1Parser(settings.maxHeaderSize());
    }

    /** @return where the connection is */
    Phase phase() {
        return phase;
    }

    /** @return this connection's entry in the server's connection table */
    ConnectionTable.Entry<ProbeConnection> entry() {
        return entry;
    }

    /** @return whether an answer is being prepared (an on-demand evaluation runs); thread-safe */
    @Override
    public boolean busy() {
        return phase == Phase.ANSWERING;
    }

    // ------------------------------------------------------------------ events from the adapter

    /** The connection is open and read from: the first request's read deadline runs from now. */
    void opened() {
        await(Phase.READING, settings.readTimeoutNanos());
    }

    /**
     * Bytes arrived: parses them and answers what is complete; consumes {@code in}. A closing
     * connection drops what it reads.
     */
    void read(ByteBuffer in) {
        if (closing() || !in.hasRemaining()) {
            return;
        }
        if (phase == Phase.IDLE) {
            // The first byte of a request: its read deadline runs from here, later bytes never push it back.
            await(Phase.READING, settings.readTimeoutNanos());
        }
        while (!closing()) {
            Http1Parser.Request req = parser.next(in);
            if (req == null) {
                break;
            }
            onRequest(req);
        }
        flush();
    }

    /** Reading or writing failed: logged once per connection, at debug level, and closed. */
    void failed(Throwable cause) {
        if (!errorLogged) {
            errorLogged = true;
            LOG.log(Level.DEBUG, () -> "probe connection " + io.remote() + " closed after error: " + cause);
        }
        close();
    }

    /** The connection is closed (whoever closed it). Idempotent. */
    void closed() {
        if (phase == Phase.CLOSED) {
            return;
        }
        phase = Phase.CLOSED;
        if (timer != null) {
            timer.cancel();
            timer = null;
        }
        if (pending != null) {
            pending.done = true;
            if (pending.safety != null) {
                pending.safety.cancel();
            }
            pending = null;
        }
        queued.clear();
        settings.table().remove(entry);
    }

    /**
     * The connection table chose this connection to make room: closed on its loop, at once if
     * there. Called from any thread.
     */
    void evict() {
        if (io.inLoop()) {
            evictNow(); // at once: the descriptor is free before the next accept
        } else {
            io.execute(this::evictNow);
        }
    }

    private void evictNow() {
        if (phase != Phase.CLOSED) {
            LOG.log(Level.TRACE, () -> "probe connection " + io.remote() + " closed to make room for a newer one");
            close();
        }
    }

    /** Closes the connection unless an answer is being prepared; used by a graceful stop. */
    void closeIfIdle() {
        if (phase != Phase.ANSWERING && phase != Phase.CLOSED) {
            close();
        }
    }

    private void close() {
        if (phase != Phase.CLOSED) {
            phase = Phase.CLOSING;
        }
        io.close();
    }

    /** @return whether the connection is closing or closed: input is dropped, nothing more is answered */
    private boolean closing() {
        return phase == Phase.CLOSING || phase == Phase.CLOSED;
    }

    // ------------------------------------------------------------------ deadlines

    /** Enters {@code READING} or {@code IDLE}, whose deadline is {@code timeoutNanos} from now. */
    private void await(Phase next, long timeoutNanos) {
        phase = next;
        long at = clock.monotonicTime() + timeoutNanos;
        deadline = at;
        if (timer == null || at - timerAt < 0) {
            if (timer != null) {
                timer.cancel();
            }
            timerAt = at;
            timer = io.schedule(at - clock.monotonicTime(), this::onTimer);
        }
    }

    private void onTimer() {
        timer = null;
        if (phase != Phase.READING && phase != Phase.IDLE) {
            return;
        }
        long left = deadline - clock.monotonicTime();
        if (left > 0) {
            timerAt = deadline;
            timer = io.schedule(left, this::onTimer);
            return;
        }
        LOG.log(Level.DEBUG, () -> "probe connection " + io.remote() + " closed: "
                + (phase == Phase.READING ? "no complete request within the read timeout" : "idle timeout"));
        close();
    }

    // ------------------------------------------------------------------ answering

    private void onRequest(Http1Parser.Request req) {
        if (phase == Phase.ANSWERING) {
            if (queued.size() >= MAX_QUEUED) {
                LOG.log(Level.DEBUG, () -> "probe connection " + io.remote() + " closed: more than " + MAX_QUEUED
                        + " pipelined requests");
                close();
                return;
            }
            queued.add(req);
            return;
        }
        process(req);
    }

    private void process(Http1Parser.Request req) {
        if (req.failure != null) {
            LOG.log(Level.DEBUG, () -> "probe connection " + io.remote() + ": bad request, " + req.failure.status()
                    + " and closing: " + dev.vitals.LogText.escape(req.cause, dev.vitals.LogText.CLIENT_CHARS));
            write(req.failure, false, false, false);
            return;
        }
        boolean head = "HEAD".equals(req.method);
        boolean keepAlive = req.keepAlive && !req.hasBody && !settings.stopping();
        Route route = responder.router().route(req.method, req.target, req.authorization);
        if (!responder.needsEvaluation(route)) {
            write(responder.answerNow(route), head, keepAlive, req.http10);
            return;
        }
        // On-demand checks: evaluate on Vitals' executor, answer back on the loop.
        phase = Phase.ANSWERING;
        Pending p = new Pending(head, keepAlive, req.http10);
        pending = p;
        long safetyMillis = responder.wait(route).toMillis() + SAFETY_MARGIN_MILLIS;
        p.safety = io.schedule(TimeUnit.MILLISECONDS.toNanos(safetyMillis), () -> {
            LOG.log(Level.DEBUG, () -> "on-demand evaluation of " + route.groups() + " missed its deadline of "
                    + safetyMillis + " ms; answering from the current state");
            complete(p, responder.answerNow(route));
        });
        CompletableFuture<ProbeResponse> f = responder.evaluate(route);
        f.whenComplete((response, error) -> {
            ProbeResponse r = response != null ? response : responder.answerNow(route);
            if (io.inLoop()) {
                complete(p, r);
            } else {
                io.execute(() -> complete(p, r));
            }
        });
    }

    private void complete(Pending p, ProbeResponse response) {
        if (p.done) {
            return;
        }
        p.done = true;
        p.safety.cancel();
        pending = null;
        if (closing()) {
            return;
        }
        write(response, p.head, p.keepAlive && !settings.stopping(), p.http10);
        while (phase != Phase.ANSWERING && !closing() && !queued.isEmpty()) {
            process(queued.poll());
        }
        flush();
    }

    private void write(ProbeResponse r, boolean head, boolean keepAlive, boolean http10) {
        settings.table().answered(entry);
        io.write(r.head(), !keepAlive ? CONNECTION_CLOSE : http10 ? CONNECTION_KEEP_ALIVE : END, head ? NOTHING : r.body());
        if (!keepAlive) {
            phase = Phase.CLOSING;
            needsFlush = false;
            long linger = Math.min(LINGER_MILLIS, TimeUnit.NANOSECONDS.toMillis(settings.readTimeoutNanos()));
            io.closeAfterWriting(Math.max(1, linger));
            return;
        }
        needsFlush = true;
        await(Phase.IDLE, settings.idleTimeoutNanos());
    }

    private void flush() {
        if (needsFlush) {
            needsFlush = false;
            io.flush();
        }
    }

    private static final class Pending {
        final boolean head;
        final boolean keepAlive;
        final boolean http10;
        Timer safety;
        boolean done;

        Pending(boolean head, boolean keepAlive, boolean http10) {
            this.head = head;
            this.keepAlive = keepAlive;
            this.http10 = http10;
        }
    }
}
