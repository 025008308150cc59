package dev.vitals.agent.impl;

import dev.vitals.Health;
import dev.vitals.HealthRegistry;
import dev.vitals.Status;
import dev.vitals.monitor.ProgressSnapshot;
import dev.vitals.monitor.ProgressWatchdog;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Progress of the application's HTTP worker pools, found without code: threads are grouped by
 * name (Tomcat {@code http-nio-8080-exec-N}, Jetty {@code qtpNNN-N}, Dropwizard {@code dw-N},
 * Undertow {@code XNIO-1 task-N}, Quarkus {@code executor-thread-N}, Micronaut
 * {@code io-executor-thread-N}, Netty and Vert.x event loops, plus the {@code workers} option's
 * prefixes), and each pool gets a core {@link ProgressWatchdog}.
 *
 * <p>Neither Jetty nor a plain {@code ThreadPoolExecutor} counts completed requests where a
 * tool can read it, and Spring Boot turns Tomcat's MBeans off by default, so progress is read
 * from the threads themselves, once per second on Vitals' scheduler ({@code ThreadMXBean}):
 * <ul>
 *   <li>a thread is <em>idle</em> when its stack shows it waiting for work (a pool's queue
 *       {@code take/poll}, {@code ThreadPoolExecutor.getTask}, Jetty's {@code idleJobPoll}, a
 *       selector or {@code epoll} wait), else <em>busy</em>;</li>
 *   <li>a busy thread has <em>progressed</em> when its CPU time, blocked count or waited count
 *       changed since the previous sample, or it was idle then; each progressed thread adds one
 *       to the pool's {@code completed} counter.</li>
 * </ul>
 * So "work running and nothing moving for {@code stall-after}" is DOWN (every busy thread stuck
 * in the same wait or lock, and no thread of the pool waiting for a task: while one waits with
 * nothing queued the pool counts as progressing, since it takes new work at once), and
 * "saturated but completing" is UP.
 *
 * <p>Where the server shows its pool as an MBean ({@link JmxPools}: Tomcat's {@code ThreadPool}
 * and {@code Executor}, Jetty's {@code QueuedThreadPool}, XNIO's worker) and an MBean server
 * exists already, the same sample also reads it: its queue size is the pool's {@code queued}
 * (work waiting counts as work even when no thread is busy), its busy and maximum figures and the
 * bean's name go into the details, and its thread-name prefix finds pools of any name. The
 * threads stay the progress signal (a bean's busy count includes Jetty's selector threads, which
 * never complete anything). Without a bean {@code queued} is 0: the queue is not visible from
 * outside the pool. Cost per sample: one
 * {@code getThreadInfo} over all threads without stacks, then one with 12 frames over the pool
 * threads (a safepoint, tens to hundreds of microseconds for a few hundred threads).
 */
final class WorkerPools {
    private static final int DEPTH = 12;
    /** Known pools: name prefix → label. A thread belongs to the first prefix it starts with. */
    static final String[] KNOWN = {
        "http-nio-", "https-jsse-nio-", "http-nio2-", "https-openssl-nio-", // Tomcat
        "qtp", // Jetty's QueuedThreadPool
        "dw-admin-", "dw-", // Dropwizard (Jetty): admin and application pools
        "XNIO-", // Undertow
        "executor-thread-", // Quarkus worker pool
        "vert.x-eventloop-thread-", "vert.x-worker-thread-", // Vert.x (Quarkus)
        "io-executor-thread-", "default-nioEventLoopGroup-", "default-epollEventLoopGroup-", // Micronaut
        "nioEventLoopGroup-", "epollEventLoopGroup-", // Netty
        "helidon-", // Helidon platform threads
    };
    private static final Set<String> JDK_IDLE = Set.of(
            "java.util.concurrent.ThreadPoolExecutor.getTask",
            "java.util.concurrent.ForkJoinPool.awaitWork",
            "java.util.concurrent.ScheduledThreadPoolExecutor$DelayedWorkQueue.take",
            "sun.nio.ch.SelectorImpl.lockAndDoSelect",
            "sun.nio.ch.EPoll.wait",
            "sun.nio.ch.KQueue.poll",
            "sun.nio.ch.WEPoll.wait",
            "sun.nio.ch.Net.accept",
            "sun.nio.ch.ServerSocketChannelImpl.accept",
            "java.net.ServerSocket.accept");
    private static final String[] LIB_IDLE = {
        "org.apache.tomcat.util.threads.TaskQueue.",
        "org.apache.tomcat.util.net.NioEndpoint$Poller.run",
        "org.apache.tomcat.util.net.Acceptor.run",
        "org.eclipse.jetty.util.BlockingArrayQueue.",
        "org.eclipse.jetty.util.thread.QueuedThreadPool$Runner.idleJobPoll",
        "org.eclipse.jetty.util.thread.ReservedThreadExecutor$ReservedThread.reservedWait",
        "org.eclipse.jetty.io.ManagedSelector.",
        "org.eclipse.jetty.io.SelectorManager.",
        "org.eclipse.jetty.server.ServerConnector.accept",
        "org.jboss.threads.EnhancedQueueExecutor$ThreadBody.run",
        "org.xnio.nio.WorkerThread.",
        "io.netty.channel.nio.",
        "io.netty.channel.epoll.Native.",
        "io.netty.channel.epoll.EpollIoHandler.epollWait",
        "io.netty.channel.epoll.EpollEventLoop.epollWait",
        "io.netty.util.concurrent.SingleThreadEventExecutor.takeTask",
        "io.vertx.core.impl.",
        "com.sun.net.httpserver.",
        "sun.net.httpserver.ServerImpl$Dispatcher.run",
    };

    /**
     * Idle frames of a thread waiting for a task in its pool's queue (not a selector or an
     * acceptor, which serve their own connections): while one such thread waits, the pool can take
     * new work at once, so a stuck request beside it is not a stalled pool.
     */
    private static final String[] TASK_IDLE = {
        "java.util.concurrent.ThreadPoolExecutor.getTask",
        "java.util.concurrent.ForkJoinPool.awaitWork",
        "java.util.concurrent.ScheduledThreadPoolExecutor$DelayedWorkQueue.take",
        "org.apache.tomcat.util.threads.TaskQueue.",
        "org.eclipse.jetty.util.BlockingArrayQueue.",
        "org.eclipse.jetty.util.thread.QueuedThreadPool$Runner.idleJobPoll",
        "org.jboss.threads.EnhancedQueueExecutor$ThreadBody.run",
        // not Jetty's reserved threads: one may wait for its own hand-off while jobs queue
    };

    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private final boolean cpu;
    private final List<String> prefixes;
    private final Duration stallAfter;
    private final HealthRegistry registry;
    /** Pool label → latest figures (written by the sampler, read by the pool's watchdog source). */
    private final Map<String, ProgressSnapshot> latest = new ConcurrentHashMap<>();
    /** Pool label → watchdog; created when the pool is first seen. */
    private final Map<String, ProgressWatchdog> watchdogs = new ConcurrentHashMap<>();
    /** Pool label → its MBeans' figures at the latest sample (absent: no bean). */
    private final Map<String, List<JmxPools.Pool>> beans = new ConcurrentHashMap<>();
    /** Thread id → fingerprint at the previous sample; only the sampler thread touches these. */
    private Map<Long, long[]> previous = new HashMap<>();
    private final Map<String, Long> completed = new HashMap<>();
    /** Thread-name prefixes learnt from MBeans whose pools no known prefix covers; sampler thread only. */
    private final List<String> learnt = new ArrayList<>();

    WorkerPools(List<String> extraPrefixes, Duration stallAfter, HealthRegistry registry) {
        List<String> p = new ArrayList<>(extraPrefixes);
        p.addAll(List.of(KNOWN));
        this.prefixes = List.copyOf(p);
        this.stallAfter = stallAfter;
        this.registry = registry;
        boolean c = threads.isThreadCpuTimeSupported();
        if (c && !threads.isThreadCpuTimeEnabled()) {
            try {
                threads.setThreadCpuTimeEnabled(true);
            } catch (UnsupportedOperationException | SecurityException e) {
                c = false;
            }
        }
        this.cpu = c;
    }

    /** The pool a thread name belongs to, or null. Dropwizard renames busy threads "dw-12 - GET /x". */
    String poolOf(String name) {
        for (String p : learnt) {
            if (name.startsWith(p)) {
                return p;
            }
        }
        for (String p : prefixes) {
            if (name.startsWith(p)) {
                if (p.equals("qtp")) { // qtp123456-7
                    int dash = name.indexOf('-');
                    return dash > 0 ? name.substring(0, dash + 1) : null;
                }
                if (p.startsWith("XNIO-")) { // XNIO-1 task-3, XNIO-1 I/O-2
                    int sp = name.indexOf(' ');
                    return sp > 0 ? name.substring(0, sp) : p;
                }
                return p;
            }
        }
        return null;
    }

    /**
     * Library frames that only wrap a JDK lock or condition, looked through like JDK frames: Jetty
     * 12's queue waits in {@code AutoLock$WithCondition.awaitNanos} under
     * {@code BlockingArrayQueue.poll}, and every idle Dropwizard 5 thread read busy.
     */
    private static final String[] LOCK_WRAPPERS = {"org.eclipse.jetty.util.thread.AutoLock"};

    /** Whether a stack shows a thread waiting for work. */
    static boolean idle(StackTraceElement[] stack) {
        for (StackTraceElement f : stack) {
            String cls = f.getClassName();
            String m = cls + "." + f.getMethodName();
            if (cls.startsWith("java.") || cls.startsWith("jdk.") || cls.startsWith("sun.")) {
                if (JDK_IDLE.contains(m)) {
                    return true;
                }
                continue;
            }
            if (wrapsALock(cls)) {
                continue;
            }
            for (String idle : LIB_IDLE) {
                if (m.startsWith(idle)) {
                    return true;
                }
            }
            return false; // the first frame outside the JDK decides
        }
        return false;
    }

    private static boolean wrapsALock(String cls) {
        for (String w : LOCK_WRAPPERS) {
            if (cls.startsWith(w)) {
                return true;
            }
        }
        return false;
    }

    /** Whether an idle thread's stack shows it waiting for a task in its pool's queue. */
    static boolean waitingForTask(StackTraceElement[] stack) {
        for (StackTraceElement f : stack) {
            String m = f.getClassName() + "." + f.getMethodName();
            for (String idle : TASK_IDLE) {
                if (m.startsWith(idle)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** One sample of every pool; runs on Vitals' scheduler once per second. Never blocks. */
    void sample() {
        sample(JmxPools.read());
    }

    /** One sample, with the pools' MBeans as read now (empty when there is no MBean server). */
    void sample(List<JmxPools.Pool> jmx) {
        Map<String, List<JmxPools.Pool>> byPool = new TreeMap<>();
        for (JmxPools.Pool b : jmx) {
            String label = poolOf(b.threadPrefix() + "1");
            if (label == null) {
                learnt.add(b.threadPrefix());
                label = b.threadPrefix();
            }
            byPool.computeIfAbsent(label, k -> new ArrayList<>()).add(b);
        }
        long[] ids = threads.getAllThreadIds();
        ThreadInfo[] named = threads.getThreadInfo(ids, 0);
        List<Long> poolIds = new ArrayList<>();
        List<String> poolOf = new ArrayList<>();
        for (ThreadInfo t : named) {
            if (t == null) {
                continue;
            }
            String pool = poolOf(t.getThreadName());
            if (pool != null) {
                poolIds.add(t.getThreadId());
                poolOf.add(pool);
            }
        }
        long[] pid = new long[poolIds.size()];
        for (int i = 0; i < pid.length; i++) {
            pid[i] = poolIds.get(i);
        }
        ThreadInfo[] infos = threads.getThreadInfo(pid, DEPTH);
        Map<Long, long[]> now = new HashMap<>();
        Map<String, long[]> figures = new TreeMap<>(); // pool → {progressed, busy, waiting for a task}
        for (int i = 0; i < pid.length; i++) {
            ThreadInfo t = infos[i];
            if (t == null) {
                continue; // died since
            }
            String pool = poolOf.get(i);
            long[] f = figures.computeIfAbsent(pool, k -> new long[3]);
            StackTraceElement[] stack = t.getStackTrace();
            boolean isIdle = idle(stack);
            if (isIdle && waitingForTask(stack)) {
                f[2]++;
            }
            long cpuNanos = cpu ? threads.getThreadCpuTime(pid[i]) : -1;
            long[] fp = {isIdle ? 1 : 0, cpuNanos, t.getBlockedCount(), t.getWaitedCount()};
            now.put(pid[i], fp);
            if (!isIdle) {
                f[1]++;
                long[] before = previous.get(pid[i]);
                if (before == null || before[0] == 1 || before[1] != fp[1] || before[2] != fp[2] || before[3] != fp[3]) {
                    f[0]++;
                }
            }
        }
        previous = now;
        for (String pool : byPool.keySet()) {
            figures.computeIfAbsent(pool, k -> new long[3]); // a bean's pool whose threads are all gone still has its queue
        }
        for (String pool : watchdogs.keySet()) {
            figures.computeIfAbsent(pool, k -> new long[3]); // threads gone: nothing running, not a stall
        }
        beans.keySet().retainAll(byPool.keySet());
        beans.putAll(byPool);
        for (Map.Entry<String, long[]> e : figures.entrySet()) {
            String pool = e.getKey();
            long queued = 0;
            for (JmxPools.Pool b : byPool.getOrDefault(pool, List.of())) {
                queued += Math.max(0, b.queued());
            }
            // A thread waiting for a task with nothing queued: the pool takes new work at once, so
            // it is not stalled however long one request beside it runs (a hung framework health
            // check, a long poll). Requests that finish between two samples are not seen, so the
            // free thread counts as the pool's progress.
            long progressed = e.getValue()[0] + (e.getValue()[2] > 0 && queued == 0 ? 1 : 0);
            long done = completed.merge(pool, progressed, Long::sum);
            latest.put(pool, ProgressSnapshot.of(done, e.getValue()[1], queued));
            watchdogs.computeIfAbsent(pool, this::newWatchdog);
        }
    }

    /** The pool's figures at the latest sample, or null (tests). */
    ProgressSnapshot snapshot(String pool) {
        return latest.get(pool);
    }

    private ProgressWatchdog newWatchdog(String pool) {
        ProgressWatchdog w = ProgressWatchdog.builder("workers-" + pool.replaceAll("[^A-Za-z0-9._-]", "_"),
                () -> latest.getOrDefault(pool, ProgressSnapshot.of(0, 0, 0)))
                .stallAfter(stallAfter)
                .build();
        w.start(registry);
        return w;
    }

    /** @return the worst pool's health, with each pool's figures as details */
    Health health() {
        if (watchdogs.isEmpty()) {
            return Health.builder(Status.UP).message("no worker pool found yet").build();
        }
        Health worst = null;
        Map<String, Object> details = new TreeMap<>();
        for (Map.Entry<String, ProgressWatchdog> e : new TreeMap<>(watchdogs).entrySet()) {
            Health h;
            try {
                h = e.getValue().healthCheck().check();
            } catch (Exception ex) {
                h = Health.down(ex);
            }
            StringBuilder d = new StringBuilder().append(h.status()).append(" busy=").append(h.details().get("busy"))
                    .append(" queued=").append(h.details().get("queued"))
                    .append(" withoutProgressMs=").append(h.details().get("withoutProgressMs"));
            List<JmxPools.Pool> bs = beans.get(e.getKey());
            d.append(" source=").append(bs == null ? "threads" : "threads+jmx");
            if (bs != null) {
                for (JmxPools.Pool b : bs) {
                    d.append(" [").append(b.describe()).append(']');
                }
            }
            details.put(e.getKey() + "*", d.toString());
            if (worst == null || h.status().compareTo(worst.status()) > 0) {
                worst = h.message().isPresent()
                        ? h.withStatus(h.status(), "pool '" + e.getKey() + "*': " + h.message().get()) : h;
            }
        }
        Health.Builder b = Health.builder(worst.status());
        worst.message().ifPresent(b::message);
        details.forEach(b::detail);
        return b.build();
    }

    void close() {
        watchdogs.values().forEach(ProgressWatchdog::close);
    }
}
