package dev.vitals.monitor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.vitals.HealthCheck;
import dev.vitals.testing.ManualScheduler;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Every monitor has a bounded cost: probe reads never sample and allocate little; sampling an
 * O(1) source allocates one small snapshot whatever the amount of work it has counted.
 */
class BoundedCostTest {
    private final Fixtures fx = new Fixtures();
    private final ManualScheduler scheduler = new ManualScheduler();

    @AfterEach
    void close() throws Exception {
        fx.close();
    }

    @Test
    void checkReadsNeverSampleTheSource() throws Exception {
        AtomicInteger saturationSamples = new AtomicInteger();
        AtomicInteger progressSamples = new AtomicInteger();
        AtomicInteger heartbeats = new AtomicInteger();
        AtomicInteger memoryReads = new AtomicInteger();
        SaturationMonitor sat = fx.track(SaturationMonitor.builder("s", () -> {
            saturationSamples.incrementAndGet();
            return SaturationSnapshot.of(1, 2, 3);
        }).build());
        ProgressWatchdog wd = fx.track(ProgressWatchdog.builder("p", () -> {
            progressSamples.incrementAndGet();
            return ProgressSnapshot.of(1, 1, 1);
        }).build());
        Executor counting = r -> {
            heartbeats.incrementAndGet();
            r.run();
        };
        LagMonitor lag = fx.track(LagMonitor.forExecutor("l", counting).build());
        MemoryMonitor mem = fx.track(MemoryMonitor.builder().reader(() -> {
            memoryReads.incrementAndGet();
            return MemorySnapshot.of(1, 10);
        }).build());
        Monitor[] all = {sat, wd, lag, mem};
        for (Monitor m : all) {
            m.start(scheduler.clock(), scheduler);
        }
        for (Monitor m : all) {
            HealthCheck c = m.healthCheck();
            for (int i = 0; i < 10_000; i++) {
                c.check();
            }
        }
        lag.healthCheck(Duration.ofSeconds(1)).check();
        assertThat(saturationSamples.get()).isEqualTo(1);
        assertThat(progressSamples.get()).isEqualTo(1);
        assertThat(heartbeats.get()).isEqualTo(1);
        assertThat(memoryReads.get()).isEqualTo(1);

        scheduler.advance(Duration.ofSeconds(10));
        assertThat(saturationSamples.get()).as("one sample per interval, no more").isEqualTo(11);
        assertThat(progressSamples.get()).isEqualTo(11);
        assertThat(heartbeats.get()).isEqualTo(11);
        assertThat(memoryReads.get()).isEqualTo(3);
    }

    @Test
    void checkReadsAndO1SamplesAllocateLittle() throws Exception {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        Method allocated = allocatedBytesMethod(threads);
        assumeTrue(allocated != null, "per-thread allocation counter not available on this JVM");
        long tid = Thread.currentThread().getId();

        ProgressTracker tracker = ProgressTracker.create(4);
        SaturationMonitor sat = fx.track(SaturationMonitor.builder("s", tracker.saturationSource()).build());
        ProgressWatchdog wd = fx.track(ProgressWatchdog.builder("p", tracker).build());
        LagMonitor lag = fx.track(LagMonitor.forExecutor("l", Runnable::run).build());
        DeadlockMonitor dl = fx.track(DeadlockMonitor.builder().build());
        PauseDetector pause = PauseDetector.builder().build(); // figures only: no thread needed here
        Map<String, HealthCheck> reads = new LinkedHashMap<>();
        for (Monitor m : new Monitor[] {sat, wd, lag, dl}) {
            m.start(scheduler.clock(), scheduler);
            reads.put(m.name(), m.healthCheck());
        }
        pause.sample(0);

        for (Map.Entry<String, HealthCheck> e : reads.entrySet()) {
            HealthCheck c = e.getValue();
            for (int i = 0; i < 2_000; i++) {
                c.check(); // warm-up
            }
            long before = (long) allocated.invoke(threads, tid);
            for (int i = 0; i < 1_000; i++) {
                c.check();
            }
            long perRead = ((long) allocated.invoke(threads, tid) - before) / 1_000;
            assertThat(perRead).as("bytes allocated by one read of %s", e.getKey()).isLessThan(4_096);
        }

        // O(1) sampling: one small snapshot per sample, whether 10 or 100 000 tasks were counted.
        Runnable task = tracker.track(() -> { });
        for (int i = 0; i < 10; i++) {
            tracker.taskSubmitted();
            task.run();
        }
        long small = bytesPerSample(allocated, threads, tid, tracker);
        for (int i = 0; i < 100_000; i++) {
            tracker.taskSubmitted();
            task.run();
        }
        long large = bytesPerSample(allocated, threads, tid, tracker);
        assertThat(small).isLessThan(256);
        assertThat(large).isLessThan(256);
    }

    private static long bytesPerSample(Method allocated, ThreadMXBean threads, long tid, ProgressTracker tracker)
            throws Exception {
        for (int i = 0; i < 2_000; i++) {
            tracker.sample();
        }
        long before = (long) allocated.invoke(threads, tid);
        for (int i = 0; i < 1_000; i++) {
            tracker.sample();
        }
        return ((long) allocated.invoke(threads, tid) - before) / 1_000;
    }

    private static Method allocatedBytesMethod(ThreadMXBean threads) {
        try {
            Class<?> ext = Class.forName("com.sun.management.ThreadMXBean");
            if (!ext.isInstance(threads)) {
                return null;
            }
            Method m = ext.getMethod("getThreadAllocatedBytes", long.class);
            m.invoke(threads, Thread.currentThread().getId());
            return m;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }
}
