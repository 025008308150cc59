package dev.vitals.grpc;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Filter;
import java.util.logging.Logger;

/**
 * Keeps clients from writing the application's log: grpc-java logs a WARNING with a stack trace
 * for every stream error a client causes (too many streams, an oversized message, a reset), so
 * any pod could flood the log through the health port and spend the event loop on formatting.
 * Records those loggers emit on Vitals' own event-loop threads ({@code vitals-grpc-…}) are
 * counted and summarised at DEBUG on {@code dev.vitals.grpc} (the first, then every 1000th);
 * records from any other thread — the application's own gRPC servers — pass untouched to the
 * filter that was there before.
 */
final class TransportLogs {
    private static final System.Logger LOG = System.getLogger("dev.vitals.grpc");
    private static final String[] NAMES = {
        "io.grpc.netty.shaded.io.grpc.netty.NettyServerHandler",
        "io.grpc.netty.shaded.io.grpc.netty.NettyServerStream",
        "io.grpc.netty.shaded.io.grpc.netty.NettyServerTransport",
        "io.grpc.netty.shaded.io.grpc.netty.NettyServer",
    };
    /** JUL holds loggers weakly; a collected logger would lose its filter. */
    private static final List<Logger> HELD = new ArrayList<>();
    private static final AtomicLong QUIETED = new AtomicLong();

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
                    long n = QUIETED.incrementAndGet();
                    if (n == 1 || n % 1000 == 0) {
                        Throwable t = record.getThrown();
                        LOG.log(Level.DEBUG, "gRPC health server: client-caused transport warning (" + n + " so far): "
                                + record.getMessage() + (t == null ? "" : ": " + t));
                    }
                    return false;
                }
                return before == null || before.isLoggable(record);
            });
            HELD.add(l);
        }
    }

    /** @return transport records kept out of the log so far */
    static long quieted() {
        return QUIETED.get();
    }
}
