package dev.vitals.monitor;

import static org.awaitility.Awaitility.await;

import dev.vitals.Availability;
import dev.vitals.Health;
import dev.vitals.HealthRegistry;
import dev.vitals.Report;
import dev.vitals.Status;
import dev.vitals.testing.ManualScheduler;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** Real pools, bounded blocking tasks and clean-up for the monitor tests. */
final class Fixtures implements AutoCloseable {
    /** Longest any test task may block: every wait in these tests is bounded. */
    static final long MAX_BLOCK_SECONDS = 60;

    private final Deque<AutoCloseable> closeables = new ArrayDeque<>();
    private final Deque<CountDownLatch> latches = new ArrayDeque<>();

    /** A fixed pool of named daemon threads, shut down (and its latches opened) on close. */
    ThreadPoolExecutor pool(String name, int threads, BlockingQueue<Runnable> queue) {
        AtomicInteger n = new AtomicInteger();
        ThreadPoolExecutor p = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS, queue, r -> {
            Thread t = new Thread(r, "test-" + name + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        closeables.push(() -> {
            p.shutdownNow();
            p.awaitTermination(10, TimeUnit.SECONDS);
        });
        return p;
    }

    ThreadPoolExecutor pool(String name, int threads) {
        return pool(name, threads, new LinkedBlockingQueue<>());
    }

    /** A latch opened at the latest when the fixture closes. */
    CountDownLatch latch() {
        CountDownLatch l = new CountDownLatch(1);
        latches.push(l);
        return l;
    }

    <T extends AutoCloseable> T track(T c) {
        closeables.push(c);
        return c;
    }

    /** A task that blocks until {@code gate} opens (at most {@link #MAX_BLOCK_SECONDS}). */
    static Runnable blockOn(CountDownLatch gate) {
        return () -> {
            try {
                gate.await(MAX_BLOCK_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
    }

    static void awaitActive(ThreadPoolExecutor pool, int active) {
        await().atMost(Duration.ofSeconds(20)).until(() -> pool.getActiveCount() == active);
    }

    /** Waits until every task submitted to a single-thread executor so far has run. */
    static void drain(ExecutorService single) throws Exception {
        single.submit(() -> { }).get(20, TimeUnit.SECONDS);
    }

    /**
     * Advances the manual time one second (the shortest check interval of a monitor) at a time,
     * and after each second waits until every check of the group has the result of its latest
     * tick: the
     * registry runs checks on real threads, and jumping the manual clock past a check that has
     * not finished yet would time it out for nothing.
     */
    static Report step(HealthRegistry registry, ManualScheduler scheduler, String group, Duration by) {
        long seconds = by.toSeconds();
        Report last = awaitFresh(registry, scheduler, group);
        for (long i = 0; i < seconds; i++) {
            scheduler.advance(Duration.ofSeconds(1));
            last = awaitFresh(registry, scheduler, group);
        }
        return last;
    }

    private static Report awaitFresh(HealthRegistry registry, ManualScheduler scheduler, String group) {
        long now = scheduler.clock().wallTime();
        Report[] last = new Report[1];
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(2)).until(() -> {
            last[0] = registry.report(group);
            for (Map.Entry<String, Health> e : last[0].checks().entrySet()) {
                if (e.getKey().equals(Availability.CHECK_NAME)) {
                    continue;
                }
                // Settled: the result of the latest tick at or before now is in (ticks every interval).
                long interval = registry.check(e.getKey()).orElseThrow().interval().toMillis();
                if (now - e.getValue().observedAt().toEpochMilli() >= interval) {
                    return false;
                }
            }
            return true;
        });
        return last[0];
    }

    /** Steps (see {@link #step}) until the group reports {@code status}, for at most 5 minutes of manual time. */
    static Report awaitStatus(HealthRegistry registry, ManualScheduler scheduler, String group, Status status) {
        Report r = awaitFresh(registry, scheduler, group);
        for (int i = 0; i < 300 && r.status() != status; i++) {
            r = step(registry, scheduler, group, Duration.ofSeconds(1));
        }
        if (r.status() != status) {
            throw new AssertionError("group " + group + " never became " + status + ": " + r.checks());
        }
        return r;
    }

    @Override
    public void close() throws Exception {
        for (CountDownLatch l : latches) {
            l.countDown();
        }
        while (!closeables.isEmpty()) {
            closeables.pop().close();
        }
    }
}
