package dev.vitals.agent.impl;

import dev.vitals.Health;
import dev.vitals.HealthRegistry;
import dev.vitals.Status;
import dev.vitals.agent.boot.WorkerCounter;
import dev.vitals.monitor.ProgressSnapshot;
import dev.vitals.monitor.ProgressWatchdog;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Delayed;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Progress of the application's worker pools, one core {@link ProgressWatchdog} per pool, sampled
 * once per second on Vitals' scheduler (DESIGN.md section 7d, "Worker progress").
 *
 * <p><b>Measured pools.</b> Where {@link ExecutorInstrumentation} is installed, the pools count
 * their own tasks: each worker thread's {@link WorkerCounter} (tasks started and completed), or the
 * pool's own figures for a {@code ThreadPoolExecutor}; the number of threads and the work waiting
 * are read from the pool ({@code getPoolSize}/{@code getQueue}, {@code getThreads}/
 * {@code getQueueSize}, ...). Watched: Jetty's {@code QueuedThreadPool}, JBoss Threads'
 * {@code EnhancedQueueExecutor}, Tomcat's executor, and a JDK {@code ThreadPoolExecutor} or
 * {@code ForkJoinPool} whose threads carry a request pool's name ({@link #REQUEST_POOLS} and the
 * {@code workers} option's prefixes); the application's other JDK pools (a single-thread loop,
 * a scheduler) are not liveness.
 *
 * <p><b>Stall rule</b>: a pool is stalled when work waits ({@code queued > 0}) or every thread of
 * the pool is inside a task, at every sample for {@code stall-after}, and no task completed in
 * that time. An idle pool is never stalled, whatever its threads' frames; one stuck task beside an
 * idle thread is not a stall; wake-ups that complete no task are not progress.
 *
 * <p><b>Pools inferred from stacks</b> (the fallback, for pools the instrumentation does not
 * reach): Netty and Vert.x event loops, Helidon's threads, and {@code workers} prefixes whose
 * threads belong to no measured pool. A thread is idle when its stack shows it waiting in a
 * selector; a busy thread progressed when its CPU time or blocked/waited counts moved since the
 * previous sample. Same rule: stalled when every thread is busy and none moved for
 * {@code stall-after}. Cost per sample: one {@code getThreadInfo} without stacks over all threads,
 * then one with 12 frames over those pools' threads.
 *
 * <p>{@link #sample} runs on one thread at a time; {@link #health} on any thread.
 */
final class WorkerPools {
    private static final int DEPTH = 12;
    /**
     * Thread-name prefixes of the JDK pools that serve requests: XNIO (Undertow) task threads,
     * Vert.x workers, Micronaut's I/O executor, gRPC's default executor, Tomcat's threads when its
     * executor is a JDK one.
     */
    static final String[] REQUEST_POOLS = {
        "http-nio-", "https-jsse-nio-", "http-nio2-", "https-openssl-nio-", // Tomcat
        "XNIO-", // Undertow
        "vert.x-worker-thread-", "executor-thread-", // Vert.x, Quarkus
        "io-executor-thread-", // Micronaut
        "grpc-default-executor-", // grpc-java
    };
    /** Event loops, read from stacks: their loop never returns, so no task can be counted. */
    static final String[] EVENT_LOOPS = {
        "vert.x-eventloop-thread-", // Vert.x (Quarkus)
        "default-nioEventLoopGroup-", "default-epollEventLoopGroup-", // Micronaut
        "nioEventLoopGroup-", "epollEventLoopGroup-", // Netty
        "helidon-", // Helidon platform threads
    };
    /** Frames of a thread waiting for I/O or for work, inside the JDK. */
    private static final Set<String> JDK_IDLE = Set.of(
            "java.util.concurrent.ThreadPoolExecutor.getTask",
            "java.util.concurrent.ForkJoinPool.awaitWork",
            "sun.nio.ch.SelectorImpl.lockAndDoSelect",
            "sun.nio.ch.EPoll.wait",
            "sun.nio.ch.KQueue.poll",
            "sun.nio.ch.WEPoll.wait",
            "sun.nio.ch.Net.accept",
            "sun.nio.ch.ServerSocketChannelImpl.accept",
            "java.net.ServerSocket.accept");
    /** Frames of an event loop waiting for I/O or for work. */
    private static final String[] LIB_IDLE = {
        "io.netty.channel.nio.",
        "io.netty.channel.epoll.Native.",
        "io.netty.channel.epoll.EpollIoHandler.epollWait",
        "io.netty.channel.epoll.EpollEventLoop.epollWait",
        "io.netty.util.concurrent.SingleThreadEventExecutor.takeTask",
        "io.vertx.core.impl.",
        "com.sun.net.httpserver.",
        "sun.net.httpserver.ServerImpl$Dispatcher.run",
    };

    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private final boolean cpu;
    private final List<String> extraPrefixes;
    private final Duration stallAfter;
    private final HealthRegistry registry;
    private final boolean measuring;
    /** Pool label → latest reading (written by the sampler, read by the watchdogs and health). */
    private final Map<String, Reading> latest = new ConcurrentHashMap<>();
    /** Pool label → watchdog; created when the pool is first seen, closed when it is gone. */
    private final Map<String, ProgressWatchdog> watchdogs = new ConcurrentHashMap<>();

    // Sampler thread only.
    private final Map<Object, Measured> measured = new IdentityHashMap<>();
    private final Set<String> labels = new HashSet<>();
    private Map<Long, long[]> previous = new HashMap<>();
    private final Map<String, Long> inferredProgress = new HashMap<>();

    /**
     * One pool's figures at a sample; {@code limit}: the threads the pool may run before work has
     * to wait (its maximum when it grows on demand, as Jetty's, Tomcat's and JBoss's pools do; its
     * current threads when read from stacks); {@code inferred}: read from stacks; {@code unbounded}:
     * requests on virtual threads (no pool bounds them: {@code threads} are the connections,
     * {@code busy} the requests in flight, the oldest of them {@code oldestMs} old, -1 when none).
     */
    record Reading(long threads, long limit, long busy, long queued, long completed, boolean inferred, boolean unbounded, long oldestMs) {
        Reading(long threads, long limit, long busy, long queued, long completed, boolean inferred) {
            this(threads, limit, busy, queued, completed, inferred, false, -1);
        }

        /**
         * Whether the stall rule applies: work waits, or every thread the pool may run is inside a
         * task; with no bound (virtual threads), any request in flight. A pool that has shrunk to
         * its one stuck thread but would start another for the next task is not stalled.
         */
        boolean hasWork() {
            return queued > 0 || (unbounded ? busy > 0 : limit > 0 && busy >= Math.max(limit, threads));
        }

        /** The watchdog's view: busy counts only when every thread is busy or work waits. */
        ProgressSnapshot progress() {
            return ProgressSnapshot.of(completed, hasWork() ? busy : 0, queued);
        }
    }

    /**
     * @param extraPrefixes the {@code workers} option's thread-name prefixes
     * @param stallAfter time with work and no completed task after which a pool is stalled
     * @param registry where the watchdogs run
     * @param measuring whether {@link ExecutorInstrumentation} is installed
     */
    WorkerPools(List<String> extraPrefixes, Duration stallAfter, HealthRegistry registry, boolean measuring) {
        this.extraPrefixes = List.copyOf(extraPrefixes);
        this.stallAfter = stallAfter;
        this.registry = registry;
        this.measuring = measuring;
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

    /** One sample of every pool; runs on Vitals' scheduler once per second. Never blocks. */
    void sample() {
        Map<String, Reading> now = new TreeMap<>();
        Set<Long> measuredThreads = new HashSet<>();
        if (measuring) {
            sampleMeasured(now, measuredThreads);
        }
        sampleStacks(now, measuredThreads);
        for (Iterator<Map.Entry<String, ProgressWatchdog>> it = watchdogs.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<String, ProgressWatchdog> e = it.next();
            if (!now.containsKey(e.getKey())) { // every thread of the pool is gone
                e.getValue().close();
                it.remove();
                latest.remove(e.getKey());
            }
        }
        latest.putAll(now);
        for (String pool : now.keySet()) {
            watchdogs.computeIfAbsent(pool, this::newWatchdog);
        }
    }

    // ---- measured pools -------------------------------------------------------------------

    /** A measured pool: its worker threads' counters and the counts of its threads that ended. */
    private static final class Measured {
        final Object pool;
        final List<WorkerCounter> counters = new ArrayList<>();
        final String family;
        String label;
        boolean watched;
        long endedStarted;
        long endedCompleted;

        Measured(Object pool) {
            this.pool = pool;
            this.family = pool instanceof Class ? ((Class<?>) pool).getName() : family(pool.getClass());
        }

        /** Requests on virtual threads ({@link WorkerCounter#REQUESTS}): the pool is the server's connection class. */
        boolean requests() {
            return pool instanceof Class;
        }
    }

    private void sampleMeasured(Map<String, Reading> out, Set<Long> measuredThreads) {
        for (WorkerCounter c; (c = WorkerCounter.poll()) != null; ) {
            if (c.kind() == WorkerCounter.REQUESTS && LoopbackGet.isOwnPort(peerPort(c.source()))) {
                continue; // the agent's own polls: never the application's progress, nor its work
            }
            measured.computeIfAbsent(c.pool(), Measured::new).counters.add(c);
        }
        long nowNanos = System.nanoTime();
        for (Iterator<Measured> it = measured.values().iterator(); it.hasNext(); ) {
            Measured m = it.next();
            long busy = 0;
            long aside = 0;
            long oldest = -1;
            long completed = m.endedCompleted;
            for (Iterator<WorkerCounter> ci = m.counters.iterator(); ci.hasNext(); ) {
                WorkerCounter c = ci.next();
                long done = c.completed(); // before started: busy never reads negative
                long started = c.started();
                if (!c.thread().isAlive()) {
                    m.endedCompleted += done;
                    m.endedStarted += started;
                    completed += done;
                    ci.remove();
                    continue;
                }
                measuredThreads.add(c.thread().getId());
                completed += done;
                if (started > done) {
                    busy++;
                    if (c.kind() == WorkerCounter.REQUESTS) {
                        oldest = Math.max(oldest, (nowNanos - c.startedAt()) / 1_000_000);
                    }
                }
                aside += c.aside() ? 1 : 0;
            }
            if (m.counters.isEmpty()) {
                it.remove();
                if (m.label != null) {
                    labels.remove(m.label);
                }
                continue;
            }
            if (m.label == null) {
                m.label = m.requests() ? label(requestsLabel(m.family)) : label(m.counters.get(0).thread().getName());
                m.watched = watched(m);
            }
            if (!m.watched) {
                continue;
            }
            Reading r;
            try {
                r = m.requests() ? new Reading(m.counters.size(), m.counters.size(), busy, 0, completed, false, true, Math.max(-1, oldest))
                        : read(m.pool, m.family, m.counters.size(), busy, aside, completed);
            } catch (RuntimeException | LinkageError e) {
                continue; // a pool that cannot be read is not judged
            }
            out.put(m.label, r);
        }
    }

    /** The instrumented classes whose pools serve requests wherever they are used. */
    private static final String JETTY = "org.eclipse.jetty.util.thread.QueuedThreadPool";
    private static final String JBOSS = "org.jboss.threads.EnhancedQueueExecutor";
    private static final String TOMCAT = "org.apache.tomcat.util.threads.ThreadPoolExecutor";

    /**
     * The instrumented class a pool is or extends (Dropwizard's {@code InstrumentedQueuedThreadPool}
     * is Jetty's), or its own name.
     */
    static String family(Class<?> c) {
        for (Class<?> k = c; k != null; k = k.getSuperclass()) {
            String n = k.getName();
            if (n.equals(JETTY) || n.equals(JBOSS) || n.equals(TOMCAT)) {
                return n;
            }
        }
        return c.getName();
    }

    /** Whether a pool is liveness: a server's pool, or a JDK pool with a request pool's thread name. */
    private boolean watched(Measured m) {
        if (m.label.startsWith("vitals-")) {
            return false; // the agent's own threads
        }
        if (m.requests() || m.family.equals(JETTY) || m.family.equals(JBOSS) || m.family.equals(TOMCAT)) {
            return true;
        }
        return prefixOf(m.counters.get(0).thread().getName(), true) != null;
    }

    /** The label of requests on virtual threads: {@code helidon-http1-requests-} for Helidon. */
    static String requestsLabel(String family) {
        return family.equals(ExecutorInstrumentation.HELIDON_HTTP1) ? "helidon-http1-requests-"
                : family.substring(family.lastIndexOf('.') + 1) + "-requests-";
    }

    private static final Map<Class<?>, Method[]> PEER = new ConcurrentHashMap<>();

    /**
     * The client port of a server connection: an accepted {@code Socket}'s, or Helidon's {@code Http1Connection}'s, through its
     * {@code ctx} field's {@code remotePeer().port()} (Helidon's public {@code SocketContext} and
     * {@code PeerInfo} interfaces). Reflection once per connection, on the sampler thread.
     *
     * @return the port, or -1 when it cannot be read
     */
    static int peerPort(Object connection) {
        if (connection == null) {
            return -1;
        }
        if (connection instanceof java.net.Socket) { // a server's accepted socket
            return ((java.net.Socket) connection).getPort();
        }
        try {
            java.lang.reflect.Field f = ctxField(connection.getClass());
            if (f == null) {
                return -1;
            }
            Object ctx = f.get(connection);
            Method remotePeer = interfaceMethod(ctx.getClass(), "remotePeer");
            Object peer = remotePeer.invoke(ctx);
            return ((Number) interfaceMethod(peer.getClass(), "port").invoke(peer)).intValue();
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return -1;
        }
    }

    private static final Map<Class<?>, java.lang.reflect.Field> CTX = new ConcurrentHashMap<>();

    private static java.lang.reflect.Field ctxField(Class<?> type) {
        return CTX.computeIfAbsent(type, t -> {
            for (Class<?> k = t; k != null; k = k.getSuperclass()) {
                try {
                    java.lang.reflect.Field f = k.getDeclaredField("ctx");
                    f.setAccessible(true);
                    return f;
                } catch (NoSuchFieldException e) {
                    // the superclass
                } catch (RuntimeException e) {
                    return null;
                }
            }
            return null;
        });
    }

    /** A public interface's method {@code name()} that {@code type} implements (the class itself may not be public). */
    private static Method interfaceMethod(Class<?> type, String name) throws NoSuchMethodException {
        Method[] found = PEER.computeIfAbsent(type, t -> new Method[2]);
        int slot = name.equals("remotePeer") ? 0 : 1;
        if (found[slot] != null) {
            return found[slot];
        }
        java.util.ArrayDeque<Class<?>> todo = new java.util.ArrayDeque<>();
        for (Class<?> k = type; k != null; k = k.getSuperclass()) {
            todo.addAll(List.of(k.getInterfaces()));
        }
        while (!todo.isEmpty()) {
            Class<?> i = todo.poll();
            if (java.lang.reflect.Modifier.isPublic(i.getModifiers())) {
                try {
                    Method m = i.getMethod(name);
                    found[slot] = m;
                    return m;
                } catch (NoSuchMethodException e) {
                    // its super-interfaces
                }
            }
            todo.addAll(List.of(i.getInterfaces()));
        }
        throw new NoSuchMethodException(type.getName() + "." + name + "()");
    }

    /** A label unique among the pools: the first thread's name without its number, then {@code *}. */
    private String label(String threadName) {
        String n = threadName;
        int dw = n.indexOf(" - "); // Dropwizard renames a busy thread "dw-12 - GET /x"
        if (dw > 0) {
            n = n.substring(0, dw);
        }
        int end = n.length();
        while (end > 0 && Character.isDigit(n.charAt(end - 1))) {
            end--;
        }
        String base = n.substring(0, end);
        String label = base;
        for (int i = 2; labels.contains(label); i++) {
            label = base + "#" + i;
        }
        labels.add(label);
        return label;
    }

    /**
     * The pool's threads and work waiting, read from the pool itself; its tasks from the counters
     * or, for a {@code ThreadPoolExecutor}, from the pool's own counts.
     */
    static Reading read(Object pool, String family, int counted, long busy, long aside, long completed) {
        if (pool instanceof ThreadPoolExecutor) {
            ThreadPoolExecutor p = (ThreadPoolExecutor) pool;
            return new Reading(p.getPoolSize(), limit(p.getPoolSize(), p.getCorePoolSize(), p.getMaximumPoolSize(), p.getQueue()),
                    p.getActiveCount(), waiting(p.getQueue()), p.getCompletedTaskCount(), false);
        }
        if (pool instanceof ForkJoinPool) {
            ForkJoinPool p = (ForkJoinPool) pool;
            return new Reading(p.getPoolSize(), Math.max(p.getPoolSize(), p.getParallelism()), busy,
                    p.getQueuedSubmissionCount() + p.getQueuedTaskCount(), completed, false);
        }
        if (family.equals(TOMCAT)) { // Tomcat's copy of ThreadPoolExecutor: grows to its maximum before it queues
            return new Reading(number(pool, "getPoolSize"), number(pool, "getMaximumPoolSize"), number(pool, "getActiveCount"),
                    waiting((java.util.Collection<?>) call(pool, "getQueue")), number(pool, "getCompletedTaskCount"), false);
        }
        if (family.equals(JETTY)) {
            // Threads lent to Jetty's own jobs (reserved threads, selectors, acceptors) are not the pool's;
            // it starts a thread per job up to its maximum (QueuedThreadPool.execute → ensureThreads).
            return new Reading(Math.max(0, number(pool, "getThreads") - aside), Math.max(0, number(pool, "getMaxThreads") - aside),
                    busy, number(pool, "getQueueSize"), completed, false);
        }
        if (family.equals(JBOSS)) { // starts threads up to its maximum before it queues
            return new Reading(number(pool, "getPoolSize"), number(pool, "getMaximumPoolSize"), busy, number(pool, "getQueueSize"), completed, false);
        }
        return new Reading(counted, counted, busy, 0, completed, false);
    }

    /**
     * The threads a JDK {@code ThreadPoolExecutor} runs before a task waits: below its core size it
     * starts a thread per task; a hand-off queue ({@code SynchronousQueue}, a cached pool) grows it
     * to its maximum; any other queue takes the task (and grows the pool past core only when full,
     * which shows as queued work).
     */
    static long limit(int threads, int core, int max, java.util.concurrent.BlockingQueue<Runnable> queue) {
        if (queue instanceof java.util.concurrent.SynchronousQueue) {
            return max;
        }
        return Math.max(threads, core);
    }

    /**
     * Work waiting in a queue: its size, except a scheduler's queue (a {@code Delayed} head), where
     * only a task whose time has come waits.
     */
    private static long waiting(java.util.Collection<?> queue) {
        if (queue instanceof java.util.Queue) {
            Object head = ((java.util.Queue<?>) queue).peek();
            if (head instanceof Delayed) {
                return ((Delayed) head).getDelay(TimeUnit.NANOSECONDS) <= 0 ? 1 : 0;
            }
        }
        return queue.size();
    }

    private static final Map<String, Method> METHODS = new ConcurrentHashMap<>();

    private static Object call(Object target, String name) {
        Method m = METHODS.computeIfAbsent(target.getClass().getName() + "#" + name, k -> {
            try {
                return target.getClass().getMethod(name);
            } catch (NoSuchMethodException e) {
                throw new IllegalStateException(e);
            }
        });
        try {
            return m.invoke(target);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    private static long number(Object target, String name) {
        return Math.max(0, ((Number) call(target, name)).longValue());
    }

    // ---- pools inferred from stacks -------------------------------------------------------

    /**
     * The stack-read pool a thread name belongs to, or null: the {@code workers} prefixes, then the
     * event loops; with {@code requestPools}, the request pools' names too.
     */
    String prefixOf(String name, boolean requestPools) {
        for (String p : extraPrefixes) {
            if (name.startsWith(p)) {
                return p;
            }
        }
        for (String p : EVENT_LOOPS) {
            if (name.startsWith(p)) {
                return p;
            }
        }
        if (requestPools) {
            for (String p : REQUEST_POOLS) {
                if (name.startsWith(p)) {
                    return p;
                }
            }
        }
        return null;
    }

    /** Whether a stack shows a thread waiting for I/O or work: the first frame outside the JDK decides. */
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
            for (String idle : LIB_IDLE) {
                if (m.startsWith(idle)) {
                    return true;
                }
            }
            return false;
        }
        return false;
    }

    private void sampleStacks(Map<String, Reading> out, Set<Long> measuredThreads) {
        ThreadInfo[] named = threads.getThreadInfo(threads.getAllThreadIds(), 0);
        List<Long> ids = new ArrayList<>();
        List<String> poolOf = new ArrayList<>();
        for (ThreadInfo t : named) {
            if (t == null || measuredThreads.contains(t.getThreadId())) {
                continue;
            }
            // Never a request pool's threads: without instrumentation their frames would be guessed
            // (an idle pool read busy is what restarted healthy services).
            String pool = prefixOf(t.getThreadName(), false);
            if (pool != null) {
                ids.add(t.getThreadId());
                poolOf.add(pool);
            }
        }
        long[] pid = ids.stream().mapToLong(Long::longValue).toArray();
        ThreadInfo[] infos = threads.getThreadInfo(pid, DEPTH);
        Map<Long, long[]> now = new HashMap<>();
        Map<String, long[]> figures = new TreeMap<>(); // pool → {threads, busy, progressed}
        for (int i = 0; i < pid.length; i++) {
            ThreadInfo t = infos[i];
            if (t == null) {
                continue; // died since
            }
            long[] f = figures.computeIfAbsent(poolOf.get(i), k -> new long[3]);
            f[0]++;
            boolean isIdle = idle(t.getStackTrace());
            long[] fp = {isIdle ? 1 : 0, cpu ? threads.getThreadCpuTime(pid[i]) : -1, t.getBlockedCount(), t.getWaitedCount()};
            now.put(pid[i], fp);
            if (!isIdle) {
                f[1]++;
                long[] before = previous.get(pid[i]);
                if (before == null || before[0] == 1 || before[1] != fp[1] || before[2] != fp[2] || before[3] != fp[3]) {
                    f[2]++;
                }
            }
        }
        previous = now;
        inferredProgress.keySet().retainAll(figures.keySet());
        for (Map.Entry<String, long[]> e : figures.entrySet()) {
            long[] f = e.getValue();
            long done = inferredProgress.merge(e.getKey(), f[2], Long::sum);
            String label = e.getKey();
            out.putIfAbsent(label, new Reading(f[0], f[0], f[1], 0, done, true));
        }
    }

    // ---- health ---------------------------------------------------------------------------

    /** The pool's figures at the latest sample, or null (tests). */
    Reading reading(String pool) {
        return latest.get(pool);
    }

    /** @return the labels of the pools seen at the latest sample */
    Set<String> pools() {
        return Set.copyOf(latest.keySet());
    }

    private ProgressWatchdog newWatchdog(String pool) {
        ProgressWatchdog w = ProgressWatchdog.builder("workers-" + pool.replaceAll("[^A-Za-z0-9._-]", "_"), () -> {
            Reading r = latest.get(pool);
            return r == null ? ProgressSnapshot.of(0, 0, 0) : r.progress();
        }).stallAfter(stallAfter).build();
        w.start(registry);
        return w;
    }

    /**
     * @return the worst pool's health, with each pool's figures as details, e.g.
     *     {@code "executor-thread-*": "UP measured threads=8 busy=1 queued=0 completed=52 maxThreads=200 withoutProgressMs=0"}
     */
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
            Reading r = latest.get(e.getKey());
            StringBuilder d = new StringBuilder().append(h.status())
                    .append(r == null || r.inferred() ? " inferred from stacks" : " measured");
            if (r != null) {
                d.append(" threads=").append(r.threads()).append(" busy=").append(r.busy())
                        .append(" queued=").append(r.queued()).append(r.inferred() ? " progressed=" : " completed=")
                        .append(r.completed());
                if (r.unbounded()) {
                    d.append(" oldestInFlightMs=").append(r.oldestMs());
                } else if (r.limit() > r.threads()) {
                    d.append(" maxThreads=").append(r.limit());
                }
            }
            d.append(" withoutProgressMs=").append(h.details().get("withoutProgressMs"));
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
