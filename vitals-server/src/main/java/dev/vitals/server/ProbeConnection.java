package dev.vitals.server;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The Netty glue for one connection: everything here runs on the connection's event loop, so the
 * state needs no locks. Two handlers share it:
 *
 * <pre>
 *   RawBytes (read deadlines) → HttpRequestDecoder (limits) → Requests (route, answer, write)
 * </pre>
 *
 * <p>Deadlines: a request must arrive completely within the read timeout of its first byte (of
 * the connection's opening, for the first request); a kept-alive connection may sit without a
 * byte for the idle timeout. One self-rescheduling timer per connection enforces both.
 *
 * <p>Answers are written from the event loop: at once from the registry's in-memory report, or,
 * for groups with on-demand checks, when the evaluation completes on Vitals' check executor
 * (hopping back to the event loop), with a safety deadline on the event loop itself. Requests
 * pipelined meanwhile wait in a small queue so answers keep their order.
 */
final class ProbeConnection implements ConnectionTable.Handle {
    private static final System.Logger LOG = System.getLogger("dev.vitals.server");
    private static final byte[] CRLF = {'\r', '\n'};
    private static final byte[] NOTHING = {};
    private static final byte[] CONNECTION_CLOSE = "Connection: close\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CONNECTION_KEEP_ALIVE = "Connection: keep-alive\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final int MAX_QUEUED = 16;
    /**
     * Slack granted on top of the route's wait (the probe budget, or the group deadline if
     * shorter or for a JSON report) before the event loop answers by itself from memory.
     */
    static final long SAFETY_MARGIN_MILLIS = 100;
    /** Longest wait for a client to close after the last answer on a closing connection. */
    static final long LINGER_MILLIS = 2000;

    private static final ProbeResponse HEADER_TOO_LARGE = ProbeResponse.text(431, "request header fields too large\n");
    private static final ProbeResponse LINE_TOO_LONG = ProbeRouter.badRequest("request line too long");
    private static final ProbeResponse MALFORMED = ProbeRouter.badRequest("malformed HTTP request");
    private static final ProbeResponse UNSUPPORTED_VERSION = ProbeRouter.badRequest("unsupported HTTP version");

    private final ProbeServer server;
    private final ProbeResponder responder;
    private final Channel channel;
    private final ConnectionTable.Entry entry;
    final RawBytes rawBytes = new RawBytes();
    final Requests requests = new Requests();

    private ChannelHandlerContext ctx;
    // deadlines
    private boolean reading = true;
    private boolean hasDeadline;
    private long deadline;
    private ScheduledFuture<?> timer;
    private long timerAt;
    // requests
    private boolean busy;
    private boolean closing;
    private boolean needsFlush;
    private boolean errorLogged;
    private Pending pending;
    private final ArrayDeque<HttpRequest> queued = new ArrayDeque<>(2);

    ProbeConnection(ProbeServer server, ProbeResponder responder, Channel channel, InetAddress peer) {
        this.server = server;
        this.responder = responder;
        this.channel = channel;
        this.entry = new ConnectionTable.Entry(this, peer);
    }

    ConnectionTable.Entry entry() {
        return entry;
    }

    /** The connection table chose this connection to make room: closed on its event loop, at once if there. */
    @Override
    public void evict() {
        if (channel.eventLoop().inEventLoop()) {
            evictNow(); // at once: the descriptor is free before the next accept
        } else {
            channel.eventLoop().execute(this::evictNow);
        }
    }

    // ------------------------------------------------------------------ deadlines

    private void setDeadline(long at) {
        deadline = at;
        hasDeadline = true;
        if (timer == null || at - timerAt < 0) {
            if (timer != null) {
                timer.cancel(false);
            }
            timerAt = at;
            timer = ctx.executor().schedule(this::onTimer, at - System.nanoTime(), TimeUnit.NANOSECONDS);
        }
    }

    private void onTimer() {
        timer = null;
        if (!hasDeadline || !ctx.channel().isActive()) {
            return;
        }
        long left = deadline - System.nanoTime();
        if (left > 0) {
            timerAt = deadline;
            timer = ctx.executor().schedule(this::onTimer, left, TimeUnit.NANOSECONDS);
            return;
        }
        LOG.log(Level.DEBUG, () -> "probe connection " + ctx.channel().remoteAddress() + " closed: "
                + (reading ? "no complete request within the read timeout" : "idle timeout"));
        closing = true;
        ctx.close();
    }

    /** Closes the connection to make room for a newer one (the connection table chose it). */
    private void evictNow() {
        if (ctx == null) {
            channel.close();
            return;
        }
        if (ctx.channel().isActive()) {
            LOG.log(Level.TRACE, () -> "probe connection " + ctx.channel().remoteAddress()
                    + " closed to make room for a newer one");
            closing = true;
            ctx.close();
        }
    }

    /** Closes the connection unless an answer is being prepared; used by a graceful stop. */
    void closeIfIdle() {
        if (ctx != null && !busy) {
            closing = true;
            ctx.close();
        }
    }

    /** First in the pipeline: sees raw bytes, so it knows when a request starts. */
    final class RawBytes extends ChannelInboundHandlerAdapter {
        @Override
        public void handlerAdded(ChannelHandlerContext c) {
            ctx = c;
        }

        @Override
        public void channelActive(ChannelHandlerContext c) {
            reading = true;
            setDeadline(System.nanoTime() + server.readTimeoutNanos());
            c.fireChannelActive();
        }

        @Override
        public void channelRead(ChannelHandlerContext c, Object msg) {
            if (closing) {
                ReferenceCountUtil.release(msg);
                return;
            }
            if (!reading && !busy && msg instanceof ByteBuf) {
                reading = true;
                setDeadline(System.nanoTime() + server.readTimeoutNanos());
            }
            c.fireChannelRead(msg);
        }
    }

    /** Last in the pipeline: routes decoded requests and writes answers. */
    final class Requests extends ChannelInboundHandlerAdapter {
        ProbeConnection connection() {
            return ProbeConnection.this;
        }

        @Override
        public void channelRead(ChannelHandlerContext c, Object msg) {
            try {
                if (closing) {
                    return;
                }
                if (msg instanceof HttpRequest) {
                    HttpRequest req = (HttpRequest) msg;
                    if (busy) {
                        if (queued.size() >= MAX_QUEUED) {
                            LOG.log(Level.DEBUG, () -> "probe connection " + c.channel().remoteAddress()
                                    + " closed: more than " + MAX_QUEUED + " pipelined requests");
                            closing = true;
                            c.close();
                            return;
                        }
                        queued.add(req);
                        return;
                    }
                    process(req);
                }
                // HttpContent of a request body is dropped: no route takes one, and a request
                // with a body is answered with "Connection: close".
            } finally {
                if (msg instanceof HttpContent) {
                    ReferenceCountUtil.release(msg);
                }
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext c) {
            if (needsFlush) {
                needsFlush = false;
                c.flush();
            }
            c.fireChannelReadComplete();
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext c) {
            // A client that sends requests but reads no answers stops being read from; the idle
            // timeout then closes it.
            c.channel().config().setAutoRead(c.channel().isWritable());
            c.fireChannelWritabilityChanged();
        }

        @Override
        public void channelInactive(ChannelHandlerContext c) {
            closing = true;
            hasDeadline = false;
            if (timer != null) {
                timer.cancel(false);
                timer = null;
            }
            if (pending != null) {
                pending.done = true;
                if (pending.safety != null) {
                    pending.safety.cancel(false);
                }
                pending = null;
            }
            queued.clear();
            c.fireChannelInactive();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext c, Throwable cause) {
            if (!errorLogged) {
                errorLogged = true;
                LOG.log(Level.DEBUG, () -> "probe connection " + c.channel().remoteAddress() + " closed after error: " + cause);
            }
            closing = true;
            c.close();
        }
    }

    // ------------------------------------------------------------------ answering

    private void process(HttpRequest req) {
        reading = false;
        hasDeadline = false;
        DecoderResult result = req.decoderResult();
        if (result.isFailure()) {
            Throwable cause = result.cause();
            ProbeResponse r = cause instanceof TooLongHttpHeaderException ? HEADER_TOO_LARGE
                    : cause instanceof TooLongHttpLineException ? LINE_TOO_LONG : MALFORMED;
            LOG.log(Level.DEBUG, () -> "probe connection " + ctx.channel().remoteAddress() + ": bad request, "
                    + r.status() + " and closing: " + cause);
            write(r, false, false, false);
            return;
        }
        if (req.protocolVersion().majorVersion() != 1) {
            // Only HTTP/1.0 and 1.1 are spoken here; an HTTP/2 preface ("PRI * HTTP/2.0") lands here too.
            write(UNSUPPORTED_VERSION, false, false, false);
            return;
        }
        boolean head = HttpMethod.HEAD.equals(req.method());
        boolean http10 = HttpVersion.HTTP_1_0.equals(req.protocolVersion());
        boolean hasBody = HttpUtil.isTransferEncodingChunked(req) || HttpUtil.getContentLength(req, 0L) > 0;
        boolean keepAlive = HttpUtil.isKeepAlive(req) && !hasBody && !server.isStopping();
        Route route = responder.router().route(req.method().name(), req.uri(),
                req.headers().get(HttpHeaderNames.AUTHORIZATION));
        if (!responder.needsEvaluation(route)) {
            write(responder.answerNow(route), head, keepAlive, http10);
            return;
        }
        // On-demand checks: evaluate on Vitals' executor, answer back on the event loop.
        busy = true;
        entry.busy = true;
        Pending p = new Pending(route, head, keepAlive, http10);
        pending = p;
        long safetyMillis = responder.wait(route).toMillis() + SAFETY_MARGIN_MILLIS;
        p.safety = ctx.executor().schedule(() -> {
            LOG.log(Level.DEBUG, () -> "on-demand evaluation of " + route.groups() + " missed its deadline of "
                    + safetyMillis + " ms; answering from the current state");
            complete(p, responder.answerNow(route));
        }, safetyMillis, TimeUnit.MILLISECONDS);
        CompletableFuture<ProbeResponse> f = responder.evaluate(route);
        f.whenComplete((response, error) -> {
            ProbeResponse r = response != null ? response : responder.answerNow(route);
            if (ctx.executor().inEventLoop()) {
                complete(p, r);
            } else {
                try {
                    ctx.executor().execute(() -> complete(p, r));
                } catch (RejectedExecutionException e) {
                    // the event loop is shut down: the connection is gone
                }
            }
        });
    }

    private void complete(Pending p, ProbeResponse response) {
        if (p.done) {
            return;
        }
        p.done = true;
        p.safety.cancel(false);
        pending = null;
        busy = false;
        entry.busy = false;
        if (!ctx.channel().isActive()) {
            return;
        }
        boolean keepAlive = p.keepAlive && !server.isStopping();
        write(response, p.head, keepAlive, p.http10);
        while (!busy && !closing && !queued.isEmpty()) {
            process(queued.poll());
        }
        if (needsFlush) {
            needsFlush = false;
            ctx.flush();
        }
    }

    private void write(ProbeResponse r, boolean head, boolean keepAlive, boolean http10) {
        byte[] h = r.head();
        byte[] connection = !keepAlive ? CONNECTION_CLOSE : http10 ? CONNECTION_KEEP_ALIVE : NOTHING;
        byte[] body = head ? NOTHING : r.body();
        server.answered(entry);
        ByteBuf buf = ctx.alloc().ioBuffer(h.length + connection.length + CRLF.length + body.length);
        buf.writeBytes(h).writeBytes(connection).writeBytes(CRLF).writeBytes(body);
        if (!keepAlive) {
            closing = true;
            hasDeadline = false;
            ctx.writeAndFlush(buf).addListener(f -> lingeringClose(f.isSuccess()));
            return;
        }
        ctx.write(buf);
        needsFlush = true;
        if (!busy) {
            reading = false;
            setDeadline(System.nanoTime() + server.idleTimeoutNanos());
        }
    }

    /**
     * Half-closes after the last answer and reads (and drops) whatever the client still sends
     * until it closes, for at most {@link #LINGER_MILLIS} (or the read timeout, if shorter).
     * Closing at once with unread input would make the kernel send a reset, which can destroy
     * the answer (a 431 to a 200 KB header, say) before the client reads it.
     */
    private void lingeringClose(boolean written) {
        Channel ch = ctx.channel();
        if (!written || !ch.isActive() || !(ch instanceof SocketChannel)) {
            ctx.close();
            return;
        }
        ((SocketChannel) ch).shutdownOutput();
        long linger = Math.min(LINGER_MILLIS, TimeUnit.NANOSECONDS.toMillis(server.readTimeoutNanos()));
        ctx.executor().schedule(() -> {
            ctx.close();
        }, Math.max(1, linger), TimeUnit.MILLISECONDS);
    }

    private static final class Pending {
        final Route route;
        final boolean head;
        final boolean keepAlive;
        final boolean http10;
        ScheduledFuture<?> safety;
        boolean done;

        Pending(Route route, boolean head, boolean keepAlive, boolean http10) {
            this.route = route;
            this.head = head;
            this.keepAlive = keepAlive;
            this.http10 = http10;
        }
    }
}
