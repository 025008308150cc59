package dev.vitals.bench.suite;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * The practical ceiling of an HTTP/1.1 server on this machine: Netty's standard
 * {@code HttpServerCodec} and a handler answering every request with a fixed {@code 200 ok}, on
 * one NIO event-loop thread (like Vitals' probe server on a 2-core machine). Not thread-safe to
 * construct concurrently; {@link #close()} is idempotent.
 *
 * <p>{@link #main} binds 127.0.0.1 on an ephemeral port, prints {@value #READY}{@code <port>} on
 * standard output and serves until killed.
 */
public final class Fixed200Server implements AutoCloseable {
    /** Prefix of the line {@link #main} prints once it listens. */
    public static final String READY = "fixed-200 listening on port ";

    @SuppressWarnings("deprecation") // the API Netty 4.1 and 4.2 share
    private final EventLoopGroup group = new NioEventLoopGroup(1);
    private final Channel channel;

    /** Binds 127.0.0.1 on an ephemeral port. */
    public Fixed200Server() throws InterruptedException {
        channel = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new HttpServerCodec()).addLast(new Fixed200Handler());
                    }
                })
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
    }

    /** @return the bound port */
    public int port() {
        return ((InetSocketAddress) channel.localAddress()).getPort();
    }

    @Override
    public void close() {
        channel.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(10, TimeUnit.SECONDS);
    }

    public static void main(String[] args) throws InterruptedException {
        Fixed200Server server = new Fixed200Server();
        System.out.println(READY + server.port());
        System.out.flush();
        Thread.currentThread().join(); // until killed
    }

    private static final class Fixed200Handler extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof HttpRequest) {
                boolean keepAlive = HttpUtil.isKeepAlive((HttpRequest) msg);
                ByteBuf body = Unpooled.wrappedBuffer(new byte[] {'o', 'k'});
                FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK, body);
                r.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.TEXT_PLAIN)
                        .setInt(HttpHeaderNames.CONTENT_LENGTH, 2);
                if (keepAlive) {
                    ctx.write(r);
                } else {
                    ctx.writeAndFlush(r).addListener(ChannelFutureListener.CLOSE);
                }
            }
            ReferenceCountUtil.release(msg);
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close(); // a load generator that stops resets its connections: not worth a log line
        }
    }
}
