package dev.vitals.grpc;

import dev.vitals.internal.ConnectionTable;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.netty.shaded.io.netty.buffer.ByteBuf;
import io.grpc.netty.shaded.io.netty.channel.Channel;
import io.grpc.netty.shaded.io.netty.channel.ChannelConfig;
import io.grpc.netty.shaded.io.netty.channel.ChannelHandlerContext;
import io.grpc.netty.shaded.io.netty.channel.ChannelInboundHandlerAdapter;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioServerSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioSocketChannel;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The gRPC health port's connection cap (DESIGN.md 6c): the probe ports' one connection policy,
 * vitals-core's {@link ConnectionTable} (the HTTP probe server's too): at the limit the newest connection is never refused (a kubelet probe is
 * always a new connection); the connection that has gone longest without a call is closed to make
 * room, connections with a call open (a Watch, a Check being answered) last. A peer address at its
 * share makes room among its own connections.
 *
 * <p>grpc-java has no cap option, so this is the listening channel itself, handed to
 * {@code NettyServerBuilder.channelFactory}: each accepted connection ({@link #doReadMessages})
 * is admitted and victims are closed at once, so descriptors are freed before the next accept.
 * Calls are seen by {@link #interceptor()}, which finds the connection by its remote address
 * ({@link Grpc#TRANSPORT_ATTR_REMOTE_ADDR}): a call makes its connection the youngest and busy
 * until it ends.
 *
 * <p><b>The gate</b> (issue 30, the soak's first minute): grpc-java sets up HTTP/2 for a connection
 * (codec, flow control, timers, the server's SETTINGS) as soon as it is registered, on the event
 * loop; a flood of silent connections made that queue of set-ups what a probe's new connection
 * waited behind, 3.2–3.5 s in the demo's first minute. So an accepted connection first waits,
 * unregistered, at the gate: a selector of this channel's own, polled on the event loop every
 * {@link #TICK_NANOS 2 ms} while connections wait. Its first read (at most 1 KiB) makes it
 * ready; it is then handed to the pipeline (ServerBootstrap's acceptor, grpc-java's set-up) with
 * those bytes, which a {@link FirstBytes} handler replays as the channel's first read. A client
 * speaks first in HTTP/2 (the connection preface), so no client waits for the server. A
 * connection that ends, or sends nothing within the handshake timeout, is closed without ever
 * reaching grpc-java. Ready connections are set up {@link #SETUPS_PER_TICK} per turn, one per
 * peer address in turn, with an I/O pass of the event loop between turns: a probe's connection
 * waits for at most one set-up per other address, not for a flood's.
 *
 * <p>Thread-safe: the table is guarded by this channel's lock (accepts run on the boss loop, closes
 * and calls on the children's loops); the gate is confined to this channel's event loop.
 */
final class CappedServerChannel extends NioServerSocketChannel {
    private static final System.Logger LOG = System.getLogger("dev.vitals.grpc");

    /** One open connection; busy while a call is open on it. */
    private static final class Entry implements ConnectionTable.Handle {
        final Channel channel;
        final InetAddress peer;
        final SocketAddress remote;
        final AtomicInteger calls = new AtomicInteger();
        /** Its place in the connection table. */
        final ConnectionTable.Entry<Entry> slot;
        /** The accepted socket; the gate's fields below are confined to the listening channel's event loop. */
        SocketChannel socket;
        /** Its key in the gate while no byte has come; null once read, closed or set up. */
        SelectionKey key;
        /** The first bytes read by the gate, until the connection is set up. */
        ByteBuffer ready;
        long acceptedAt;

        Entry(Channel channel, SocketAddress remote) {
            this.channel = channel;
            this.remote = remote;
            this.peer = remote instanceof InetSocketAddress a ? a.getAddress() : null;
            this.slot = new ConnectionTable.Entry<>(this, peer);
        }

        @Override
        public boolean busy() {
            return calls.get() > 0;
        }
    }

    private final int max;
    private final int perAddress;
    private final ConnectionTable<Entry> table;
    /** The connections in the table by remote address, for the interceptor; guarded by this channel's lock. */
    private final Map<SocketAddress, Entry> byRemote = new HashMap<>();

    private final AtomicLong acceptErrors = new AtomicLong();

    /** How often the gate is polled while connections wait at it. */
    static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(2);
    /** Connections handed to grpc-java per turn of the gate (between two I/O passes of the event loop). */
    static final int SETUPS_PER_TICK = 16;
    /** The first read of a connection, made by the gate. */
    private static final int FIRST_READ = 1024;

    private final long handshakeNanos;
    /** The gate: accepted sockets that have not sent a byte, registered for reading; opened at the first accept. */
    private Selector gate;
    /** Connections at the gate, in accept order. Confined to this channel's event loop, as are the next fields. */
    private final LinkedHashSet<Entry> waiting = new LinkedHashSet<>();
    /** Connections that sent their first bytes, waiting for their set-up turn, per peer address. */
    private final LinkedHashMap<InetAddress, ArrayDeque<Entry>> ready = new LinkedHashMap<>();
    private boolean tickScheduled;
    private volatile long silentClosed;
    private volatile long setUps;

    /**
     * @param max connections open at once
     * @param perAddress connections per peer address
     * @param handshake how long an accepted connection may stay without sending a byte
     */
    CappedServerChannel(int max, int perAddress, Duration handshake) {
        this.max = max;
        this.perAddress = perAddress;
        this.table = new ConnectionTable<>(max, perAddress);
        this.handshakeNanos = handshake.toNanos();
        // first in the pipeline, before the ServerBootstrap's acceptor (added at registration)
        pipeline().addLast("vitals-accept-errors", new AcceptErrors());
    }

    /**
     * Errors on the listening channel: {@code accept()} failing, e.g. "Too many open files" when
     * the application used up the descriptors. Netty would pass them on to the pipeline's tail,
     * which logs a WARNING with a stack trace each time (about once a second). Logged here at
     * DEBUG, one line without a stack trace, the first and then every 1000th; accepting pauses
     * for a second as Netty's own acceptor does, so a failing accept cannot spin the loop.
     */
    private final class AcceptErrors extends ChannelInboundHandlerAdapter {
        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            long n = acceptErrors.incrementAndGet();
            if (n == 1 || n % 1000 == 0) {
                LOG.log(Level.DEBUG, "gRPC health server: accepting a connection failed (" + n
                        + " so far; accepting pauses 1000 ms): " + cause);
            }
            ChannelConfig config = ctx.channel().config();
            if (config.isAutoRead()) {
                config.setAutoRead(false);
                ctx.channel().eventLoop().schedule(() -> config.setAutoRead(true), 1000, TimeUnit.MILLISECONDS);
            }
        }
    }

    /** @return accept errors so far */
    long acceptErrors() {
        return acceptErrors.get();
    }

    @Override
    protected int doReadMessages(List<Object> buf) throws Exception {
        // accepting is one system call and a small object: the HTTP/2 set-up waits for the client's
        // first bytes (the gate), so a flood of silent connections costs no grpc-java transport
        SocketChannel socket = javaChannel().accept();
        if (socket == null) {
            return 0;
        }
        NioSocketChannel child;
        try {
            child = new NioSocketChannel(this, socket);
        } catch (RuntimeException e) {
            closeQuietly(socket);
            throw e;
        }
        Entry e = new Entry(child, child.remoteAddress());
        e.socket = socket;
        List<Entry> victims = new ArrayList<>(1);
        long evictedNow;
        synchronized (this) {
            admit(e, victims);
            evictedNow = table.evicted();
        }
        for (Entry v : victims) {
            if (v.key != null || v.ready != null) {
                // waiting at the gate, never registered with Netty: close the socket directly
                dropWaiting(v);
            } else {
                // not channel.close(): grpc-java's handler turns that into a graceful shutdown (GOAWAY,
                // then a PING the client must answer, then a grace), which a silent client outlives;
                // the unsafe close bypasses the pipeline and frees the descriptor at once
                Channel ch = v.channel;
                if (ch.eventLoop().inEventLoop()) {
                    ch.unsafe().close(ch.unsafe().voidPromise());
                } else {
                    ch.eventLoop().execute(() -> ch.unsafe().close(ch.unsafe().voidPromise()));
                }
            }
        }
        try {
            e.key = socket.register(gate(), SelectionKey.OP_READ, e);
            e.acceptedAt = System.nanoTime();
            waiting.add(e);
        } catch (IOException | RuntimeException ex) {
            remove(e);
            closeQuietly(socket);
        }
        scheduleTick(TICK_NANOS);
        if (!victims.isEmpty()) {
            long first = evictedNow - victims.size() + 1;
            for (long k = first; k <= evictedNow; k++) {
                if (k == 1 || k % 1000 == 0) {
                    Entry v = victims.get((int) (k - first));
                    LOG.log(Level.DEBUG, "gRPC health server at its limit of " + max + " connections (" + perAddress
                            + " per address): closed the longest-uncalled one, from " + v.peer + " (" + k + " so far)");
                }
            }
        }
        // counted as one message read; the child reaches the pipeline (and grpc-java) from tick()
        return 1;
    }

    private Selector gate() throws IOException {
        if (gate == null) {
            gate = Selector.open();
        }
        return gate;
    }

    private void scheduleTick(long delayNanos) {
        if (!tickScheduled && isOpen()) {
            tickScheduled = true;
            eventLoop().schedule(this::tick, delayNanos, TimeUnit.NANOSECONDS);
        }
    }

    /**
     * The gate's turn, on this channel's event loop: reads the first bytes of connections that sent
     * some, closes those that ended or outstayed the handshake deadline without a byte, and hands at
     * most {@link #SETUPS_PER_TICK} ready ones to grpc-java, one per peer address in turn, so a
     * fresh probe's connection waits for one set-up per flooding address, not for the whole flood.
     */
    private void tick() {
        tickScheduled = false;
        if (gate == null || !isOpen()) {
            return;
        }
        try {
            gate.selectNow();
        } catch (IOException e) {
            LOG.log(Level.DEBUG, "gRPC health server: polling new connections failed: " + e);
        }
        Set<SelectionKey> selected = gate.selectedKeys();
        for (SelectionKey k : selected) {
            firstBytes((Entry) k.attachment());
        }
        selected.clear();
        long now = System.nanoTime();
        for (Iterator<Entry> it = waiting.iterator(); it.hasNext(); ) {
            Entry e = it.next();
            if (now - e.acceptedAt < handshakeNanos) {
                break; // in accept order: the rest are younger
            }
            it.remove();
            silentClosed++;
            remove(e);
            e.key.cancel();
            e.key = null;
            closeQuietly(e.socket);
        }
        try {
            gate.selectNow(); // deregisters cancelled keys, so closed sockets really close
        } catch (IOException e) {
            // counted above; the next tick tries again
        }
        selected.clear(); // readiness seen here is seen again on the next tick (level-triggered)
        int setUp = 0;
        while (setUp < SETUPS_PER_TICK && !ready.isEmpty()) {
            // the address first in line gives one connection and goes to the back of the line
            Iterator<Map.Entry<InetAddress, ArrayDeque<Entry>>> line = ready.entrySet().iterator();
            Map.Entry<InetAddress, ArrayDeque<Entry>> turn = line.next();
            line.remove();
            Entry e = turn.getValue().poll();
            if (!turn.getValue().isEmpty()) {
                ready.put(turn.getKey(), turn.getValue());
            }
            if (e != null) {
                setUp(e);
                setUp++;
            }
        }
        if (setUp > 0) {
            pipeline().fireChannelReadComplete();
        }
        if (!ready.isEmpty()) {
            scheduleTick(0); // after the event loop's next I/O pass: set-ups done so far get answered first
        } else if (!waiting.isEmpty()) {
            scheduleTick(TICK_NANOS);
        }
    }

    /** The gate saw {@code e} readable: reads what it sent, or closes it if it ended. */
    private void firstBytes(Entry e) {
        ByteBuffer b = ByteBuffer.allocate(FIRST_READ);
        int n;
        try {
            n = e.socket.read(b);
        } catch (IOException ex) {
            n = -1; // reset by the client
        }
        if (n == 0) {
            return; // spurious
        }
        waiting.remove(e);
        e.key.cancel();
        e.key = null;
        if (n < 0) {
            // ended without a byte: nothing for grpc-java to set up or to log
            silentClosed++;
            remove(e);
            closeQuietly(e.socket);
            return;
        }
        b.flip();
        e.ready = b;
        ready.computeIfAbsent(e.peer, k -> new ArrayDeque<>()).add(e);
    }

    /** Hands a ready connection to the pipeline: ServerBootstrap's acceptor registers it and grpc-java sets it up. */
    private void setUp(Entry e) {
        ByteBuffer first = e.ready;
        e.ready = null;
        if (!table.contains(e.slot)) {
            closeQuietly(e.socket); // evicted meanwhile
            return;
        }
        setUps++; // one writer: this channel's event loop
        e.channel.pipeline().addFirst("vitals-first-bytes", new FirstBytes(first));
        e.channel.closeFuture().addListener(f -> remove(e));
        pipeline().fireChannelRead(e.channel);
    }

    /** A connection waiting at the gate (or ready, not set up) is closed directly. */
    private void dropWaiting(Entry v) {
        if (v.key != null) {
            waiting.remove(v);
            v.key.cancel();
            v.key = null;
        }
        if (v.ready != null) {
            ArrayDeque<Entry> q = ready.get(v.peer);
            if (q != null && q.remove(v) && q.isEmpty()) {
                ready.remove(v.peer);
            }
            v.ready = null;
        }
        closeQuietly(v.socket);
        scheduleTick(0); // the gate deregisters the cancelled key: the socket really closes
    }

    /**
     * The bytes the gate read, given to grpc-java's handlers as the connection's first read, after
     * they have seen the channel active (as Netty's own first read would come).
     */
    private static final class FirstBytes extends ChannelInboundHandlerAdapter {
        private ByteBuffer bytes;

        FirstBytes(ByteBuffer bytes) {
            this.bytes = bytes;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            ctx.fireChannelActive();
            ByteBuffer b = bytes;
            bytes = null;
            ctx.pipeline().remove(this);
            if (b != null && ctx.channel().isOpen()) {
                ByteBuf buf = ctx.alloc().buffer(b.remaining());
                buf.writeBytes(b);
                ctx.fireChannelRead(buf);
                ctx.fireChannelReadComplete();
            }
        }

        @Override
        public void handlerRemoved(ChannelHandlerContext ctx) {
            bytes = null;
        }
    }

    @Override
    protected void doClose() throws Exception {
        try {
            super.doClose();
        } finally {
            for (Entry e : waiting) {
                closeQuietly(e.socket);
            }
            waiting.clear();
            for (ArrayDeque<Entry> q : ready.values()) {
                for (Entry e : q) {
                    closeQuietly(e.socket);
                }
            }
            ready.clear();
            if (gate != null) {
                gate.close(); // deregisters every key: the sockets closed above really close
            }
        }
    }

    /** @return connections accepted that closed, or outstayed the handshake deadline, without sending a byte */
    long silentClosed() {
        return silentClosed;
    }

    /** @return connections handed to grpc-java's HTTP/2 set-up so far */
    long setUps() {
        return setUps;
    }

    private static void closeQuietly(SocketChannel s) {
        try {
            s.close();
        } catch (IOException e) {
            // closing anyway
        }
    }

    /** Admits {@code e} to the table (under this channel's lock); the connections evicted go to {@code victims}. */
    private void admit(Entry e, List<Entry> victims) {
        for (ConnectionTable.Entry<Entry> v : table.admit(e.slot)) {
            victims.add(v.handle());
            forget(v.handle());
        }
        if (e.remote != null) {
            byRemote.put(e.remote, e);
        }
    }

    private void forget(Entry e) {
        if (e.remote != null) {
            byRemote.remove(e.remote, e);
        }
    }

    private synchronized void remove(Entry e) {
        table.remove(e.slot);
        forget(e);
    }

    /** A call started on the connection from {@code remote}: it becomes the youngest and busy; null if not in the table. */
    private synchronized Entry called(SocketAddress remote) {
        Entry e = remote == null ? null : byRemote.get(remote);
        if (e == null || !table.answered(e.slot)) {
            return null;
        }
        e.calls.incrementAndGet();
        return e;
    }

    /** @return connections open now */
    int open() {
        return table.size();
    }

    /** @return connections closed to make room so far */
    long evicted() {
        return table.evicted();
    }

    /** Marks connections with calls open, so the cap passes over them while it can. */
    ServerInterceptor interceptor() {
        return new ServerInterceptor() {
            @Override
            public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                    ServerCallHandler<Q, R> next) {
                Entry e = called(call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR));
                ServerCall.Listener<Q> listener = next.startCall(call, headers);
                if (e == null) {
                    return listener;
                }
                return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(listener) {
                    private boolean ended;

                    private void end() {
                        if (!ended) {
                            ended = true;
                            e.calls.decrementAndGet();
                        }
                    }

                    @Override
                    public void onComplete() {
                        end();
                        super.onComplete();
                    }

                    @Override
                    public void onCancel() {
                        end();
                        super.onCancel();
                    }
                };
            }
        };
    }
}
