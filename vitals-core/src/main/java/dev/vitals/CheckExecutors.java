package dev.vitals;

import java.lang.reflect.Method;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Creates the executor that runs checks: virtual threads on Java 21+ (found by reflection, as
 * the floor is 17), else a pool of at most one platform thread per check. Either way single
 * flight bounds the threads in use by the number of checks. Threads are daemons named
 * {@code vitals-check-…}.
 */
final class CheckExecutors {
    private CheckExecutors() {
    }

    static boolean virtualThreadsAvailable() {
        return virtualFactory() != null;
    }

    static ExecutorService create(int checks, boolean preferVirtual) {
        if (preferVirtual) {
            ThreadFactory vf = virtualFactory();
            if (vf != null) {
                try {
                    Method m = java.util.concurrent.Executors.class.getMethod("newThreadPerTaskExecutor", ThreadFactory.class);
                    return (ExecutorService) m.invoke(null, vf);
                } catch (ReflectiveOperationException e) {
                    // fall through to platform threads
                }
            }
        }
        int threads = Math.max(1, checks);
        AtomicInteger n = new AtomicInteger();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), r -> {
                    Thread t = new Thread(r, "vitals-check-" + n.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }

    private static ThreadFactory virtualFactory() {
        try {
            Method ofVirtual = Thread.class.getMethod("ofVirtual");
            Object builder = ofVirtual.invoke(null);
            Class<?> ofVirtualType = Class.forName("java.lang.Thread$Builder$OfVirtual");
            builder = ofVirtualType.getMethod("name", String.class, long.class).invoke(builder, "vitals-check-", 1L);
            return (ThreadFactory) ofVirtualType.getMethod("factory").invoke(builder);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }
}
