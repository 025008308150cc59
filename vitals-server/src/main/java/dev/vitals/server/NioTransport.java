package dev.vitals.server;

import dev.vitals.internal.Logs;
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
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.PriorityQueue;
import java.util.Set;
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
 * <p>Per connection, {@link Conn} is a thin adapter: it reads into the loop's shared buffer and
 * hands the bytes to the connection's {@link ProbeConnection}, which parses ({@link Http1Parser}),
 * keeps the deadlines, pipelining and keep-alive rules and answers, exactly as on the Netty
 * transport; {@code Conn} writes what it is given, waits for {@code OP_WRITE} when the socket is
 * full (not reading meanwhile), closes lingering when asked and runs the connection's timers on
 * the loop's timer queue.
 */
final class NioTransport implements ServerTransport {
    private static final System.Logger LOG = Logs.get("dev.vitals.server");
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
                    c.connection.closeIfIdle();
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
    private static final class LoopTimer implements Comparable<LoopTimer>, ProbeConnection.Timer {
        final long at;
        final long seq;
        final Runnable task;
        boolean cancelled;

        LoopTimer(long at, long seq, Runnable task) {
            this.at = at;
            this.seq = seq;
            this.task = task;
        }

        @Override
        public void cancel() {
            cancelled = true;
        }

        @Override
        public int compareTo(LoopTimer o) {
            long d = at - o.at;
            return d < 0 ? -1 : d > 0 ? 1 : Long.compare(seq, o.seq);
        }
    }

    private final class Loop implements Runnable {
        final Selector selector;
        final Thread thread;
        final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
        final AtomicBoolean wakeupPending = new AtomicBoolean();
        final PriorityQueue<LoopTimer> timers = new PriorityQueue<>();
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
        LoopTimer schedule(long delayNanos, Runnable task) {
            LoopTimer t = new LoopTimer(System.nanoTime() + delayNanos, seq++, task);
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
                LoopTimer t = timers.poll();
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
                server.admit(c.connection.entry());
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

    /**
     * One connection's adapter: moves bytes between its socket and its {@link ProbeConnection}
     * and runs its timers on its loop; it decides nothing about HTTP. Answers are written at once
     * when the socket takes them, else the rest waits for {@code OP_WRITE} and the connection is
     * not read meanwhile (a client that reads no answers stops being read). Everything runs on
     * its loop; {@link #run()} registers it.
     */
    private final class Conn implements Runnable, ProbeConnection.Io {
        final Loop loop;
        final SocketChannel ch;
        final String remote;
        final ProbeConnection connection;
        private SelectionKey key;
        private boolean closed;
        private boolean closeAfterFlush;
        private long lingerMillis;
        private LoopTimer linger;
        private final ArrayDeque<ByteBuffer> out = new ArrayDeque<>(2);

        Conn(Loop loop, SocketChannel ch, InetAddress peer, String remote) {
            this.loop = loop;
            this.ch = ch;
            this.remote = remote;
            this.connection = new ProbeConnection(server.connectionSettings(), responder, this, peer);
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
            connection.opened();
        }

        void onReadable() {
            ByteBuffer buf = loop.readBuffer;
            buf.clear();
            int n;
            try {
                n = ch.read(buf);
            } catch (IOException e) {
                connection.failed(e);
                return;
            }
            if (n < 0) {
                close(); // the client closed its side: no half-open connections
                return;
            }
            buf.flip();
            connection.read(buf);
        }

        @Override
        public void write(byte[] head, byte[] connectionLine, byte[] body) {
            byte[] all = new byte[head.length + connectionLine.length + body.length];
            System.arraycopy(head, 0, all, 0, head.length);
            System.arraycopy(connectionLine, 0, all, head.length, connectionLine.length);
            System.arraycopy(body, 0, all, head.length + connectionLine.length, body.length);
            out.add(ByteBuffer.wrap(all));
        }

        /**
         * Writes what the socket takes. The rest waits for {@code OP_WRITE}, and the connection is
         * not read until it is written: a client that reads no answers stops being read.
         */
        @Override
        public void flush() {
            if (closed || key == null) {
                return;
            }
            while (!out.isEmpty()) {
                ByteBuffer b = out.peek();
                try {
                    ch.write(b);
                } catch (IOException e) {
                    connection.failed(e);
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
                try {
                    ch.shutdownOutput();
                } catch (IOException e) {
                    close();
                    return;
                }
                linger = loop.schedule(TimeUnit.MILLISECONDS.toNanos(lingerMillis), this::close);
            }
            interest(SelectionKey.OP_READ);
        }

        @Override
        public void closeAfterWriting(long millis) {
            closeAfterFlush = true;
            lingerMillis = millis;
            flush();
        }

        @Override
        public void close() {
            if (closed) {
                return;
            }
            closed = true;
            if (linger != null) {
                linger.cancel();
                linger = null;
            }
            out.clear();
            if (key != null) {
                key.cancel();
            }
            closeQuietly(ch);
            loop.conns.remove(this);
            open.decrementAndGet();
            connection.closed();
        }

        @Override
        public ProbeConnection.Timer schedule(long delayNanos, Runnable task) {
            return loop.schedule(delayNanos, task);
        }

        @Override
        public void execute(Runnable task) {
            loop.execute(task);
        }

        @Override
        public boolean inLoop() {
            return loop.inLoop();
        }

        @Override
        public Object remote() {
            return remote;
        }

        private void interest(int ops) {
            if (key.isValid() && key.interestOps() != ops) {
                key.interestOps(ops);
            }
        }
    }
}
