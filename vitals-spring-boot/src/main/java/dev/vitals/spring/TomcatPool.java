package dev.vitals.spring;

import dev.vitals.monitor.ProgressSnapshot;
import dev.vitals.monitor.ProgressSource;
import dev.vitals.monitor.SaturationSnapshot;
import dev.vitals.monitor.SaturationSource;
import java.util.concurrent.Executor;
import org.apache.tomcat.util.threads.ThreadPoolExecutor;
import org.springframework.boot.tomcat.TomcatWebServer;
import org.springframework.boot.web.server.WebServer;

/**
 * Embedded Tomcat's worker pool as a saturation and progress source. The pool exists only once
 * the web server has started, after the health registry was built, so the sources read zeros
 * until {@link #attach(WebServer)} finds it. Tomcat's own executor class
 * ({@code org.apache.tomcat.util.threads.ThreadPoolExecutor}) gives busy ({@code getActiveCount},
 * O(workers) under its lock, once per sample), capacity ({@code getMaximumPoolSize}), queued
 * (its task queue; connections still in the OS accept backlog are not visible) and completed
 * tasks. With virtual threads Tomcat has no pool and the sources keep reading zeros.
 */
final class TomcatPool {
    private volatile ThreadPoolExecutor executor;

    /**
     * @param server the started web server
     * @return whether a Tomcat worker pool was found
     */
    boolean attach(WebServer server) {
        if (!(server instanceof TomcatWebServer)) {
            return false;
        }
        Executor e = ((TomcatWebServer) server).getTomcat().getConnector().getProtocolHandler().getExecutor();
        if (e instanceof ThreadPoolExecutor) {
            executor = (ThreadPoolExecutor) e;
            return true;
        }
        return false;
    }

    SaturationSource saturation() {
        return () -> {
            ThreadPoolExecutor e = executor;
            return e == null ? SaturationSnapshot.of(0, 0, 0)
                    : SaturationSnapshot.of(Math.max(0, e.getActiveCount()), Math.max(0, e.getMaximumPoolSize()),
                            e.getQueue().size());
        };
    }

    ProgressSource progress() {
        return () -> {
            ThreadPoolExecutor e = executor;
            if (e == null) {
                return ProgressSnapshot.of(0, 0, 0);
            }
            long queued = e.getQueue().size();
            long busy = Math.max(0, e.getActiveCount());
            return ProgressSnapshot.of(Math.max(0, e.getCompletedTaskCount()), busy, queued);
        };
    }
}
