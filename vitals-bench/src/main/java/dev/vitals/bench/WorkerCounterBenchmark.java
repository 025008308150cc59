package dev.vitals.bench;

import dev.vitals.agent.boot.WorkerCounter;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Issue 24: what the agent's instrumentation adds to one task of a {@code ForkJoinPool}, JBoss
 * Threads' or Jetty's pool, measured alone (the pool benchmark, {@link WorkerPoolBenchmark}, is
 * dominated by the hand-off): {@code WorkerCounter.started} and {@code completed} on the worker's
 * counter, and Jetty's job variant. Run with {@code -prof gc}: 0 B/op.
 *
 * <pre>{@code
 * java -jar vitals-bench/target/benchmarks.jar WorkerCounterBenchmark -prof gc
 * }</pre>
 */
@BenchmarkMode(org.openjdk.jmh.annotations.Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(2)
@State(Scope.Thread)
public class WorkerCounterBenchmark {
    private final Object pool = new Object();
    private final Runnable job = () -> { };

    /** One task's start and end: a thread-local read and a release store each. */
    @Benchmark
    public void startedAndCompleted() {
        WorkerCounter.started(pool);
        WorkerCounter.completed(pool);
    }

    /** One Jetty job's start and end (the job's class checked once per class and thread). */
    @Benchmark
    public boolean jettyJob() {
        boolean counted = WorkerCounter.jobStarted(pool, job);
        WorkerCounter.jobEnded(pool, counted);
        return counted;
    }
}
