package dev.vitals.grpc;

import dev.vitals.LogText;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Filter;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Keeps clients from writing the application's log (issue 30): grpc-java logs every transport
 * failure a client causes — an HTTP/1.x request, a TLS ClientHello or random bytes on the gRPC
 * port ({@code NettyServerTransport.connections}, INFO "Transport failed" with a stack trace),
 * a stream error (too many streams, an oversized message, a reset; WARNING), an exception that
 * reaches the end of Netty's pipeline — so any pod could fill the node's disk through the health
 * port and spend the event loop on formatting.
 *
 * <p>Records those loggers emit on Vitals' own event-loop threads ({@code vitals-grpc-…}) are
 * counted ({@link #quieted()}, {@link GrpcHealthServer#clientFailures()}) and summarised on
 * {@code dev.vitals.grpc}: one INFO line for the first, then at most one INFO line per
 * {@link #SUMMARY_EVERY_NANOS minute} with the count since the previous line and the latest
 * message (no stack trace), escaped and cut to {@link LogText#CLIENT_CHARS} characters by
 * {@link LogText} (a client chose part of it); nothing else. Records from any other thread — the application's own
 * gRPC servers — pass untouched to the filter that was there before.
 *
 * <p>JUL filters are per logger (a child logger's records never meet its parent's filter), so
 * every logger name is listed; {@code LogFloodTest} floods each bad shape and fails, naming the
 * logger, if one is missed.
 */
final class TransportLogs {
    private static final System.Logger LOG = System.getLogger("dev.vitals.grpc");
    /** At most one summary line per minute. */
    static final long SUMMARY_EVERY_NANOS = TimeUnit.MINUTES.toNanos(1);
    private static final String SHADED = "io.grpc.netty.shaded.";
    private static final String[] NAMES = {
        SHADED + "io.grpc.netty.NettyServerHandler",
        SHADED + "io.grpc.netty.NettyServerStream",
        SHADED + "io.grpc.netty.NettyServerTransport",
        SHADED + "io.grpc.netty.NettyServerTransport.connections", // "Transport failed", per connection
        SHADED + "io.grpc.netty.NettyServer",
        SHADED + "io.grpc.netty.ProtocolNegotiators",
        SHADED + "io.grpc.netty.WriteBufferingAndExceptionHandler",
        SHADED + "io.netty.channel.DefaultChannelPipeline",
        SHADED + "io.netty.channel.AbstractChannelHandlerContext",
        SHADED + "io.netty.channel.ChannelInitializer",
        SHADED + "io.netty.channel.ChannelOutboundBuffer",
        SHADED + "io.netty.channel.nio.AbstractNioChannel",
        SHADED + "io.netty.util.concurrent.DefaultPromise",
        SHADED + "io.netty.util.concurrent.AbstractEventExecutor",
        SHADED + "io.netty.handler.codec.http2.Http2ConnectionHandler",
        SHADED + "io.netty.handler.codec.http2.DefaultHttp2ConnectionDecoder",
        SHADED + "io.netty.handler.codec.http2.DefaultHttp2ConnectionEncoder",
        SHADED + "io.netty.handler.codec.http2.Http2FrameCodec",
        "io.grpc.internal.ServerImpl",
        "io.grpc.internal.SerializingExecutor",
    };
    /** JUL holds loggers weakly; a collected logger would lose its filter. */
    private static final List<Logger> HELD = new ArrayList<>();
    private static final AtomicLong QUIETED = new AtomicLong();
    private static final Object SUMMARY = new Object();
    private static long summarisedAt; // guarded by SUMMARY
    private static long summarisedCount; // guarded by SUMMARY

    private TransportLogs() {
    }

    static synchronized void install() {
        if (!HELD.isEmpty()) {
            return;
        }
        for (String name : NAMES) {
            Logger l = Logger.getLogger(name);
            Filter before = l.getFilter();
            l.setFilter(record -> {
                if (Thread.currentThread().getName().startsWith(GrpcHealthServer.THREAD_PREFIX)) {
                    count(record);
                    return false;
                }
                return before == null || before.isLoggable(record);
            });
            HELD.add(l);
        }
    }

    private static void count(LogRecord record) {
        long n = QUIETED.incrementAndGet();
        long now = System.nanoTime();
        long since;
        synchronized (SUMMARY) {
            if (summarisedCount != 0 && now - summarisedAt < SUMMARY_EVERY_NANOS) {
                return;
            }
            since = n - summarisedCount;
            summarisedAt = now;
            summarisedCount = n;
        }
        Throwable t = record.getThrown();
        // A client chose part of this text (an HTTP/1.x request line, bytes echoed in an error):
        // escaped and cut before it reaches the log (issue 40).
        String what = LogText.escape(record.getMessage() + (t == null ? "" : ": " + t), LogText.CLIENT_CHARS);
        LOG.log(Level.INFO, "gRPC health server: " + since + " client-caused transport failure" + (since == 1 ? "" : "s")
                + (n == since ? "" : " in the last minute") + " (" + n + " so far; counted, at most one line a minute;"
                + " latest: " + what + ")");
    }

    /** The next record is summarised at once, as the first one is (tests: one JVM runs many servers). */
    static void summariseNextAtOnce() {
        synchronized (SUMMARY) {
            summarisedCount = 0;
        }
    }

    /** @return transport records kept out of the log so far, all Vitals gRPC health servers in this JVM */
    static long quieted() {
        return QUIETED.get();
    }
}
