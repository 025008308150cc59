package dev.vitals;

import java.lang.reflect.Method;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Creates the executor that runs user checks (DESIGN.md section 5, "Threads"): by default
 * platform threads created on demand, reused while busy checks keep them warm and reaped after
 * {@link #KEEP_ALIVE_SECONDS} idle, on every JDK. Single flight bounds the threads in use by the
 * number of checks; in practice it is the number of checks running at the same moment. A check
 * that spins forever holds only its own platform thread, which the OS scheduler preempts, so it
 * can delay neither other checks nor the application's virtual threads (issue 19: on a virtual
 * thread it pins a carrier, and with {@code ActiveProcessorCount=1} that is every carrier).
 * Virtual threads remain an opt-in ({@link HealthRegistry.Builder#virtualThreads(boolean)}).
 * Threads are daemons named {@code vitals-check-…}. Vitals' own monitor checks never get here:
 * they run inline on the scheduler thread ({@link Check#inline()}).
 */
final class CheckExecutors {
    /** Idle time after which a platform check thread ends. */
    static final long KEEP_ALIVE_SECONDS = 30;

    private CheckExecutors() {
    }

    static boolean virtualThreadsAvailable() {
        return virtualFactory() != null;
    }

    static ExecutorService create(boolean preferVirtual) {
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
        // A cached pool: a hand-off queue, so an idle thread takes the next execution and a new
        // thread is started only when none is idle. No thread exists before the first execution.
        AtomicInteger n = new AtomicInteger();
        return new ThreadPoolExecutor(0, Integer.MAX_VALUE, KEEP_ALIVE_SECONDS, TimeUnit.SECONDS,
                new SynchronousQueue<>(), r -> {
                    Thread t = new Thread(r, "vitals-check-" + n.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
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
