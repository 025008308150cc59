package dev.vitals;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.vitals.monitor.LagMonitor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 30: no user code can stop the engine. A listener that blocks when told of a timeout
 * runs on its own thread: scheduled checks keep running, liveness stays fresh and UP. A check
 * that holds the monitor of the object users are handed ({@code synchronized (availability)})
 * delays neither startup completion nor a drain, and costs at most its own check thread.
 */
class CallbackIsolationTest {
    private final List<HealthRegistry> registries = new ArrayList<>();
    private final CountDownLatch releaseAll = new CountDownLatch(1);

    @AfterEach
    void closeAll() {
        releaseAll.countDown();
        registries.forEach(HealthRegistry::close);
    }

    private HealthRegistry track(HealthRegistry r) {
        registries.add(r);
        return r;
    }

    @Test
    void aListenerThatBlocksOnATimeoutStopsNeitherTheScheduleNorLiveness() throws Exception {
        AtomicInteger pings = new AtomicInteger();
        CountDownLatch blocked = new CountDownLatch(1);
        HealthListener blockOnTimeout = (check, health, timedOut) -> {
            if (timedOut) {
                blocked.countDown();
                try {
                    releaseAll.await(); // a user's callback that never returns
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        };
        HealthRegistry registry = track(HealthRegistry.builder().listener(blockOnTimeout)
                // Times out every run: the scheduler thread records the timeouts.
                .register(Check.builder("hangs", () -> {
                    releaseAll.await();
                    return Health.up();
                }).groups(Groups.READINESS).interval(Duration.ofMillis(100)).timeout(Duration.ofMillis(50)).build())
                .register(Check.builder("ping", () -> Health.up().withDetail("n", pings.incrementAndGet()))
                        .groups(Groups.LIVENESS).interval(Duration.ofMillis(100)).timeout(Duration.ofMillis(500))
                        .maxAge(Duration.ofSeconds(1)).build())
                .build());
        registry.start();
        assertThat(blocked.await(30, TimeUnit.SECONDS)).isTrue();

        // With the listener blocked for good, the schedule goes on: ping keeps running and every
        // read of liveness in the next seconds is UP and fresh (maxAge 1 s, so a stalled scheduler
        // would read UNKNOWN "stale" within a second).
        int before = pings.get();
        await().atMost(Duration.ofSeconds(30)).until(() -> pings.get() >= before + 20);
        for (int i = 0; i < 20; i++) {
            Report live = registry.report(Groups.LIVENESS);
            assertThat(live.status()).as("read %d: %s", i, live).isEqualTo(Status.UP);
            int seen = pings.get();
            await().atMost(Duration.ofSeconds(10)).until(() -> pings.get() > seen);
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> registry.skippedNotifications() > 0);
        // Bounded: the stuck listener holds one thread, Vitals' own delivery (the log) one; never more.
        assertThat(registry.listenerThreads()).isLessThanOrEqualTo(2);
    }

    @Test
    void aCheckHoldingTheAvailabilityMonitorDelaysNeitherStartupNorDrainNorSpawnsThreads() throws Exception {
        AtomicInteger executions = new AtomicInteger();
        HealthRegistry[] self = new HealthRegistry[1];
        CountDownLatch holding = new CountDownLatch(1);
        HealthRegistry registry = track(HealthRegistry.builder()
                .register(Check.builder("holds-availability", () -> {
                    executions.incrementAndGet();
                    synchronized (self[0].availability()) { // a check author's mistake
                        holding.countDown();
                        releaseAll.await();
                    }
                    return Health.up();
                }).groups(Groups.LIVENESS).interval(Duration.ofMillis(100)).timeout(Duration.ofMillis(200)).build())
                .register(Check.builder("warm-up", Health::up).groups(Groups.STARTUP)
                        .interval(Duration.ofMillis(100)).build())
                .build());
        self[0] = registry;
        int threadsBefore = threadsNamed("vitals-check-");
        registry.start();
        assertThat(holding.await(30, TimeUnit.SECONDS)).isTrue();

        await().atMost(Duration.ofSeconds(30)).until(() -> registry.availability().isStartupComplete());
        assertThat(registry.report(Groups.STARTUP).status()).isEqualTo(Status.UP);
        CompletableFuture<Void> drain = registry.availability().drain(Duration.ofMillis(10));
        drain.get(30, TimeUnit.SECONDS);
        assertThat(registry.report(Groups.READINESS).status()).isEqualTo(Status.DOWN);
        registry.availability().markBroken("test");
        assertThat(registry.report(Groups.LIVENESS).checks().get(Availability.CHECK_NAME).status()).isEqualTo(Status.DOWN);

        // Single flight: 2 s of 100 ms ticks on a hung check still cost its one thread.
        Thread.sleep(2_000); // lets ~20 ticks pass; the assertion below is an upper bound, not a timing
        assertThat(executions.get()).as("one execution, hung; ticks re-report its timeout").isEqualTo(1);
        assertThat(threadsNamed("vitals-check-") - threadsBefore).isLessThanOrEqualTo(2);
    }

    @Test
    void aCheckHoldingAMonitorsMonitorDoesNotStopItsSampling() throws Exception {
        LagMonitor lag = LagMonitor.forExecutor("loop", Runnable::run).interval(Duration.ofMillis(50)).build();
        CountDownLatch holding = new CountDownLatch(1);
        HealthRegistry registry = track(HealthRegistry.builder()
                .register(lag.check().build())
                .register(Check.builder("holds-monitor", () -> {
                    synchronized (lag) {
                        holding.countDown();
                        releaseAll.await();
                    }
                    return Health.up();
                }).groups(Groups.READINESS).timeout(Duration.ofMillis(200)).build())
                .build());
        registry.start();
        lag.start(registry);
        assertThat(holding.await(30, TimeUnit.SECONDS)).isTrue();
        Object first = lag.snapshot().orElse(null);
        await().atMost(Duration.ofSeconds(30)).until(() -> lag.snapshot().isPresent() && lag.snapshot().get() != first);
        lag.close();
    }

    private static int threadsNamed(String prefix) {
        return (int) Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith(prefix)).count();
    }
}
