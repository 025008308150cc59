package dev.vitals.agent.impl;

import dev.vitals.agent.boot.WorkerCounter;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.instrument.Instrumentation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.agent.builder.ResettableClassFileTransformer;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.dynamic.scaffold.TypeValidation;
import net.bytebuddy.matcher.ElementMatchers;
import net.bytebuddy.utility.JavaModule;

/**
 * Counts the tasks of the thread pools that serve requests, in the pools themselves (DESIGN.md
 * section 7d, "Worker progress"), with Byte Buddy advice added by retransformation (no new field
 * or method: JDK classes are loaded before {@code premain}). The advice calls {@link WorkerCounter},
 * which {@link #install} first defines in the bootstrap class loader, so every instrumented pool
 * sees it; the rest of the agent stays in its own loader.
 *
 * <p>Instrumented, matched by exact class name only (any other class is ignored before it is
 * parsed):
 * <ul>
 *   <li>{@code java.util.concurrent.ThreadPoolExecutor.runWorker} and {@code getTask}, and the
 *       same in Tomcat's copy {@code org.apache.tomcat.util.threads.ThreadPoolExecutor}: tie the
 *       worker thread to its pool when it starts, or at its next task if it started before the
 *       agent ({@code getTask}: a thread-local read per task taken). Tasks are counted by the pool
 *       itself ({@code getCompletedTaskCount}, {@code getActiveCount}).
 *       XNIO's (Undertow's) worker is one of these or an {@code EnhancedQueueExecutor}.</li>
 *   <li>{@code java.util.concurrent.ForkJoinTask.doExec} on a {@code ForkJoinWorkerThread}, and
 *       {@code ForkJoinWorkerThread.run}.</li>
 *   <li>JBoss Threads' {@code EnhancedQueueExecutor$Task.run} and {@code $ThreadBody.run}
 *       (Quarkus, XNIO): the pool's own completed count is off by default.</li>
 *   <li>Jetty's {@code QueuedThreadPool.runJob} and {@code QueuedThreadPool$Runner.run}; a
 *       reserved thread ({@code ReservedThreadExecutor$ReservedThread}), a selector or an acceptor
 *       is not a task (its wake-ups complete nothing): its thread is set aside, neither busy nor
 *       free.</li>
 *   <li>Helidon SE 4's {@code io.helidon.webserver.http1.Http1Connection.route}: one HTTP/1
 *       request, on the virtual thread Helidon starts per connection
 *       ({@code io.helidon.webserver.ThreadPerTaskExecutor}). The request is the unit of work, not
 *       the thread: a kept-alive connection's thread waits in a read between requests, and
 *       counting threads would read every idle connection as work in flight. Absent on JDK 17
 *       (Helidon 4 needs 21): the name never matches.</li>
 * </ul>
 * Not instrumented, so read from stacks by {@link WorkerPools}: Netty and Vert.x event loops
 * (their loop serves I/O and tasks in one method that never returns), other virtual-thread-per-task
 * executors (a task there may be a connection, a request or a background loop: not liveness by
 * itself), Helidon's HTTP/2 streams, and pools named with the {@code workers} option that are none
 * of the above.
 */
final class ExecutorInstrumentation {
    private static final System.Logger LOG = System.getLogger("dev.vitals.agent");
    static final String BOOT_CLASS = "dev.vitals.agent.boot.WorkerCounter";
    /** Helidon SE 4's HTTP/1 connection: {@code route} serves one request on the connection's virtual thread. */
    static final String HELIDON_HTTP1 = "io.helidon.webserver.http1.Http1Connection";

    /** Class name → the methods to advise ({@code |}-separated) and their advice. */
    private static final Map<String, Object[]> TARGETS = Map.of(
            "java.util.concurrent.ThreadPoolExecutor", new Object[] {"runWorker|getTask", PoolWorkerAdvice.class},
            "org.apache.tomcat.util.threads.ThreadPoolExecutor", new Object[] {"runWorker|getTask", PoolWorkerAdvice.class},
            "java.util.concurrent.ForkJoinTask", new Object[] {"doExec", ForkJoinTaskAdvice.class},
            "java.util.concurrent.ForkJoinWorkerThread", new Object[] {"run", ForkJoinWorkerAdvice.class},
            "org.jboss.threads.EnhancedQueueExecutor$Task", new Object[] {"run", InnerTaskAdvice.class},
            "org.jboss.threads.EnhancedQueueExecutor$ThreadBody", new Object[] {"run", InnerWorkerAdvice.class},
            "org.eclipse.jetty.util.thread.QueuedThreadPool", new Object[] {"runJob", JettyJobAdvice.class},
            "org.eclipse.jetty.util.thread.QueuedThreadPool$Runner", new Object[] {"run", InnerWorkerAdvice.class},
            HELIDON_HTTP1, new Object[] {"route", RequestAdvice.class});

    /** Classes transformed so far (for /livez details and tests). */
    private static final Set<String> TRANSFORMED = ConcurrentHashMap.newKeySet();

    private ExecutorInstrumentation() {
    }

    /**
     * Puts {@link WorkerCounter} on the bootstrap class path and instruments the pools, those
     * loaded already and those loaded later. Call before any use of {@link WorkerCounter}.
     *
     * @param inst the JVM's instrumentation; retransformation must be supported
     * @return the transformer (tests remove it with {@code reset})
     * @throws IllegalStateException if the JVM cannot retransform or the counter cannot be put on
     *     the bootstrap class path
     */
    static ResettableClassFileTransformer install(Instrumentation inst) {
        if (!inst.isRetransformClassesSupported()) {
            throw new IllegalStateException("this JVM cannot retransform classes");
        }
        injectBootClass(inst);
        return new AgentBuilder.Default(new ByteBuddy().with(TypeValidation.DISABLED))
                .disableClassFormatChanges()
                .with(AgentBuilder.RedefinitionStrategy.RETRANSFORMATION)
                .with(AgentBuilder.InitializationStrategy.NoOp.INSTANCE)
                .with(AgentBuilder.PoolStrategy.Default.FAST)
                .with(new Listener())
                .ignore(ElementMatchers.not(ElementMatchers.namedOneOf(TARGETS.keySet().toArray(new String[0]))))
                .assureReadEdgeTo(inst, WorkerCounter.class)
                .type(ElementMatchers.namedOneOf(TARGETS.keySet().toArray(new String[0])))
                .transform(ExecutorInstrumentation::advise)
                .installOn(inst);
    }

    private static DynamicType.Builder<?> advise(DynamicType.Builder<?> builder, TypeDescription type, ClassLoader loader,
                                                 JavaModule module, java.security.ProtectionDomain domain) {
        Object[] target = TARGETS.get(type.getName());
        return builder.visit(Advice.to((Class<?>) target[1]).on(ElementMatchers.namedOneOf(((String) target[0]).split("\\|"))
                .and(ElementMatchers.not(ElementMatchers.isAbstract()))));
    }

    /** @return names of the classes instrumented so far */
    static Set<String> transformed() {
        return Set.copyOf(TRANSFORMED);
    }

    /**
     * Defines {@link WorkerCounter} in the bootstrap class loader, unless it has it already (a
     * second install). The class's bytes come from the agent's own loader. The JDK's internal
     * {@code Unsafe.defineClass}, opened through {@code inst}, comes first: it
     * leaves the JVM's class-data sharing alone, while appending to the bootstrap class path (the
     * fallback) makes the JVM print a warning and share the boot loader's classes only.
     */
    private static void injectBootClass(Instrumentation inst) {
        if (bootHasCounter()) {
            return;
        }
        String entry = BOOT_CLASS.replace('.', '/') + ".class";
        byte[] bytes;
        try (InputStream in = ExecutorInstrumentation.class.getClassLoader().getResourceAsStream(entry)) {
            if (in == null) {
                throw new IllegalStateException("the agent jar has no " + entry);
            }
            bytes = in.readAllBytes();
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + entry + ": " + e.getMessage(), e);
        }
        try {
            defineInBootLoader(inst, bytes);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            LOG.log(System.Logger.Level.DEBUG, "cannot define " + BOOT_CLASS + " directly; appending it to the bootstrap class path", e);
        }
        if (!bootHasCounter()) {
            appendToBootClassPath(inst, entry, bytes);
        }
        if (WorkerCounter.class.getClassLoader() != null) {
            // Loaded by another loader before the injection: the pools would count on a class the
            // sampler never reads.
            throw new IllegalStateException(BOOT_CLASS + " was loaded before it was put in the bootstrap class loader");
        }
    }

    /**
     * {@code jdk.internal.misc.Unsafe.defineClass} with a null loader, its package exported to the
     * agent's module through {@code inst} (what Byte Buddy's {@code ClassInjector.UsingUnsafe}
     * does, without loading Byte Buddy's class generator: several hundred classes at start-up).
     */
    private static void defineInBootLoader(Instrumentation inst, byte[] bytes) throws ReflectiveOperationException {
        Module base = Object.class.getModule();
        Module agent = ExecutorInstrumentation.class.getModule();
        inst.redefineModule(base, Set.of(), Map.of("jdk.internal.misc", Set.of(agent)), Map.of(), Set.of(), Map.of());
        Class<?> unsafeClass = Class.forName("jdk.internal.misc.Unsafe");
        Object unsafe = unsafeClass.getMethod("getUnsafe").invoke(null);
        unsafeClass.getMethod("defineClass", String.class, byte[].class, int.class, int.class, ClassLoader.class,
                java.security.ProtectionDomain.class).invoke(unsafe, BOOT_CLASS, bytes, 0, bytes.length, null, null);
    }

    private static void appendToBootClassPath(Instrumentation inst, String entry, byte[] bytes) {
        Path jar = null;
        try {
            jar = Files.createTempFile("vitals-agent-boot-", ".jar");
            try (OutputStream out = Files.newOutputStream(jar); JarOutputStream j = new JarOutputStream(out)) {
                j.putNextEntry(new JarEntry(entry));
                j.write(bytes);
                j.closeEntry();
            }
            inst.appendToBootstrapClassLoaderSearch(new JarFile(jar.toFile()));
            if (!bootHasCounter()) {
                throw new IllegalStateException("the bootstrap class loader does not see " + BOOT_CLASS);
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot write the bootstrap jar: " + e.getMessage(), e);
        } finally {
            if (jar != null) {
                try {
                    Files.deleteIfExists(jar); // the JVM holds the jar open; nothing is left in /tmp
                } catch (IOException e) {
                    jar.toFile().deleteOnExit();
                }
            }
        }
    }

    private static boolean bootHasCounter() {
        try {
            return Class.forName(BOOT_CLASS, false, null) != null;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    /** Records transformed classes; logs failures at debug level (the pool is then read from stacks). */
    private static final class Listener extends AgentBuilder.Listener.Adapter {
        @Override
        public void onTransformation(TypeDescription type, ClassLoader loader, JavaModule module, boolean loaded,
                                     DynamicType dynamicType) {
            TRANSFORMED.add(type.getName());
        }

        @Override
        public void onError(String name, ClassLoader loader, JavaModule module, boolean loaded, Throwable error) {
            LOG.log(System.Logger.Level.DEBUG, "cannot instrument " + name, error);
        }
    }

    /** {@code ThreadPoolExecutor.runWorker/getTask}: the worker thread is the pool's. The pool counts its own tasks. */
    static final class PoolWorkerAdvice {
        @Advice.OnMethodEnter
        static void enter(@Advice.This Object pool) {
            WorkerCounter.worker(pool, WorkerCounter.POOL_COUNTS);
        }
    }

    /** {@code ForkJoinWorkerThread.run}: the worker thread starts. */
    static final class ForkJoinWorkerAdvice {
        @Advice.OnMethodEnter
        static void enter(@Advice.This Object thread) {
            WorkerCounter.worker(((ForkJoinWorkerThread) thread).getPool(), WorkerCounter.TASK_COUNTS);
        }
    }

    /** {@code ForkJoinTask.doExec}: a task runs, counted when the thread is a pool's worker. */
    static final class ForkJoinTaskAdvice {
        @Advice.OnMethodEnter
        static Object enter() {
            Thread t = Thread.currentThread();
            if (t instanceof ForkJoinWorkerThread) {
                Object pool = ((ForkJoinWorkerThread) t).getPool();
                WorkerCounter.started(pool);
                return pool;
            }
            return null;
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class)
        static void exit(@Advice.Enter Object pool) {
            if (pool != null) {
                WorkerCounter.completed(pool);
            }
        }
    }

    /** An inner class's {@code run} that is a worker thread's body; the pool is the outer instance. */
    static final class InnerWorkerAdvice {
        @Advice.OnMethodEnter
        static void enter(@Advice.FieldValue("this$0") Object pool) {
            WorkerCounter.worker(pool, WorkerCounter.TASK_COUNTS);
        }
    }

    /** An inner class's {@code run} that is one task; the pool is the outer instance. */
    static final class InnerTaskAdvice {
        @Advice.OnMethodEnter
        static void enter(@Advice.FieldValue("this$0") Object pool) {
            WorkerCounter.started(pool);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class)
        static void exit(@Advice.FieldValue("this$0") Object pool) {
            WorkerCounter.completed(pool);
        }
    }

    /**
     * Helidon's {@code Http1Connection.route(...)}: one request; the pool is the connection's class
     * (one per JVM), the connection tells the agent's own polls apart ({@link WorkerPools}).
     */
    static final class RequestAdvice {
        @Advice.OnMethodEnter
        static void enter(@Advice.This Object connection) {
            WorkerCounter.requestStarted(connection.getClass(), connection);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class)
        static void exit(@Advice.This Object connection) {
            WorkerCounter.completed(connection.getClass());
        }
    }

    /**
     * Jetty's {@code QueuedThreadPool.runJob(Runnable)}: one task, unless the job is a reserved
     * thread, a selector or an acceptor ({@link WorkerCounter#notATask}).
     */
    static final class JettyJobAdvice {
        @Advice.OnMethodEnter
        static boolean enter(@Advice.This Object pool, @Advice.Argument(0) Object job) {
            return job != null && WorkerCounter.jobStarted(pool, job);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class)
        static void exit(@Advice.This Object pool, @Advice.Enter boolean counted) {
            WorkerCounter.jobEnded(pool, counted);
        }
    }
}
