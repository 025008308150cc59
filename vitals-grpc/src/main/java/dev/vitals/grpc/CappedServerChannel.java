package dev.vitals.grpc;

import io.grpc.ForwardingServerCallListener;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.netty.shaded.io.netty.channel.Channel;
import io.grpc.netty.shaded.io.netty.channel.ChannelConfig;
import io.grpc.netty.shaded.io.netty.channel.ChannelHandlerContext;
import io.grpc.netty.shaded.io.netty.channel.ChannelInboundHandlerAdapter;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioServerSocketChannel;
import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The gRPC health port's connection cap (DESIGN.md 6c), the policy of vitals-server's
 * {@code ConnectionTable}: at the limit the newest connection is never refused (a kubelet probe is
 * always a new connection); the connection that has gone longest without a call is closed to make
 * room, connections with a call open (a Watch, a Check being answered) last. A peer address at its
 * share makes room among its own connections.
 *
 * <p>grpc-java has no cap option, so this is the listening channel itself, handed to
 * {@code NettyServerBuilder.channelFactory}: after Netty accepts ({@link #doReadMessages}) each new
 * child is admitted and victims are closed before the children are registered, so descriptors are
 * freed before the next accept. Calls are seen by {@link #interceptor()}, which finds the
 * connection by its remote address ({@link Grpc#TRANSPORT_ATTR_REMOTE_ADDR}): a call makes its
 * connection the youngest and busy until it ends.
 *
 * <p>Thread-safe: the table is guarded by this channel's lock (accepts run on the boss loop, closes
 * and calls on the children's loops).
 */
final class CappedServerChannel extends NioServerSocketChannel {
    private static final System.Logger LOG = System.getLogger("dev.vitals.grpc");

    /** One open connection; the fields other than {@code calls} are guarded by the table's lock. */
    private static final class Entry {
        final Channel channel;
        final InetAddress peer;
        final SocketAddress remote;
        final AtomicInteger calls = new AtomicInteger();
        boolean linked;

        Entry(Channel channel, SocketAddress remote) {
            this.channel = channel;
            this.remote = remote;
            this.peer = remote instanceof InetSocketAddress a ? a.getAddress() : null;
        }
    }

    private final int max;
    private final int perAddress;
    /** Oldest (opened or last called) first. */
    private final LinkedHashSet<Entry> all = new LinkedHashSet<>();
    private final Map<InetAddress, LinkedHashSet<Entry>> peers = new HashMap<>();
    private final Map<SocketAddress, Entry> byRemote = new HashMap<>();
    private long evicted;

    private final AtomicLong acceptErrors = new AtomicLong();

    CappedServerChannel(int max, int perAddress) {
        this.max = max;
        this.perAddress = perAddress;
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
        int start = buf.size();
        int n = super.doReadMessages(buf);
        if (buf.size() == start) {
            return n;
        }
        List<Entry> admitted = new ArrayList<>(buf.size() - start);
        List<Entry> victims = new ArrayList<>(1);
        long evictedNow;
        synchronized (this) {
            for (int i = start; i < buf.size(); i++) {
                Channel child = (Channel) buf.get(i);
                Entry e = new Entry(child, child.remoteAddress());
                admit(e, victims);
                admitted.add(e);
            }
            evictedNow = evicted;
        }
        for (Entry v : victims) {
            if (buf.remove(v.channel)) {
                // accepted in this same read, not registered yet: close the socket directly
                v.channel.unsafe().closeForcibly();
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
        for (Entry e : admitted) {
            e.channel.closeFuture().addListener(f -> remove(e));
        }
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
        return n;
    }

    private void admit(Entry e, List<Entry> victims) {
        LinkedHashSet<Entry> own = peers.get(e.peer);
        if (own != null && own.size() >= perAddress) {
            evict(oldest(own), victims);
        }
        while (all.size() >= max) {
            evict(oldest(all), victims);
        }
        link(e);
    }

    /** The oldest entry without a call open, else the oldest. */
    private static Entry oldest(LinkedHashSet<Entry> list) {
        Iterator<Entry> it = list.iterator();
        Entry first = it.next();
        for (Entry x = first; ; x = it.next()) {
            if (x.calls.get() == 0) {
                return x;
            }
            if (!it.hasNext()) {
                return first;
            }
        }
    }

    private void evict(Entry v, List<Entry> victims) {
        unlink(v);
        victims.add(v);
        evicted++;
    }

    private void link(Entry e) {
        e.linked = true;
        all.add(e);
        peers.computeIfAbsent(e.peer, k -> new LinkedHashSet<>()).add(e);
        if (e.remote != null) {
            byRemote.put(e.remote, e);
        }
    }

    private void unlink(Entry e) {
        e.linked = false;
        all.remove(e);
        LinkedHashSet<Entry> own = peers.get(e.peer);
        if (own != null) {
            own.remove(e);
            if (own.isEmpty()) {
                peers.remove(e.peer);
            }
        }
        if (e.remote != null) {
            byRemote.remove(e.remote, e);
        }
    }

    private synchronized void remove(Entry e) {
        if (e.linked) {
            unlink(e);
        }
    }

    /** A call started on the connection from {@code remote}: it becomes the youngest and busy. */
    private synchronized Entry called(SocketAddress remote) {
        Entry e = remote == null ? null : byRemote.get(remote);
        if (e != null && e.linked) {
            e.calls.incrementAndGet();
            all.remove(e);
            all.add(e);
            LinkedHashSet<Entry> own = peers.get(e.peer);
            own.remove(e);
            own.add(e);
        }
        return e;
    }

    /** @return connections open now */
    synchronized int open() {
        return all.size();
    }

    /** @return connections closed to make room so far */
    synchronized long evicted() {
        return evicted;
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
