package dev.vitals.server;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelConfig;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.netty.util.concurrent.FastThreadLocalThread;
import java.net.InetSocketAddress;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@link ProbeServer.Transport#NETTY}: Netty's NIO event loops, {@code HttpRequestDecoder} for
 * the limits, and {@link ProbeConnection} as the per-connection glue. Every Netty type of the
 * probe server lives here and in {@link ProbeConnection}.
 */
final class NettyTransport implements ServerTransport {
    private static final long BIND_WAIT_SECONDS = 10;

    /**
     * Probe requests and answers are a few hundred bytes: unpooled buffers, freed on release,
     * instead of Netty's default pooled allocator, whose arenas and thread caches cost megabytes
     * of resident memory for nothing here (issue 13, footprint).
     */
    private static final ByteBufAllocator PROBE_ALLOCATOR = new UnpooledByteBufAllocator(false);

    private final ProbeServer server;
    private final ProbeResponder responder;
    private EventLoopGroup group;
    private Channel serverChannel;
    private ChannelGroup channels;

    NettyTransport(ProbeServer server, ProbeResponder responder) {
        this.server = server;
        this.responder = responder;
    }

    @Override
    public InetSocketAddress bind(InetSocketAddress address) {
        EventLoopGroup g = newEventLoopGroup(server.eventLoopThreads());
        ChannelGroup all = new DefaultChannelGroup("vitals-probe", g.next());
        HttpDecoderConfig decoderConfig = new HttpDecoderConfig()
                .setMaxInitialLineLength(server.maxHeaderSize())
                .setMaxHeaderSize(server.maxHeaderSize());
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(g)
                .channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_BACKLOG, ProbeServer.ACCEPT_BACKLOG)
                .option(ChannelOption.SO_REUSEADDR, true)
                .option(ChannelOption.ALLOCATOR, PROBE_ALLOCATOR)
                .childOption(ChannelOption.ALLOCATOR, PROBE_ALLOCATOR)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .handler(new AcceptErrors())
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        InetSocketAddress remote = ch.remoteAddress();
                        ProbeConnection c = new ProbeConnection(server, responder, ch,
                                remote == null ? null : remote.getAddress());
                        // At the limit, make room: never refuse the newest connection (DESIGN.md 6b).
                        server.admit(c.entry());
                        ch.closeFuture().addListener(f -> server.closed(c.entry()));
                        all.add(ch);
                        ch.pipeline()
                                .addLast("vitals-raw-bytes", c.rawBytes)
                                .addLast("vitals-http-decoder", new HttpRequestDecoder(decoderConfig))
                                .addLast("vitals-probe", c.requests);
                    }
                });
        ChannelFuture bound = bootstrap.bind(address);
        boolean done = bound.awaitUninterruptibly(BIND_WAIT_SECONDS, TimeUnit.SECONDS);
        if (!done || !bound.isSuccess()) {
            g.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS).awaitUninterruptibly(BIND_WAIT_SECONDS, TimeUnit.SECONDS);
            if (!done) {
                throw server.bindFailed("could not bind " + server.describeBind() + " within " + BIND_WAIT_SECONDS + " s");
            }
            throw server.bindFailed(bound.cause());
        }
        group = g;
        channels = all;
        serverChannel = bound.channel();
        return (InetSocketAddress) serverChannel.localAddress();
    }

    @Override
    public void stopAccepting(long waitMillis) {
        serverChannel.close().awaitUninterruptibly(waitMillis, TimeUnit.MILLISECONDS);
    }

    @Override
    public void closeIdle() {
        for (Channel ch : channels) {
            ProbeConnection.Requests r = ch.pipeline().get(ProbeConnection.Requests.class);
            if (r != null) {
                ch.eventLoop().execute(() -> r.connection().closeIfIdle());
            }
        }
    }

    @Override
    public int connections() {
        return channels.size();
    }

    @Override
    public void shutdown(long graceMillis) {
        group.shutdownGracefully(0, graceMillis, TimeUnit.MILLISECONDS)
                .awaitUninterruptibly(graceMillis + 5000, TimeUnit.MILLISECONDS);
    }

    /** The listening channel, for tests; null before {@link #bind}. */
    Channel serverChannel() {
        return serverChannel;
    }

    /**
     * Errors on the listening channel: {@code accept()} failing, e.g. "Too many open files".
     * Netty would pass them to the pipeline's tail, which logs a WARNING with a stack trace
     * each time (about once a second while descriptors are exhausted). Logged here instead at
     * DEBUG, one line without a stack trace, the first and then every 1000th; accepting pauses
     * for a second as Netty's own acceptor does, so a failing accept cannot spin the loop.
     */
    @ChannelHandler.Sharable
    static final class AcceptErrors extends ChannelInboundHandlerAdapter {
        private final AtomicLong count = new AtomicLong();

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ProbeServer.acceptFailed(count.incrementAndGet(), cause);
            ChannelConfig config = ctx.channel().config();
            if (config.isAutoRead()) {
                config.setAutoRead(false);
                ctx.channel().eventLoop().schedule(() -> config.setAutoRead(true), ProbeServer.ACCEPT_PAUSE_MILLIS,
                        TimeUnit.MILLISECONDS);
            }
        }

        long count() {
            return count.get();
        }
    }

    /**
     * NIO event loops through the API that Netty 4.1 and 4.2 share, so Vitals runs on whichever of
     * the two the application resolves (4.2 deprecates {@code NioEventLoopGroup} in favour of
     * {@code MultiThreadIoEventLoopGroup}, which 4.1 lacks; both build the same loop on 4.2).
     */
    @SuppressWarnings("deprecation")
    private static EventLoopGroup newEventLoopGroup(int threads) {
        return new NioEventLoopGroup(threads, threadFactory());
    }

    private static ThreadFactory threadFactory() {
        return r -> {
            Thread t = new FastThreadLocalThread(r, ProbeServer.nextThreadName());
            t.setDaemon(true);
            return t;
        };
    }
}
