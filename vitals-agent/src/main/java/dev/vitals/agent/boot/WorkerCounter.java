package dev.vitals.agent.boot;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * One worker thread's task counts, kept by the code the agent adds to the application's thread
 * pools (DESIGN.md section 7d, "Worker progress"). The agent appends this one class to the bootstrap
 * class path, so the instrumented pools (JDK classes included) can call it, while the rest of the
 * agent stays in its own class loader. It has no dependency outside {@code java.base}.
 *
 * <p>Cost on the task path: one {@link ThreadLocal} read and one release store per task start and
 * per task end; no allocation. A counter is created once per worker thread, when the thread starts
 * ({@link #worker}) or runs its first task, and handed to the agent's sampler through
 * {@link #poll()}. A thread belongs to the first pool that counted it. Requests on virtual threads
 * ({@link #REQUESTS}) add one {@link System#nanoTime()} per request start (the in-flight age), and
 * their counter is created once per virtual thread, that is once per connection.
 *
 * <p>Thread-safety: each counter is written only by its own thread (release stores) and read by
 * the sampler (acquire loads).
 */
public final class WorkerCounter {
    /** The pool counts its own tasks ({@code ThreadPoolExecutor}): the counter only ties the thread to it. */
    public static final int POOL_COUNTS = 1;
    /** The instrumentation counts each task's start and end on this counter. */
    public static final int TASK_COUNTS = 2;
    /**
     * Requests on virtual threads (Helidon SE 4: one virtual thread per connection, its requests in
     * turn): no pool bounds them, so any request in flight is work; the counter also keeps the
     * connection ({@link #source()}) and when its latest request started.
     */
    public static final int REQUESTS = 3;

    private static final ThreadLocal<WorkerCounter> CURRENT = new ThreadLocal<>();
    private static final ConcurrentLinkedQueue<WorkerCounter> CREATED = new ConcurrentLinkedQueue<>();
    private static final VarHandle STARTED;
    private static final VarHandle COMPLETED;
    private static final VarHandle ASIDE;
    private static final VarHandle STARTED_AT;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            STARTED = l.findVarHandle(WorkerCounter.class, "started", long.class);
            COMPLETED = l.findVarHandle(WorkerCounter.class, "completed", long.class);
            ASIDE = l.findVarHandle(WorkerCounter.class, "aside", boolean.class);
            STARTED_AT = l.findVarHandle(WorkerCounter.class, "startedAt", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Thread thread;
    private final Object pool;
    private final int kind;
    /** {@link #REQUESTS}: the server's connection object the thread serves; else null. */
    private final Object source;
    private long started;
    /** {@link #REQUESTS}: {@link System#nanoTime()} when the latest request started. */
    private long startedAt;
    private long completed;
    private boolean aside;
    /** The class of the last job this thread counted as a task (owner thread only). */
    private Class<?> lastTask;
    /** Whether the Jetty job running on this thread counted as a task (owner thread only). */
    private boolean jobCounted;

    private WorkerCounter(Thread thread, Object pool, int kind, Object source) {
        this.thread = thread;
        this.pool = pool;
        this.kind = kind;
        this.source = source;
    }

    /**
     * A worker thread of {@code pool} starts: creates its counter. Called by instrumented code.
     *
     * @param pool the pool, never null
     * @param kind {@link #POOL_COUNTS} or {@link #TASK_COUNTS}
     */
    public static void worker(Object pool, int kind) {
        counter(pool, kind);
    }

    /**
     * The current thread starts a task of {@code pool}. Called by instrumented code.
     *
     * @param pool the pool, never null
     */
    public static void started(Object pool) {
        WorkerCounter c = counter(pool, TASK_COUNTS);
        if (c.pool == pool) {
            STARTED.setRelease(c, c.started + 1);
        }
    }

    /**
     * The current (virtual) thread starts a request of {@code pool} on connection {@code source}
     * ({@link #REQUESTS}). Called by instrumented code; ends with {@link #completed}. One counter
     * per thread, created at its first request (a thread per connection: once per connection);
     * nothing allocated per request.
     *
     * @param pool the request path's identity (Helidon: its connection class), never null
     * @param source the connection, never null
     */
    public static void requestStarted(Object pool, Object source) {
        WorkerCounter c = CURRENT.get();
        if (c == null) {
            c = create(pool, REQUESTS, source);
        }
        if (c.pool == pool) {
            STARTED_AT.setRelease(c, System.nanoTime());
            STARTED.setRelease(c, c.started + 1);
        }
    }

    /**
     * The current thread ends a task of {@code pool}, normally or by throwing. Called by
     * instrumented code.
     *
     * @param pool the pool, never null
     */
    public static void completed(Object pool) {
        WorkerCounter c = CURRENT.get();
        if (c != null && c.pool == pool) {
            COMPLETED.setRelease(c, c.completed + 1);
        }
    }

    /**
     * The current thread starts a Jetty job of {@code pool}: a task, unless the job is one of
     * Jetty's own that run for as long as the thread is lent to them and complete no request (a
     * reserved thread waiting for a hand-off, a selector, an acceptor: see {@link #notATask}).
     * Such a job sets the thread aside until {@link #jobEnded}. Allocation-free; the class test
     * runs once per job class and thread.
     *
     * @param pool the pool, never null
     * @param job the job, never null
     * @return whether the job counts as a task
     */
    public static boolean jobStarted(Object pool, Object job) {
        WorkerCounter c = counter(pool, TASK_COUNTS);
        if (c.pool != pool) {
            return false;
        }
        Class<?> k = job.getClass();
        if (k != c.lastTask) {
            if (notATask(k.getName())) {
                ASIDE.setRelease(c, true);
                return false;
            }
            c.lastTask = k;
        }
        STARTED.setRelease(c, c.started + 1);
        return true;
    }

    /**
     * The current thread ends a Jetty job started with {@link #jobStarted}.
     *
     * @param pool the pool, never null
     * @param counted what {@link #jobStarted} returned
     */
    public static void jobEnded(Object pool, boolean counted) {
        if (counted) {
            completed(pool);
            return;
        }
        WorkerCounter c = CURRENT.get();
        if (c != null && c.pool == pool) {
            ASIDE.setRelease(c, false);
        }
    }

    /**
     * Whether a Jetty job class is one of Jetty's own long-running jobs rather than a task:
     * {@code ReservedThreadExecutor$ReservedThread} (wakes up, completes nothing), the selector's
     * producer ({@code ManagedSelector}'s lambda) and {@code AbstractConnector$Acceptor}.
     *
     * @param className the job's class name
     * @return whether it is not a task
     */
    public static boolean notATask(String className) {
        return className.endsWith("ReservedThreadExecutor$ReservedThread")
                || className.startsWith("org.eclipse.jetty.io.ManagedSelector$$Lambda")
                || className.equals("org.eclipse.jetty.server.AbstractConnector$Acceptor");
    }

    // The hooks below are what the instrumented methods call (ExecutorInstrumentation): one static
    // call with the method's receiver, its outer instance or its first argument, nothing kept in
    // the method's frame, so the rewriting adds no local variable.

    /**
     * Hook: a {@code ThreadPoolExecutor}'s worker runs ({@code runWorker}) or takes its next task
     * ({@code getTask}); the pool counts its own tasks.
     *
     * @param pool the pool, never null
     */
    public static void poolWorker(Object pool) {
        counter(pool, POOL_COUNTS);
    }

    /**
     * Hook: a worker thread of {@code pool} starts, and the instrumentation counts its tasks
     * (JBoss Threads' {@code ThreadBody}, Jetty's {@code Runner}).
     *
     * @param pool the pool, never null
     */
    public static void taskWorker(Object pool) {
        counter(pool, TASK_COUNTS);
    }

    /**
     * Hook: {@code ForkJoinWorkerThread.run} starts.
     *
     * @param thread the worker thread, a {@link java.util.concurrent.ForkJoinWorkerThread}
     */
    public static void forkJoinWorker(Object thread) {
        counter(((java.util.concurrent.ForkJoinWorkerThread) thread).getPool(), TASK_COUNTS);
    }

    /** Hook: {@code ForkJoinTask.doExec} starts; counted when the current thread is a pool's worker. */
    public static void forkJoinTaskStarted() {
        Thread t = Thread.currentThread();
        if (t instanceof java.util.concurrent.ForkJoinWorkerThread) {
            started(((java.util.concurrent.ForkJoinWorkerThread) t).getPool());
        }
    }

    /** Hook: {@code ForkJoinTask.doExec} ends, normally or by throwing. */
    public static void forkJoinTaskEnded() {
        Thread t = Thread.currentThread();
        if (t instanceof java.util.concurrent.ForkJoinWorkerThread) {
            completed(((java.util.concurrent.ForkJoinWorkerThread) t).getPool());
        }
    }

    /**
     * Hook: Jetty's {@code QueuedThreadPool.runJob(job)} starts ({@link #jobStarted}); whether it
     * counted is kept on the thread's counter for {@link #jettyJobEnded} (Jetty never nests
     * {@code runJob}: a reserved thread runs its hand-off directly).
     *
     * @param pool the pool, never null
     * @param job the job, may be null
     */
    public static void jettyJobStarted(Object pool, Object job) {
        boolean counted = job != null && jobStarted(pool, job);
        WorkerCounter c = CURRENT.get();
        if (c != null && c.pool == pool) {
            c.jobCounted = counted;
        }
    }

    /**
     * Hook: Jetty's {@code QueuedThreadPool.runJob} ends, normally or by throwing.
     *
     * @param pool the pool, never null
     */
    public static void jettyJobEnded(Object pool) {
        WorkerCounter c = CURRENT.get();
        if (c != null && c.pool == pool) {
            boolean counted = c.jobCounted;
            c.jobCounted = false;
            jobEnded(pool, counted);
        }
    }

    /**
     * Hook: Helidon's {@code Http1Connection.route} starts: one request on {@code connection}
     * (the pool is the connection's class).
     *
     * @param connection the connection, never null
     */
    public static void request(Object connection) {
        requestStarted(connection.getClass(), connection);
    }

    /**
     * Hook: Helidon's {@code Http1Connection.route} ends, normally or by throwing.
     *
     * @param connection the connection, never null
     */
    public static void requestEnded(Object connection) {
        completed(connection.getClass());
    }

    private static WorkerCounter counter(Object pool, int kind) {
        WorkerCounter c = CURRENT.get();
        return c != null ? c : create(pool, kind, null);
    }

    private static WorkerCounter create(Object pool, int kind, Object source) {
        WorkerCounter c = new WorkerCounter(Thread.currentThread(), pool, kind, source);
        CURRENT.set(c);
        CREATED.add(c);
        return c;
    }

    /** @return the next counter created since the previous call, or null; the agent's sampler only */
    public static WorkerCounter poll() {
        return CREATED.poll();
    }

    /** @return the worker thread */
    public Thread thread() {
        return thread;
    }

    /** @return the pool the thread works for */
    public Object pool() {
        return pool;
    }

    /** @return {@link #REQUESTS}: the connection the thread serves; else null */
    public Object source() {
        return source;
    }

    /** @return {@link #REQUESTS}: {@link System#nanoTime()} when the latest request started, 0 before the first */
    public long startedAt() {
        return (long) STARTED_AT.getAcquire(this);
    }

    /** @return {@link #POOL_COUNTS}, {@link #TASK_COUNTS} or {@link #REQUESTS} */
    public int kind() {
        return kind;
    }

    /** @return tasks this thread has started, never decreasing */
    public long started() {
        return (long) STARTED.getAcquire(this);
    }

    /** @return whether the thread is lent to a job that is not a task (a Jetty reserved thread) */
    public boolean aside() {
        return (boolean) ASIDE.getAcquire(this);
    }

    /** @return tasks this thread has ended, never decreasing, at most {@link #started()} */
    public long completed() {
        return (long) COMPLETED.getAcquire(this);
    }
}
