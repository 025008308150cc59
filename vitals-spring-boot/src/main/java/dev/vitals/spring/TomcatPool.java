package dev.vitals.spring;

import dev.vitals.monitor.ProgressSnapshot;
import dev.vitals.monitor.ProgressSource;
import dev.vitals.monitor.SaturationSnapshot;
import dev.vitals.monitor.SaturationSource;
import java.util.concurrent.Executor;
import org.apache.tomcat.util.threads.ThreadPoolExecutor;

/**
 * Embedded Tomcat's worker pool as a saturation and progress source. The pool exists only once
 * the web server has started, after the health registry was built, so the sources read zeros
 * until {@link #attach(Executor)} is given it (each module's pools auto-configuration finds it
 * in Boot's {@code TomcatWebServer}, whose package differs between Boot 3 and 4). Tomcat's own executor class
 * ({@code org.apache.tomcat.util.threads.ThreadPoolExecutor}) gives busy ({@code getActiveCount},
 * O(workers) under its lock, once per sample), capacity ({@code getMaximumPoolSize}), queued
 * (its task queue; connections still in the OS accept backlog are not visible) and completed
 * tasks. With virtual threads Tomcat has no pool and the sources keep reading zeros.
 */
final class TomcatPool {
    private volatile ThreadPoolExecutor executor;

    /**
     * @param e the started connector's executor
     * @return whether it is Tomcat's worker pool
     */
    boolean attach(Executor e) {
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
