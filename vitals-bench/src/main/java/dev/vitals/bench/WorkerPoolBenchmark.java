package dev.vitals.bench;

import java.lang.instrument.Instrumentation;
import java.lang.reflect.Method;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import net.bytebuddy.agent.ByteBuddyAgent;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Issue 24's cost of the agent's worker-pool instrumentation: a trivial task (one increment)
 * through a one-thread pool, uninstrumented and instrumented side by side ({@code instrumented}
 * is a parameter, so each runs in its own fork; the instrumented fork installs the agent's
 * transformer with {@code ByteBuddyAgent.install()}, as {@code -javaagent} does). The benchmark
 * thread hands {@value #BATCH} tasks to the pool and waits for the last; the score is time per
 * task. Goal: under 1 % of the uninstrumented task's time, and 0 B/task more with
 * {@code -prof gc}.
 *
 * <pre>{@code
 * java -jar vitals-bench/target/benchmarks.jar WorkerPoolBenchmark -prof gc
 * }</pre>
 */
@BenchmarkMode(org.openjdk.jmh.annotations.Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 2)
@Fork(3)
@State(Scope.Benchmark)
public class WorkerPoolBenchmark {
    static final int BATCH = 1000;

    /** Whether this fork runs with the agent's instrumentation. */
    @Param({"false", "true"})
    public boolean instrumented;

    /** {@code tpe}: a {@code ThreadPoolExecutor} (nothing added per task but a thread-local read in {@code getTask}); {@code fjp}: a {@code ForkJoinPool} (a counter per task). */
    @Param({"tpe", "fjp"})
    public String pool;

    private ExecutorService executor;
    private final AtomicLong done = new AtomicLong();
    private final Runnable task = done::incrementAndGet;
    private long target;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        if (instrumented) {
            Method install = Class.forName("dev.vitals.agent.impl.ExecutorInstrumentation")
                    .getDeclaredMethod("install", Instrumentation.class);
            install.setAccessible(true);
            install.invoke(null, ByteBuddyAgent.install());
        }
        executor = pool.equals("tpe")
                ? new ThreadPoolExecutor(1, 1, 1, TimeUnit.MINUTES, new LinkedBlockingQueue<>())
                : new ForkJoinPool(1);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
        executor.shutdownNow();
        executor.awaitTermination(10, TimeUnit.SECONDS);
    }

    /** {@value #BATCH} trivial tasks through the pool; the score is per task. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long trivialTasks() {
        target += BATCH;
        for (int i = 0; i < BATCH; i++) {
            executor.execute(task);
        }
        while (done.get() < target) {
            Thread.onSpinWait();
        }
        return target;
    }
}
