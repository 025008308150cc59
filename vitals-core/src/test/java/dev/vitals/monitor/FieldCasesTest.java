package dev.vitals.monitor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.vitals.Check;
import dev.vitals.Clock;
import dev.vitals.Groups;
import dev.vitals.Health;
import dev.vitals.HealthRegistry;
import dev.vitals.Report;
import dev.vitals.Status;
import dev.vitals.testing.ManualScheduler;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Field cases C05, C06, C07 and C08 of docs/cases.md, on real pools and sockets. */
class FieldCasesTest {
    private final Fixtures fx = new Fixtures();
    private final ManualScheduler scheduler = new ManualScheduler();

    @AfterEach
    void close() throws Exception {
        fx.close();
    }

    private static Runnable slowRequest(Semaphore work) {
        return () -> {
            try {
                work.tryAcquire(Fixtures.MAX_BLOCK_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
    }

    // case C05: 200 workers all busy with 200 slow requests; liveness must stay 200 throughout,
    // answered without any application worker.
    @Test
    void c05AllTwoHundredWorkersBusyLivenessStaysUpAndSaturationIsVisible() throws Exception {
        ThreadPoolExecutor workers = fx.pool("servlet", 200);
        Semaphore work = new Semaphore(0);
        for (int i = 0; i < 200; i++) {
            workers.execute(slowRequest(work));
        }
        Fixtures.awaitActive(workers, 200);

        ProgressWatchdog progress = ProgressWatchdog.builder("servlet-progress", ProgressSource.of(workers)).build();
        SaturationMonitor saturation = SaturationMonitor.builder("servlet-saturation", SaturationSource.of(workers)).build();
        LivenessSet liveness = fx.track(LivenessSet.of(progress));
        fx.track(saturation);
        HealthRegistry registry = fx.track(liveness.registerAll(HealthRegistry.builder()
                .clock(scheduler.clock()).scheduler(scheduler))
                .register(saturation.check().build())
                .build());
        liveness.start(registry);
        saturation.start(registry);
        registry.start();
        Fixtures.awaitStatus(registry, scheduler, Groups.LIVENESS, Status.UP);

        // Five minutes of manual time: a slow request completes every 10 s and a new one takes its
        // worker, so the pool stays at 200/200 all along.
        for (int step = 0; step < 30; step++) {
            long done = workers.getCompletedTaskCount();
            work.release();
            await().atMost(Duration.ofSeconds(20)).until(() -> workers.getCompletedTaskCount() > done);
            workers.execute(slowRequest(work));
            Fixtures.awaitActive(workers, 200);
            Fixtures.step(registry, scheduler, Groups.LIVENESS, Duration.ofSeconds(10));

            long t0 = System.nanoTime();
            Report live = registry.report(Groups.LIVENESS);
            long readMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            assertThat(live.status()).as("step %d: %s", step, live.checks()).isEqualTo(Status.UP);
            // Loaded-machine margin: a read that waited on the pool would wait for a 10 s request.
            assertThat(readMillis).as("liveness answered from memory, not from the saturated pool").isLessThan(5_000);
        }
        assertThat(saturation.snapshot()).hasValue(SaturationSnapshot.of(200, 200, 0));
        Report ready = Fixtures.awaitStatus(registry, scheduler, Groups.READINESS, Status.DEGRADED);
        assertThat(ready.checks().get("servlet-saturation").details())
                .containsEntry("busy", 200L).containsEntry("capacity", 200L).containsEntry("saturation", 1.0);
    }

    // case C06: the main listener closed while the probe side is alive: liveness must notice it,
    // without depending on any application worker, and a saturated-but-alive listener must not
    // be turned DOWN.
    @Test
    void c06ClosedMainListenerTurnsLivenessDownAfterTheGrace() throws Exception {
        ServerSocket main = new ServerSocket(0, 500, InetAddress.getLoopbackAddress()); // never accept()s: all workers busy
        int port = main.getLocalPort();
        ListenerMonitor listener = fx.track(ListenerMonitor.builder("main-listener", port)
                .interval(Duration.ofMillis(50)).connectTimeout(Duration.ofMillis(50))
                .grace(Duration.ofMillis(500)).build());
        HealthRegistry registry = fx.track(HealthRegistry.builder() // real clock and scheduler: real sockets
                .register(listener.check().interval(Duration.ofMillis(50)).build())
                .build());
        try {
            listener.start(registry);
            registry.start();
            await().atMost(Duration.ofSeconds(20)).until(() -> registry.report(Groups.LIVENESS).status() == Status.UP);
            assertThat(listener.snapshot().orElseThrow().result()).isEqualTo(ListenerSnapshot.Result.ACCEPTED);
        } finally {
            main.close();
        }
        Report down = null;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            down = registry.report(Groups.LIVENESS);
            if (down.status() == Status.DOWN) {
                break;
            }
            Thread.sleep(20);
        }
        assertThat(down.status()).isEqualTo(Status.DOWN);
        Health h = down.checks().get("main-listener");
        assertThat(h.details()).containsEntry("result", "REFUSED");
        assertThat((Long) h.details().get("lostForMs")).isGreaterThanOrEqualTo(500L);
    }

    // case C06, the other half: a listener whose accept backlog is full (saturated, or wedged)
    // makes connects time out; that alone never turns liveness DOWN.
    @Test
    void c06FullAcceptBacklogTimesOutButNeverTurnsLivenessDown() throws Exception {
        try (ServerSocket main = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            InetSocketAddress at = new InetSocketAddress(InetAddress.getLoopbackAddress(), main.getLocalPort());
            List<SocketChannel> fillers = new ArrayList<>();
            fx.track(() -> {
                for (SocketChannel c : fillers) {
                    c.close();
                }
            });
            for (int i = 0; i < 8; i++) { // nobody accepts: the backlog (1, so 2 on Linux) fills up
                SocketChannel c = SocketChannel.open();
                c.configureBlocking(false);
                c.connect(at);
                fillers.add(c);
            }
            ListenerMonitor listener = fx.track(ListenerMonitor.builder("main-listener", main.getLocalPort())
                    .interval(Duration.ofMillis(100)).connectTimeout(Duration.ofMillis(100))
                    .grace(Duration.ofMillis(200)).build());
            HealthRegistry registry = fx.track(HealthRegistry.builder()
                    .register(listener.check().interval(Duration.ofMillis(50)).build()).build());
            listener.start(registry);
            registry.start();

            await().atMost(Duration.ofSeconds(20)).until(() -> listener.snapshot()
                    .map(s -> s.result() == ListenerSnapshot.Result.TIMED_OUT
                            && s.timingOutFor().compareTo(Duration.ofSeconds(1)) > 0).orElse(false));
            // Well past the 200 ms grace of refusals: timeouts are still only DEGRADED.
            for (int i = 0; i < 20; i++) {
                Report live = registry.report(Groups.LIVENESS);
                assertThat(live.status()).as("%s", live.checks()).isNotEqualTo(Status.DOWN);
                Thread.sleep(25);
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> registry.report(Groups.LIVENESS).checks()
                    .get("main-listener").status() == Status.DEGRADED);
            assertThat(registry.report(Groups.LIVENESS).status()).isEqualTo(Status.DEGRADED);
        }
    }

    // case C07: the worker pool is saturated and sheds load (its queue rejects); liveness has no
    // blocking work and needs no worker: each liveness check only reads a snapshot.
    @Test
    void c07SaturatedSheddingPoolLivenessNeedsNoWorkerAndNoBlockingCheck() throws Exception {
        ThreadPoolExecutor workers = fx.pool("shedding", 4, new ArrayBlockingQueue<>(4));
        CountDownLatch slow = fx.latch();
        for (int i = 0; i < 8; i++) {
            workers.execute(Fixtures.blockOn(slow));
        }
        assertThatThrownBy(() -> workers.execute(() -> { })).as("the pool sheds load")
                .isInstanceOf(RejectedExecutionException.class);
        Fixtures.awaitActive(workers, 4);

        AtomicInteger samples = new AtomicInteger();
        ProgressSource counted = () -> {
            samples.incrementAndGet();
            return ProgressSource.of(workers).sample();
        };
        LivenessSet liveness = fx.track(LivenessSet.of(ProgressWatchdog.builder("workers", counted).build()));
        liveness.start(scheduler.clock(), scheduler);
        int sampled = samples.get();

        for (Check c : liveness.checks()) {
            for (int i = 0; i < 1_000; i++) {
                long t0 = System.nanoTime();
                Health h = c.blockingCheck().orElseThrow().check();
                assertThat(h.status()).as(c.name()).isEqualTo(Status.UP);
                // Loaded-machine margin: a check that waited on a worker would wait for a blocked task.
                assertThat(System.nanoTime() - t0).as("a liveness check never waits").isLessThan(TimeUnit.SECONDS.toNanos(5));
            }
        }
        assertThat(samples.get()).as("3000 liveness reads sampled nothing and touched no worker").isEqualTo(sampled);
        assertThat(workers.getQueue().remainingCapacity()).isZero();
    }

    // case C08: the shared connection pool is exhausted by lock waits; the health query stays
    // bounded, and exhaustion shows in readiness as DEGRADED with figures, never in liveness.
    @Test
    void c08PoolExhaustedByLockWaitsShowsInReadinessWithFiguresNeverInLiveness() throws Exception {
        int connections = 5;
        Semaphore pool = new Semaphore(connections);
        ReentrantLock rowLock = new ReentrantLock();
        rowLock.lock(); // another transaction holds the row every writer wants
        ThreadPoolExecutor writers = fx.pool("writers", connections + 3);
        CountDownLatch giveUp = fx.latch();
        try {
            for (int i = 0; i < connections + 3; i++) {
                writers.execute(() -> {
                    try {
                        if (pool.tryAcquire(Fixtures.MAX_BLOCK_SECONDS, TimeUnit.SECONDS)) {
                            try {
                                if (rowLock.tryLock(Fixtures.MAX_BLOCK_SECONDS, TimeUnit.SECONDS)) {
                                    rowLock.unlock();
                                }
                            } finally {
                                pool.release();
                            }
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> pool.availablePermits() == 0 && pool.getQueueLength() == 3);

            SaturationMonitor db = fx.track(SaturationMonitor.builder("db-pool", SaturationSource.of(pool, connections)).build());
            LivenessSet liveness = fx.track(LivenessSet.builder().build());
            HealthRegistry registry = fx.track(liveness.registerAll(HealthRegistry.builder()
                    .clock(scheduler.clock()).scheduler(scheduler))
                    .register(db.check().build()).build());
            liveness.start(registry);
            db.start(registry);
            registry.start();

            Report ready = Fixtures.awaitStatus(registry, scheduler, Groups.READINESS, Status.DEGRADED);
            Health h = ready.checks().get("db-pool");
            assertThat(h.status()).isEqualTo(Status.DEGRADED);
            assertThat(h.details()).containsEntry("busy", 5L).containsEntry("capacity", 5L)
                    .containsEntry("queued", 3L).containsEntry("saturation", 1.0);
            Report live = registry.report(Groups.LIVENESS);
            assertThat(live.status()).isEqualTo(Status.UP);
            assertThat(live.checks()).containsOnlyKeys("deadlock", "availability");
            assertThat(pool.availablePermits()).as("the health query took no connection").isZero();
        } finally {
            rowLock.unlock();
            giveUp.countDown();
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> pool.availablePermits() == connections);
    }
}
