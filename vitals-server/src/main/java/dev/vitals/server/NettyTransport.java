package dev.vitals.server;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
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
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.FastThreadLocalThread;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@link ProbeServer.Transport#NETTY}: Netty's NIO event loops carrying raw bytes. Each channel's
 * pipeline holds one handler, {@link Connection}, that hands every {@code ByteBuf} read to the
 * connection's {@link ProbeConnection} (which parses, decides and answers, as on the JDK
 * transport) and carries out what it asks: write, flush, close lingering, close, timers. No Netty
 * HTTP codec: the HTTP/1.x parsing path is {@link Http1Parser} on both transports. Every Netty
 * type of the probe server lives in this file; it needs {@code io.netty:netty-transport} (with
 * {@code netty-buffer} and {@code netty-common}) 4.1 or 4.2, an optional dependency of
 * vitals-server.
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
                        Connection c = new Connection(server, responder, ch);
                        // At the limit, make room: never refuse the newest connection (DESIGN.md 6b).
                        server.admit(c.connection.entry());
                        ch.closeFuture().addListener(f -> c.connection.closed());
                        all.add(ch);
                        ch.pipeline().addLast("vitals-probe", c);
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
            Connection c = ch.pipeline().get(Connection.class);
            if (c != null) {
                ch.eventLoop().execute(c.connection::closeIfIdle);
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
     * One connection's adapter: the only handler in its channel's pipeline. It moves bytes
     * between the channel and its {@link ProbeConnection} and runs its timers on the channel's
     * event loop; it decides nothing about HTTP. A client that sends requests but reads no answers
     * stops being read from (auto-read follows writability); the idle timeout then closes it.
     */
    static final class Connection extends ChannelInboundHandlerAdapter implements ProbeConnection.Io {
        final ProbeConnection connection;
        private final SocketChannel channel;
        private ChannelHandlerContext ctx;

        Connection(ProbeServer server, ProbeResponder responder, SocketChannel channel) {
            this.channel = channel;
            InetSocketAddress remote = channel.remoteAddress();
            InetAddress peer = remote == null ? null : remote.getAddress();
            this.connection = new ProbeConnection(server.connectionSettings(), responder, this, peer);
        }

        // -------------------------------------------------------------- channel → connection

        @Override
        public void handlerAdded(ChannelHandlerContext c) {
            ctx = c;
        }

        @Override
        public void channelActive(ChannelHandlerContext c) {
            connection.opened();
            c.fireChannelActive();
        }

        @Override
        public void channelRead(ChannelHandlerContext c, Object msg) {
            try {
                if (msg instanceof ByteBuf) {
                    ByteBuf b = (ByteBuf) msg;
                    // Unpooled direct buffers lend their internal NIO view: no copy, no allocation.
                    ByteBuffer in = b.nioBufferCount() == 1 ? b.internalNioBuffer(b.readerIndex(), b.readableBytes())
                            : b.nioBuffer();
                    connection.read(in);
                }
            } finally {
                ReferenceCountUtil.release(msg);
            }
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext c) {
            c.channel().config().setAutoRead(c.channel().isWritable());
            c.fireChannelWritabilityChanged();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext c, Throwable cause) {
            connection.failed(cause);
        }

        // -------------------------------------------------------------- connection → channel

        @Override
        public void write(byte[] head, byte[] connectionLine, byte[] body) {
            ByteBuf buf = ctx.alloc().ioBuffer(head.length + connectionLine.length + body.length);
            buf.writeBytes(head).writeBytes(connectionLine).writeBytes(body);
            ctx.write(buf, ctx.voidPromise());
        }

        @Override
        public void flush() {
            ctx.flush();
        }

        @Override
        public void closeAfterWriting(long lingerMillis) {
            ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(f -> {
                if (!f.isSuccess() || !channel.isActive()) {
                    ctx.close();
                    return;
                }
                channel.shutdownOutput();
                channel.eventLoop().schedule(() -> {
                    ctx.close();
                }, lingerMillis, TimeUnit.MILLISECONDS);
            });
        }

        @Override
        public void close() {
            if (ctx == null) {
                channel.close();
            } else {
                ctx.close();
            }
        }

        @Override
        public ProbeConnection.Timer schedule(long delayNanos, Runnable task) {
            ScheduledFuture<?> f = channel.eventLoop().schedule(task, delayNanos, TimeUnit.NANOSECONDS);
            return () -> f.cancel(false);
        }

        @Override
        public void execute(Runnable task) {
            try {
                channel.eventLoop().execute(task);
            } catch (RejectedExecutionException e) {
                // the event loop is shut down: the connection is gone
            }
        }

        @Override
        public boolean inLoop() {
            return channel.eventLoop().inEventLoop();
        }

        @Override
        public Object remote() {
            return channel.remoteAddress();
        }
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
