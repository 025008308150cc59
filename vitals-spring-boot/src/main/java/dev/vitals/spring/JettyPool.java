package dev.vitals.spring;

import dev.vitals.monitor.ProgressSnapshot;
import dev.vitals.monitor.ProgressSource;
import dev.vitals.monitor.SaturationSnapshot;
import dev.vitals.monitor.SaturationSource;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.handler.StatisticsHandler;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.util.thread.ThreadPool;

/**
 * Embedded Jetty's worker pool as a saturation and progress source. Jetty's
 * {@link QueuedThreadPool} also runs its acceptor and selector loops, which lease threads for
 * good, and keeps reserved threads ready: busy is {@code getUtilizedThreads()} (threads less
 * leased and ready ones) of {@code getMaxAvailableThreads()} (maximum less leased); queued is
 * the pool's job queue. The pool counts no
 * completed jobs, so progress comes from a {@link StatisticsHandler} that
 * {@link #install(Server)} puts in front of the application's handlers: completed is requests
 * finished, busy the requests being handled. The sources read zeros until
 * {@link #attach(ThreadPool)} is given a started Jetty's pool (and with a non-queued pool, such as virtual
 * threads).
 */
final class JettyPool {
    private volatile QueuedThreadPool pool;
    private volatile StatisticsHandler statistics;

    /** A {@code JettyServerCustomizer}: wraps the server's handler in a statistics handler. */
    void install(Server server) {
        Handler h = server.getHandler();
        StatisticsHandler s = h instanceof StatisticsHandler ? (StatisticsHandler) h : new StatisticsHandler(h);
        if (s != h) {
            server.setHandler(s);
        }
        statistics = s;
    }

    /**
     * @param p the started server's thread pool
     * @return whether it is a Jetty queued thread pool
     */
    boolean attach(ThreadPool p) {
        if (p instanceof QueuedThreadPool) {
            pool = (QueuedThreadPool) p;
            return true;
        }
        return false;
    }

    SaturationSource saturation() {
        return () -> {
            QueuedThreadPool p = pool;
            if (p == null) {
                return SaturationSnapshot.of(0, 0, 0);
            }
            return SaturationSnapshot.of(Math.max(0, p.getUtilizedThreads()), Math.max(0, p.getMaxAvailableThreads()),
                    Math.max(0, p.getQueueSize()));
        };
    }

    ProgressSource progress() {
        return () -> {
            QueuedThreadPool p = pool;
            StatisticsHandler s = statistics;
            if (p == null || s == null) {
                return ProgressSnapshot.of(0, 0, 0);
            }
            long active = Math.max(0, s.getRequestsActive());
            long completed = Math.max(0, (long) s.getRequestTotal() - active);
            return ProgressSnapshot.of(completed, active, Math.max(0, p.getQueueSize()));
        };
    }
}
