package dev.vitals.server;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@link ProbeServer.Transport#JDK}: the probe server on {@code java.nio} alone. N event loops
 * ({@code vitals-probe-N} daemon threads), each a {@link Selector} with a task queue (woken by
 * {@link Selector#wakeup()}) and a timer queue (the select waits until the earliest timer); the
 * first loop also accepts, handing connections to the loops in turn. Never a thread per
 * connection.
 *
 * <p>Per connection, everything runs on its loop, so the state needs no locks: {@link Http1Parser}
 * reads request heads incrementally; requests pipelined behind an on-demand evaluation wait in a
 * queue of at most 16 (more closes the connection) and are answered in order; answers are written
 * at once when the socket takes them, else the rest waits for {@code OP_WRITE} and the connection
 * is not read meanwhile (a client that does not read its answers stops being read; the idle
 * deadline closes it). A closing connection is closed lingering: output shut down, input read and
 * dropped until the client closes, for at most 2 s (or the read timeout, if shorter).
 *
 * <p>Deadlines, as on the Netty transport: a request must arrive within the read timeout of its
 * first byte (of the connection's opening, for the first request), never pushed back by later
 * bytes; a kept-alive connection may sit without a byte for the idle timeout. One lazily
 * re-armed timer per connection enforces both.
 */
final class NioTransport implements ServerTransport {
    private static final System.Logger LOG = System.getLogger("dev.vitals.server");
    private static final byte[] CRLF = {'\r', '\n'};
    private static final byte[] NOTHING = {};
    private static final byte[] CONNECTION_CLOSE = "Connection: close\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CONNECTION_KEEP_ALIVE = "Connection: keep-alive\r\n".getBytes(StandardCharsets.US_ASCII);
    /** Pipelined requests queued behind one being answered; one more closes the connection. */
    static final int MAX_QUEUED = 16;
    /** Connections accepted per wake-up of the accepting loop, so reading is not starved during a flood. */
    private static final int ACCEPTS_PER_WAKEUP = 16;
    /** Bytes read at once; one buffer per loop, shared by its connections. */
    private static final int READ_BUFFER = 16 * 1024;

    private final ProbeServer server;
    private final ProbeResponder responder;
    private final AtomicLong acceptFailures = new AtomicLong();
    private final AtomicInteger open = new AtomicInteger();
    private Loop[] loops;
    private ServerSocketChannel listener;
    private volatile boolean accepting;

    NioTransport(ProbeServer server, ProbeResponder responder) {
        this.server = server;
        this.responder = responder;
    }

    // ------------------------------------------------------------------ lifecycle

    @Override
    public InetSocketAddress bind(InetSocketAddress address) {
        int n = server.eventLoopThreads();
        Loop[] created = new Loop[n];
        ServerSocketChannel ssc = null;
        InetSocketAddress bound;
        try {
            ssc = ServerSocketChannel.open();
            ssc.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            ssc.bind(address, ProbeServer.ACCEPT_BACKLOG);
            ssc.configureBlocking(false);
            bound = (InetSocketAddress) ssc.getLocalAddress();
            for (int i = 0; i < n; i++) {
                created[i] = new Loop(Selector.open());
            }
            created[0].acceptKey = ssc.register(created[0].selector, SelectionKey.OP_ACCEPT);
        } catch (IOException | RuntimeException e) {
            closeQuietly(ssc);
            for (Loop l : created) {
                if (l != null) {
                    closeQuietly(l.selector);
                }
            }
            throw server.bindFailed(e);
        }
        listener = ssc;
        loops = created;
        accepting = true;
        for (Loop l : created) {
            l.thread.start();
        }
        return bound;
    }

    @Override
    public void stopAccepting(long waitMillis) {
        CountDownLatch done = new CountDownLatch(1);
        Loop first = loops[0];
        first.execute(() -> {
            accepting = false;
            first.acceptKey.cancel();
            closeQuietly(listener);
            done.countDown();
        });
        await(done, waitMillis);
    }

    @Override
    public void closeIdle() {
        for (Loop l : loops) {
            l.execute(() -> {
                for (Conn c : new ArrayList<>(l.conns)) {
                    c.closeIfIdle();
                }
            });
        }
    }

    @Override
    public int connections() {
        return open.get();
    }

    @Override
    public void shutdown(long graceMillis) {
        for (Loop l : loops) {
            l.execute(() -> l.exit = true);
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(graceMillis + 5000);
        for (Loop l : loops) {
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            try {
                l.thread.join(Math.max(1, left));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** @return whether the listening socket is being watched for connections (false while paused and after stop) */
    boolean accepting() {
        return accepting;
    }

    /** @return how many times {@code accept()} failed */
    long acceptFailures() {
        return acceptFailures.get();
    }

    /** For tests: handles {@code failure} on the accepting loop exactly as a failed {@code accept()}. */
    void simulateAcceptFailure(IOException failure) {
        Loop first = loops[0];
        first.execute(() -> first.acceptFailed(failure));
    }

    private static void await(CountDownLatch latch, long millis) {
        try {
            latch.await(Math.max(1, millis), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void closeQuietly(java.io.Closeable c) {
        if (c != null) {
            try {
                c.close();
            } catch (IOException e) {
                // nothing to do
            }
        }
    }

    // ------------------------------------------------------------------ event loop

    /** A one-shot timer on a loop; cancelled ones stay queued until their time and are skipped. */
    private static final class Timer implements Comparable<Timer> {
        final long at;
        final long seq;
        final Runnable task;
        boolean cancelled;

        Timer(long at, long seq, Runnable task) {
            this.at = at;
            this.seq = seq;
            this.task = task;
        }

        void cancel() {
            cancelled = true;
        }

        @Override
        public int compareTo(Timer o) {
            long d = at - o.at;
            return d < 0 ? -1 : d > 0 ? 1 : Long.compare(seq, o.seq);
        }
    }

    private final class Loop implements Runnable {
        final Selector selector;
        final Thread thread;
        final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
        final AtomicBoolean wakeupPending = new AtomicBoolean();
        final PriorityQueue<Timer> timers = new PriorityQueue<>();
        final ByteBuffer readBuffer = ByteBuffer.allocateDirect(READ_BUFFER);
        final Set<Conn> conns = new HashSet<>();
        SelectionKey acceptKey;
        boolean exit;
        private long seq;
        private int next; // the loop that gets the next connection (accepting loop only)

        Loop(Selector selector) {
            this.selector = selector;
            this.thread = new Thread(this, ProbeServer.nextThreadName());
            this.thread.setDaemon(true);
        }

        boolean inLoop() {
            return Thread.currentThread() == thread;
        }

        /** Runs {@code task} on this loop, after the tasks queued before it. Any thread. */
        void execute(Runnable task) {
            tasks.add(task);
            if (!inLoop() && wakeupPending.compareAndSet(false, true)) {
                selector.wakeup();
            }
        }

        /** Runs {@code task} on this loop after {@code delayNanos}. Loop thread only. */
        Timer schedule(long delayNanos, Runnable task) {
            Timer t = new Timer(System.nanoTime() + delayNanos, seq++, task);
            timers.add(t);
            return t;
        }

        @Override
        public void run() {
            try {
                while (!exit) {
                    runTasks();
                    if (exit) {
                        break;
                    }
                    long wait = nextTimerMillis();
                    wakeupPending.set(false);
                    if (!tasks.isEmpty() || wait == 0) {
                        selector.selectNow();
                    } else if (wait < 0) {
                        selector.select();
                    } else {
                        selector.select(wait);
                    }
                    processKeys();
                    runTimers();
                }
            } catch (IOException | RuntimeException | Error e) {
                LOG.log(Level.WARNING, "probe server: event loop " + thread.getName() + " stopped: " + e);
            } finally {
                for (Conn c : new ArrayList<>(conns)) {
                    c.close();
                }
                for (SelectionKey k : selector.keys()) {
                    closeQuietly(k.channel());
                }
                closeQuietly(selector);
                // Connections handed to this loop but never registered.
                for (Runnable r = tasks.poll(); r != null; r = tasks.poll()) {
                    if (r instanceof Conn) {
                        ((Conn) r).close();
                    }
                }
            }
        }

        private void runTasks() {
            for (int i = tasks.size(); i > 0; i--) { // those queued now; later ones wait for the next turn
                Runnable r = tasks.poll();
                if (r == null) {
                    return;
                }
                safely(r);
            }
        }

        private void safely(Runnable r) {
            try {
                r.run();
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "probe server: unexpected error on " + thread.getName() + ": " + e);
            }
        }

        /** @return milliseconds to the earliest timer, 0 if due, -1 for none */
        private long nextTimerMillis() {
            while (!timers.isEmpty() && timers.peek().cancelled) {
                timers.poll();
            }
            if (timers.isEmpty()) {
                return -1;
            }
            long nanos = timers.peek().at - System.nanoTime();
            return nanos <= 0 ? 0 : Math.max(1, (nanos + 999_999) / 1_000_000);
        }

        private void runTimers() {
            long now = System.nanoTime();
            while (!timers.isEmpty() && timers.peek().at - now <= 0) {
                Timer t = timers.poll();
                if (!t.cancelled) {
                    safely(t.task);
                }
            }
        }

        private void processKeys() {
            Iterator<SelectionKey> it = selector.selectedKeys().iterator();
            while (it.hasNext()) {
                SelectionKey k = it.next();
                it.remove();
                if (!k.isValid()) {
                    continue;
                }
                if (k == acceptKey) {
                    acceptSome();
                    continue;
                }
                Conn c = (Conn) k.attachment();
                try {
                    int ready = k.readyOps();
                    if ((ready & SelectionKey.OP_WRITE) != 0) {
                        c.flush();
                    }
                    if (k.isValid() && (ready & SelectionKey.OP_READ) != 0) {
                        c.onReadable();
                    }
                } catch (RuntimeException e) {
                    LOG.log(Level.WARNING, "probe server: unexpected error on connection " + c.remote + ": " + e);
                    c.close();
                }
            }
        }

        private void acceptSome() {
            for (int i = 0; i < ACCEPTS_PER_WAKEUP && accepting; i++) {
                SocketChannel ch;
                try {
                    ch = listener.accept();
                } catch (IOException e) {
                    acceptFailed(e);
                    return;
                }
                if (ch == null) {
                    return;
                }
                InetAddress peer;
                String remote;
                try {
                    ch.configureBlocking(false);
                    ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
                    SocketAddress a = ch.getRemoteAddress();
                    remote = String.valueOf(a);
                    peer = a instanceof InetSocketAddress ? ((InetSocketAddress) a).getAddress() : null;
                } catch (IOException e) {
                    closeQuietly(ch); // reset before we looked at it
                    continue;
                }
                Loop target = loops[next];
                next = (next + 1) % loops.length;
                Conn c = new Conn(target, ch, peer, remote);
                open.incrementAndGet();
                // At the limit, make room: never refuse the newest connection (DESIGN.md 6b).
                server.admit(c.entry);
                if (target == this) {
                    c.run();
                } else {
                    target.execute(c);
                }
            }
        }

        /**
         * {@code accept()} failed (e.g. "Too many open files"): one debug line (the first, then
         * every 1000th) and a pause of a second, so the loop cannot spin on a connection it cannot
         * take; connections keep waiting in the kernel's queue meanwhile.
         */
        void acceptFailed(IOException e) {
            ProbeServer.acceptFailed(acceptFailures.incrementAndGet(), e);
            if (accepting && acceptKey.isValid()) {
                accepting = false;
                acceptKey.interestOps(0);
                schedule(TimeUnit.MILLISECONDS.toNanos(ProbeServer.ACCEPT_PAUSE_MILLIS), () -> {
                    if (acceptKey.isValid()) {
                        acceptKey.interestOps(SelectionKey.OP_ACCEPT);
                        accepting = true;
                    }
                });
            }
        }
    }

    // ------------------------------------------------------------------ one connection

    /** One connection; everything but {@link #evict()} runs on its loop. {@link #run()} registers it. */
    private final class Conn implements Runnable, ConnectionTable.Handle {
        final Loop loop;
        final SocketChannel ch;
        final String remote;
        final ConnectionTable.Entry entry;
        private final Http1Parser parser;
        private SelectionKey key;
        private boolean closed;
        // deadlines
        private boolean reading = true;
        private boolean hasDeadline;
        private long deadline;
        private Timer timer;
        private long timerAt;
        private Timer linger;
        // requests and answers
        private boolean busy;
        private boolean closing;
        private boolean closeAfterFlush;
        private boolean errorLogged;
        private Pending pending;
        private final ArrayDeque<Http1Parser.Request> queued = new ArrayDeque<>(2);
        private final ArrayDeque<ByteBuffer> out = new ArrayDeque<>(2);

        Conn(Loop loop, SocketChannel ch, InetAddress peer, String remote) {
            this.loop = loop;
            this.ch = ch;
            this.remote = remote;
            this.entry = new ConnectionTable.Entry(this, peer);
            this.parser = new Http1Parser(server.maxHeaderSize());
        }

        /** Registers with the loop's selector; the read deadline runs from here (the opening). */
        @Override
        public void run() {
            if (closed) {
                return;
            }
            if (loop.exit) {
                close();
                return;
            }
            try {
                key = ch.register(loop.selector, SelectionKey.OP_READ, this);
            } catch (ClosedChannelException | RuntimeException e) {
                close();
                return;
            }
            loop.conns.add(this);
            reading = true;
            setDeadline(System.nanoTime() + server.readTimeoutNanos());
        }

        // -------------------------------------------------------------- deadlines

        private void setDeadline(long at) {
            deadline = at;
            hasDeadline = true;
            if (timer == null || at - timerAt < 0) {
                if (timer != null) {
                    timer.cancel();
                }
                timerAt = at;
                timer = loop.schedule(at - System.nanoTime(), this::onTimer);
            }
        }

        private void onTimer() {
            timer = null;
            if (!hasDeadline || closed) {
                return;
            }
            long left = deadline - System.nanoTime();
            if (left > 0) {
                timerAt = deadline;
                timer = loop.schedule(left, this::onTimer);
                return;
            }
            LOG.log(Level.DEBUG, () -> "probe connection " + remote + " closed: "
                    + (reading ? "no complete request within the read timeout" : "idle timeout"));
            close();
        }

        // -------------------------------------------------------------- closing

        @Override
        public void evict() {
            if (loop.inLoop()) {
                evictNow(); // at once: the descriptor is free before the next accept
            } else {
                loop.execute(this::evictNow);
            }
        }

        private void evictNow() {
            if (!closed) {
                LOG.log(Level.TRACE, () -> "probe connection " + remote + " closed to make room for a newer one");
                close();
            }
        }

        /** Closes the connection unless an answer is being prepared; used by a graceful stop. */
        void closeIfIdle() {
            if (!busy) {
                close();
            }
        }

        private void error(IOException e) {
            if (!errorLogged) {
                errorLogged = true;
                LOG.log(Level.DEBUG, () -> "probe connection " + remote + " closed after error: " + e);
            }
            close();
        }

        void close() {
            if (closed) {
                return;
            }
            closed = true;
            closing = true;
            hasDeadline = false;
            if (timer != null) {
                timer.cancel();
                timer = null;
            }
            if (linger != null) {
                linger.cancel();
                linger = null;
            }
            if (pending != null) {
                pending.done = true;
                if (pending.safety != null) {
                    pending.safety.cancel();
                }
                pending = null;
            }
            queued.clear();
            out.clear();
            if (key != null) {
                key.cancel();
            }
            closeQuietly(ch);
            loop.conns.remove(this);
            open.decrementAndGet();
            server.closed(entry);
        }

        /**
         * Half-closes after the last answer and reads (and drops) whatever the client still sends
         * until it closes, for at most {@link ProbeConnection#LINGER_MILLIS} (or the read
         * timeout, if shorter). Closing at once with unread input would make the kernel send a
         * reset, which can destroy the answer (a 431 to a 200 KB header, say) before the client
         * reads it.
         */
        private void lingeringClose() {
            try {
                ch.shutdownOutput();
            } catch (IOException e) {
                close();
                return;
            }
            interest(SelectionKey.OP_READ);
            long millis = Math.min(ProbeConnection.LINGER_MILLIS, TimeUnit.NANOSECONDS.toMillis(server.readTimeoutNanos()));
            linger = loop.schedule(TimeUnit.MILLISECONDS.toNanos(Math.max(1, millis)), this::close);
        }

        // -------------------------------------------------------------- reading

        void onReadable() {
            ByteBuffer buf = loop.readBuffer;
            buf.clear();
            int n;
            try {
                n = ch.read(buf);
            } catch (IOException e) {
                error(e);
                return;
            }
            if (n < 0) {
                close(); // the client closed its side: no half-open connections
                return;
            }
            if (n == 0 || closing) {
                return; // a closing connection drops what it reads
            }
            if (!reading && !busy) {
                reading = true;
                setDeadline(System.nanoTime() + server.readTimeoutNanos());
            }
            buf.flip();
            while (!closing) {
                Http1Parser.Request req = parser.next(buf);
                if (req == null) {
                    break;
                }
                onRequest(req);
            }
            flush();
        }

        private void onRequest(Http1Parser.Request req) {
            if (busy) {
                if (queued.size() >= MAX_QUEUED) {
                    LOG.log(Level.DEBUG, () -> "probe connection " + remote + " closed: more than " + MAX_QUEUED
                            + " pipelined requests");
                    close();
                    return;
                }
                queued.add(req);
                return;
            }
            process(req);
        }

        // -------------------------------------------------------------- answering

        private void process(Http1Parser.Request req) {
            reading = false;
            hasDeadline = false;
            if (req.failure != null) {
                LOG.log(Level.DEBUG, () -> "probe connection " + remote + ": bad request, " + req.failure.status()
                        + " and closing: " + req.cause);
                write(req.failure, false, false, false);
                return;
            }
            boolean head = "HEAD".equals(req.method);
            boolean keepAlive = req.keepAlive && !req.hasBody && !server.isStopping();
            Route route = responder.router().route(req.method, req.target, req.authorization);
            if (!responder.needsEvaluation(route)) {
                write(responder.answerNow(route), head, keepAlive, req.http10);
                return;
            }
            // On-demand checks: evaluate on Vitals' executor, answer back on the loop.
            busy = true;
            entry.busy = true;
            Pending p = new Pending(head, keepAlive, req.http10);
            pending = p;
            long safetyMillis = responder.wait(route).toMillis() + ProbeConnection.SAFETY_MARGIN_MILLIS;
            p.safety = loop.schedule(TimeUnit.MILLISECONDS.toNanos(safetyMillis), () -> {
                LOG.log(Level.DEBUG, () -> "on-demand evaluation of " + route.groups() + " missed its deadline of "
                        + safetyMillis + " ms; answering from the current state");
                complete(p, responder.answerNow(route));
            });
            CompletableFuture<ProbeResponse> f = responder.evaluate(route);
            f.whenComplete((response, error) -> {
                ProbeResponse r = response != null ? response : responder.answerNow(route);
                if (loop.inLoop()) {
                    complete(p, r);
                } else {
                    loop.execute(() -> complete(p, r));
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
            busy = false;
            entry.busy = false;
            if (closed) {
                return;
            }
            boolean keepAlive = p.keepAlive && !server.isStopping();
            write(response, p.head, keepAlive, p.http10);
            while (!busy && !closing && !queued.isEmpty()) {
                process(queued.poll());
            }
            flush();
        }

        /** Queues an answer; {@link #flush()} writes it (at the end of the read, or at once when closing). */
        private void write(ProbeResponse r, boolean head, boolean keepAlive, boolean http10) {
            byte[] h = r.head();
            byte[] connection = !keepAlive ? CONNECTION_CLOSE : http10 ? CONNECTION_KEEP_ALIVE : NOTHING;
            byte[] body = head ? NOTHING : r.body();
            server.answered(entry);
            byte[] all = new byte[h.length + connection.length + CRLF.length + body.length];
            System.arraycopy(h, 0, all, 0, h.length);
            System.arraycopy(connection, 0, all, h.length, connection.length);
            System.arraycopy(CRLF, 0, all, h.length + connection.length, CRLF.length);
            System.arraycopy(body, 0, all, h.length + connection.length + CRLF.length, body.length);
            out.add(ByteBuffer.wrap(all));
            if (!keepAlive) {
                closing = true;
                closeAfterFlush = true;
                hasDeadline = false;
                flush();
                return;
            }
            if (!busy) {
                reading = false;
                setDeadline(System.nanoTime() + server.idleTimeoutNanos());
            }
        }

        /**
         * Writes what the socket takes. The rest waits for {@code OP_WRITE}, and the connection is
         * not read until it is written: a client that reads no answers stops being read.
         */
        void flush() {
            if (closed || (key == null)) {
                return;
            }
            while (!out.isEmpty()) {
                ByteBuffer b = out.peek();
                try {
                    ch.write(b);
                } catch (IOException e) {
                    error(e);
                    return;
                }
                if (b.hasRemaining()) {
                    interest(SelectionKey.OP_WRITE);
                    return;
                }
                out.poll();
            }
            if (closeAfterFlush) {
                closeAfterFlush = false;
                lingeringClose();
                return;
            }
            interest(SelectionKey.OP_READ);
        }

        private void interest(int ops) {
            if (key.isValid() && key.interestOps() != ops) {
                key.interestOps(ops);
            }
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
