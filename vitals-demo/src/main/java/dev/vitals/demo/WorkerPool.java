package dev.vitals.demo;

import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The application's bounded worker pool: {@code --workers} threads named
 * {@code demo-worker-N} and an unbounded queue, like a servlet container's connector with a
 * thread cap. Every application request (and, in the naive wiring, every probe) runs here,
 * so a burst of slow exports makes later requests wait in the queue.
 */
final class WorkerPool {
    private WorkerPool() {
    }

    static ThreadPoolExecutor create(int workers) {
        ThreadPoolExecutor pool = new ThreadPoolExecutor(workers, workers, 60, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), named("demo-worker-"));
        pool.prestartAllCoreThreads();
        return pool;
    }

    static ThreadFactory named(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }
}
