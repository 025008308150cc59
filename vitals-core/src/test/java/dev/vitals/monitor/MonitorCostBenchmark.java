package dev.vitals.monitor;

import dev.vitals.HealthCheck;
import dev.vitals.testing.ManualScheduler;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * Micro-benchmark of the monitors' costs: one sample of each source, one check read, and a
 * deadlock scan with 500 extra live threads. A plain main class (not a test, not run by
 * surefire) until the JMH module exists; figures are means over timed rounds after warm-up.
 *
 * <pre>{@code
 * mvn -B -q -pl vitals-core -am -DskipTests test-compile
 * java -cp vitals-core/target/classes:vitals-core/target/test-classes dev.vitals.monitor.MonitorCostBenchmark
 * }</pre>
 */
public final class MonitorCostBenchmark {
    private static long sink;

    private MonitorCostBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        List<Runnable> cleanup = new ArrayList<>();
        try {
            run(cleanup);
        } finally {
            for (Runnable r : cleanup) {
                r.run();
            }
        }
        System.out.println("(sink " + (sink & 1) + ")");
    }

    private static void run(List<Runnable> cleanup) throws Exception {
        System.out.printf(Locale.ROOT, "JDK %s, %d CPUs, %d live threads at start%n",
                Runtime.version(), Runtime.getRuntime().availableProcessors(), liveThreads());
        System.out.printf(Locale.ROOT, "%-58s %12s %12s%n", "operation", "mean µs", "best round µs");
        CountDownLatch hold = new CountDownLatch(1);
        cleanup.add(hold::countDown);

        // A 40-worker pool saturated by blocked tasks with 100 queued, as in the ANCHORS incident.
        AtomicInteger n = new AtomicInteger();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(40, 40, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, "bench-worker-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        cleanup.add(pool::shutdownNow);
        for (int i = 0; i < 140; i++) {
            pool.execute(Fixtures.blockOn(hold));
        }
        while (pool.getActiveCount() < 40) {
            Thread.sleep(10);
        }
        SaturationSource tpeSat = SaturationSource.of(pool);
        ProgressSource tpeProgress = ProgressSource.of(pool);
        measure("ThreadPoolExecutor saturation sample (40 busy, 100 queued)", () -> tpeSat.sample().busy(), 200_000);
        measure("ThreadPoolExecutor progress sample (40 busy, 100 queued)", () -> tpeProgress.sample().completed(), 200_000);

        ForkJoinPool fj = new ForkJoinPool(8);
        cleanup.add(fj::shutdownNow);
        for (int i = 0; i < 8; i++) {
            fj.execute(Fixtures.blockOn(hold));
        }
        SaturationSource fjSat = SaturationSource.of(fj);
        measure("ForkJoinPool saturation sample (parallelism 8, all busy)", () -> fjSat.sample().busy(), 200_000);

        Semaphore limiter = new Semaphore(10);
        limiter.acquire(10);
        ThreadPoolExecutor waiters = new ThreadPoolExecutor(20, 20, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, "bench-waiter");
            t.setDaemon(true);
            return t;
        });
        cleanup.add(waiters::shutdownNow);
        for (int i = 0; i < 20; i++) {
            waiters.execute(() -> {
                try {
                    limiter.tryAcquire(10, TimeUnit.MINUTES);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        while (limiter.getQueueLength() < 20) {
            Thread.sleep(10);
        }
        SaturationSource semSat = SaturationSource.of(limiter, 10);
        measure("Semaphore saturation sample (10 held, 20 waiting)", () -> semSat.sample().queued(), 200_000);

        ProgressTracker tracker = ProgressTracker.create(40);
        Runnable tracked = tracker.track(() -> { });
        for (int i = 0; i < 1_000_000; i++) {
            tracker.taskSubmitted();
            tracked.run();
        }
        SaturationSource trackerSat = tracker.saturationSource();
        measure("ProgressTracker progress sample (O(1), LongAdder)", () -> tracker.sample().completed(), 1_000_000);
        measure("ProgressTracker saturation sample", () -> trackerSat.sample().busy(), 1_000_000);
        measure("ProgressTracker per-task overhead (submit+start+complete)", () -> {
            tracker.taskSubmitted();
            tracked.run();
            return 1;
        }, 1_000_000);
        LongSupplier busy = () -> 37;
        SaturationSource functional = SaturationSource.of(busy, () -> 40, () -> 3);
        measure("functional saturation source sample", () -> functional.sample().busy(), 1_000_000);

        ManualScheduler scheduler = new ManualScheduler();
        LagMonitor lag = LagMonitor.forExecutor("lag", Runnable::run).build();
        lag.start(scheduler.clock(), scheduler);
        long[] t = {0};
        measure("LagMonitor sample (record + post + p50/p90/p99 of window)", () -> {
            t[0] += 1_000_000L;
            lag.sample(t[0]);
            return 1;
        }, 100_000);

        PauseDetector pause = PauseDetector.builder().build();
        long[] p = {0};
        measure("PauseDetector record (measuring thread, per wake-up)", () -> {
            p[0] += 10_000_000L;
            pause.record(p[0], 50_000L + (p[0] % 7_000_000L), 0);
            return 1;
        }, 1_000_000);
        measure("PauseDetector sample (publish snapshot)", () -> {
            pause.sample(p[0]);
            return 1;
        }, 100_000);

        MemoryMonitor mem = MemoryMonitor.builder().build();
        mem.start(scheduler.clock(), scheduler);
        measure("MemoryMonitor sample (heap pools' collection usage)", () -> {
            mem.sample(0);
            return 1;
        }, 100_000);

        DeadlockMonitor deadlock = DeadlockMonitor.builder().build();
        deadlock.start(scheduler.clock(), scheduler);
        measure("DeadlockMonitor scan, " + liveThreads() + " live threads", () -> {
            deadlock.sample(0);
            return 1;
        }, 2_000);
        List<Thread> parked = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            Thread th = new Thread(Fixtures.blockOn(hold), "bench-parked-" + i);
            th.setDaemon(true);
            th.start();
            parked.add(th);
        }
        measure("DeadlockMonitor scan, " + liveThreads() + " live threads (500 added)", () -> {
            deadlock.sample(0);
            return 1;
        }, 2_000);

        try (ServerSocket server = new ServerSocket(0, 500, InetAddress.getLoopbackAddress())) {
            Thread acceptor = new Thread(() -> {
                while (!server.isClosed()) {
                    try (Socket s = server.accept()) {
                        sink += s.getPort();
                    } catch (java.io.IOException e) {
                        return;
                    }
                }
            }, "bench-acceptor");
            acceptor.setDaemon(true);
            acceptor.start();
            ListenerMonitor listener = ListenerMonitor.builder("listener", server.getLocalPort())
                    .interval(Duration.ofMillis(10)).connectTimeout(Duration.ofMillis(10)).build();
            listener.start(scheduler.clock(), scheduler);
            measure("ListenerMonitor attempt (loopback connect + close, CPU)", () -> {
                ListenerSnapshot before = listener.snapshot().orElse(null);
                scheduler.advance(Duration.ofMillis(10));
                return listener.snapshot().orElse(before) == before ? 0 : 1;
            }, 5_000);
            listener.close();
        }

        SaturationMonitor satMon = SaturationMonitor.builder("s", tpeSat).build();
        ProgressWatchdog wd = ProgressWatchdog.builder("w", tpeProgress).build();
        satMon.start(scheduler.clock(), scheduler);
        wd.start(scheduler.clock(), scheduler);
        for (Monitor m : new Monitor[] {satMon, wd, lag, deadlock, mem}) {
            HealthCheck c = m.healthCheck();
            measure("check read: " + m.getClass().getSimpleName(), () -> c.check().details().size(), 500_000);
        }
        hold.countDown();
        for (Thread th : parked) {
            th.join(10_000);
        }
    }

    private static int liveThreads() {
        return java.lang.management.ManagementFactory.getThreadMXBean().getThreadCount();
    }

    @FunctionalInterface
    interface Op {
        long run() throws Exception;
    }

    private static void measure(String name, Op op, int iterations) throws Exception {
        for (int w = 0; w < 3; w++) {
            for (int i = 0; i < iterations; i++) {
                sink += op.run();
            }
        }
        int rounds = 5;
        double[] means = new double[rounds];
        for (int r = 0; r < rounds; r++) {
            long t0 = System.nanoTime();
            for (int i = 0; i < iterations; i++) {
                sink += op.run();
            }
            means[r] = (System.nanoTime() - t0) / 1_000.0 / iterations;
        }
        double mean = Arrays.stream(means).average().orElse(0);
        double best = Arrays.stream(means).min().orElse(0);
        System.out.printf(Locale.ROOT, "%-58s %12.3f %12.3f%n", name, mean, best);
    }
}
