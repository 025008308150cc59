package dev.vitals.bench;

import dev.vitals.Check;
import dev.vitals.Groups;
import dev.vitals.Health;
import dev.vitals.HealthCheck;
import dev.vitals.HealthRegistry;
import dev.vitals.Mode;
import dev.vitals.Report;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Issue 2's benchmarks: reading a scheduled group report with 10 checks (goal: under 2 µs and
 * under 1 KiB allocated per read; run with {@code -prof gc} for bytes/op), and on-demand
 * evaluation of 10 trivial checks against two references: calling them directly, and handing 10
 * no-op tasks to the same kind of executor and joining them (issue 37's baseline; aim: on-demand
 * evaluation at most 1.5 times that).
 *
 * <pre>{@code
 * java -jar vitals-bench/target/benchmarks.jar RegistryBenchmark -prof gc
 * }</pre>
 */
@BenchmarkMode(org.openjdk.jmh.annotations.Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class RegistryBenchmark {
    private static final int CHECKS = 10;

    private HealthRegistry scheduled;
    private HealthRegistry onDemand;
    private HealthCheck[] direct;
    private ThreadPoolExecutor pool;
    private Runnable[] noOps;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        HealthRegistry.Builder s = HealthRegistry.builder();
        // a 1 ms TTL never hides a run: each evaluation really runs all 10 checks on the executor
        HealthRegistry.Builder o = HealthRegistry.builder().clock(new AlwaysExpiredClock());
        direct = new HealthCheck[CHECKS];
        for (int i = 0; i < CHECKS; i++) {
            HealthCheck c = () -> Health.up();
            direct[i] = c;
            s.register(Check.builder("check-" + i, c).interval(Duration.ofHours(1)).build());
            o.register(Check.builder("check-" + i, c).mode(Mode.ON_DEMAND).ttl(Duration.ofMillis(1)).build());
        }
        // The executor the engine runs user checks on, built the same way (CheckExecutors): a
        // cached pool with a hand-off queue, daemon threads made on demand.
        pool = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 30, TimeUnit.SECONDS, new SynchronousQueue<>(), r -> {
            Thread t = new Thread(r, "bench-pool");
            t.setDaemon(true);
            return t;
        });
        noOps = new Runnable[CHECKS];
        for (int i = 0; i < CHECKS; i++) {
            noOps[i] = () -> { };
        }
        scheduled = s.build();
        scheduled.start();
        onDemand = o.build();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (scheduled.report(Groups.READINESS).status() != dev.vitals.Status.UP) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("scheduled checks did not report UP in 10 s");
            }
            Thread.sleep(10);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        scheduled.close();
        onDemand.close();
        pool.shutdownNow();
    }

    /** A probe read of a scheduled group: what /readyz costs the engine. */
    @Benchmark
    public Report scheduledReportRead() {
        return scheduled.report(Groups.READINESS);
    }

    /** On-demand evaluation of 10 trivial checks, each run on the check executor under its timeout. */
    @Benchmark
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public Report onDemandEvaluation() throws Exception {
        return onDemand.evaluate(Groups.READINESS).get(5, TimeUnit.SECONDS);
    }

    /**
     * The baseline on-demand evaluation is judged against (issue 37: at most 1.5 times this): 10
     * no-op tasks handed to the same kind of executor as the engine's, joined by the caller.
     */
    @Benchmark
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public Object executorBaseline() throws Exception {
        CompletableFuture<?>[] fs = new CompletableFuture<?>[CHECKS];
        for (int i = 0; i < CHECKS; i++) {
            fs[i] = CompletableFuture.runAsync(noOps[i], pool);
        }
        return CompletableFuture.allOf(fs).get(5, TimeUnit.SECONDS);
    }

    /** The floor: calling the 10 checks directly, one after another, on the caller's thread. */
    @Benchmark
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public int directCalls() throws Exception {
        int up = 0;
        for (HealthCheck c : direct) {
            if (c.check().status() == dev.vitals.Status.UP) {
                up++;
            }
        }
        return up;
    }
}
