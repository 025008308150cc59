package dev.vitals.agent.impl;

import dev.vitals.agent.boot.WorkerCounter;
import dev.vitals.internal.Logs;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.lang.instrument.UnmodifiableClassException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;

/**
 * Counts the tasks of the thread pools that serve requests, in the pools themselves (DESIGN.md
 * section 7d, "Worker progress"): a {@link ClassFileTransformer} adds one static call to
 * {@link WorkerCounter} at the entry of a few methods (and, where a task ends, before each return
 * and in a catch-all handler that rethrows), by retransformation for the JDK's pools, loaded before
 * {@code premain}, and as the other pools load. No field, method or local variable is added.
 * {@link #install} first defines {@link WorkerCounter} in the bootstrap class loader, so every
 * instrumented pool sees it; the rest of the agent stays in its own loader.
 *
 * <p><b>Cost</b> (issue 37): the transformer's first statement is a lookup of the class's internal
 * name in a hash map of the nine targets, so the JVM's other classes cost a hash lookup each and
 * are never parsed; the bytecode library (ASM's core, relocated: {@link PoolRewriter}) is loaded
 * only when a target's bytes arrive, and keeps nothing after it (no type pool, no cache). Byte
 * Buddy, used before, loaded about 1,200 classes for the same nine methods.
 *
 * <p>Instrumented, matched by exact class name only:
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
    private static final System.Logger LOG = Logs.get("dev.vitals.agent");
    static final String BOOT_CLASS = "dev.vitals.agent.boot.WorkerCounter";
    /** Helidon SE 4's HTTP/1 connection: {@code route} serves one request on the connection's virtual thread. */
    static final String HELIDON_HTTP1 = "io.helidon.webserver.http1.Http1Connection";

    /** What an added call passes to its {@link WorkerCounter} hook. */
    enum Arg {
        /** nothing: {@code ()V} */
        NONE("()V"),
        /** the receiver: {@code (Ljava/lang/Object;)V} */
        THIS("(Ljava/lang/Object;)V"),
        /** the receiver's outer instance ({@code this$0}): {@code (Ljava/lang/Object;)V} */
        OUTER("(Ljava/lang/Object;)V"),
        /** the receiver and the method's first argument: {@code (Ljava/lang/Object;Ljava/lang/Object;)V} */
        THIS_AND_FIRST("(Ljava/lang/Object;Ljava/lang/Object;)V");

        final String descriptor;

        Arg(String descriptor) {
            this.descriptor = descriptor;
        }
    }

    /**
     * One instrumented class: the methods (by name; every non-abstract, non-static one of that
     * name), the hook called at entry and, when a task ends with the method, the hook called at
     * each return and when it throws (null: none). Immutable.
     */
    static final class Target {
        final Set<String> methods;
        final String enter;
        final Arg enterArg;
        final String exit;
        final Arg exitArg;

        Target(Set<String> methods, String enter, Arg enterArg, String exit, Arg exitArg) {
            this.methods = methods;
            this.enter = enter;
            this.enterArg = enterArg;
            this.exit = exit;
            this.exitArg = exitArg;
        }
    }

    /** Internal class name → its target. Read by the transformer on every class the JVM loads. */
    private static final Map<String, Target> TARGETS = targets();

    /** Classes transformed so far (for tests), dotted names. */
    private static final Set<String> TRANSFORMED = ConcurrentHashMap.newKeySet();
    private static volatile boolean failureLogged;

    private ExecutorInstrumentation() {
    }

    private static Map<String, Target> targets() {
        Map<String, Target> t = new HashMap<>(32);
        Target tpe = new Target(Set.of("runWorker", "getTask"), "poolWorker", Arg.THIS, null, null);
        t.put("java/util/concurrent/ThreadPoolExecutor", tpe);
        t.put("org/apache/tomcat/util/threads/ThreadPoolExecutor", tpe);
        t.put("java/util/concurrent/ForkJoinTask",
                new Target(Set.of("doExec"), "forkJoinTaskStarted", Arg.NONE, "forkJoinTaskEnded", Arg.NONE));
        t.put("java/util/concurrent/ForkJoinWorkerThread", new Target(Set.of("run"), "forkJoinWorker", Arg.THIS, null, null));
        t.put("org/jboss/threads/EnhancedQueueExecutor$Task", new Target(Set.of("run"), "started", Arg.OUTER, "completed", Arg.OUTER));
        Target innerWorker = new Target(Set.of("run"), "taskWorker", Arg.OUTER, null, null);
        t.put("org/jboss/threads/EnhancedQueueExecutor$ThreadBody", innerWorker);
        t.put("org/eclipse/jetty/util/thread/QueuedThreadPool$Runner", innerWorker);
        t.put("org/eclipse/jetty/util/thread/QueuedThreadPool",
                new Target(Set.of("runJob"), "jettyJobStarted", Arg.THIS_AND_FIRST, "jettyJobEnded", Arg.THIS));
        t.put(HELIDON_HTTP1.replace('.', '/'), new Target(Set.of("route"), "request", Arg.THIS, "requestEnded", Arg.THIS));
        return t;
    }

    /**
     * Puts {@link WorkerCounter} in the bootstrap class loader, adds the transformer and
     * retransforms the targets loaded already. Call before any use of {@link WorkerCounter}.
     *
     * @param inst the JVM's instrumentation; retransformation must be supported
     * @return the transformer (tests may remove it)
     * @throws IllegalStateException if the JVM cannot retransform or the counter cannot be put in
     *     the bootstrap class loader
     */
    static ClassFileTransformer install(Instrumentation inst) {
        if (!inst.isRetransformClassesSupported()) {
            throw new IllegalStateException("this JVM cannot retransform classes");
        }
        injectBootClass(inst);
        Module counter = WorkerCounter.class.getModule();
        Module base = Object.class.getModule();
        if (!base.canRead(counter)) {
            inst.redefineModule(base, Set.of(counter), Map.of(), Map.of(), Set.of(), Map.of());
        }
        ClassFileTransformer t = new Transformer(inst, counter);
        inst.addTransformer(t, true);
        List<Class<?>> loaded = new ArrayList<>();
        for (Class<?> c : inst.getAllLoadedClasses()) {
            String name = c.getName();
            if (name.indexOf('/') < 0 && TARGETS.containsKey(name.replace('.', '/')) && inst.isModifiableClass(c)) {
                loaded.add(c);
            }
        }
        if (!loaded.isEmpty()) {
            try {
                inst.retransformClasses(loaded.toArray(new Class<?>[0]));
            } catch (UnmodifiableClassException | RuntimeException | LinkageError e) {
                LOG.log(System.Logger.Level.DEBUG, "cannot retransform " + loaded, e);
            }
        }
        return t;
    }

    /** @return names of the classes instrumented so far */
    static Set<String> transformed() {
        return Set.copyOf(TRANSFORMED);
    }

    /**
     * Instruments the targets and nothing else: the first statement is the lookup of the class's
     * internal name, so every other class the JVM loads costs one hash lookup and is not parsed.
     * A target that cannot be rewritten stays as it was (its pool is read from stacks), with one
     * debug line.
     */
    private static final class Transformer implements ClassFileTransformer {
        private final Instrumentation inst;
        private final Module counter;

        Transformer(Instrumentation inst, Module counter) {
            this.inst = inst;
            this.counter = counter;
        }

        @Override
        public byte[] transform(Module module, ClassLoader loader, String className, Class<?> redefined,
                                ProtectionDomain domain, byte[] bytes) {
            Target target = className == null ? null : TARGETS.get(className);
            if (target == null) {
                return null;
            }
            try {
                byte[] out = PoolRewriter.rewrite(bytes, target);
                if (out == null) {
                    return null;
                }
                if (module != null && module.isNamed() && !module.canRead(counter)) {
                    inst.redefineModule(module, Set.of(counter), Map.of(), Map.of(), Set.of(), Map.of());
                }
                TRANSFORMED.add(className.replace('/', '.'));
                return out;
            } catch (RuntimeException | LinkageError e) {
                if (!failureLogged) {
                    failureLogged = true;
                    LOG.log(System.Logger.Level.DEBUG, "cannot instrument " + className, e);
                }
                return null;
            }
        }
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

}
