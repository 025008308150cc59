package dev.vitals;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.vitals.testing.ManualScheduler;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Issue 17: a probe read only reads (no state change, no log, no allocation, no lock that
 * recording holds); listeners, logging and change notification run after the runner's lock is
 * released, in recording order; the shutdown hook lives from start() to close(); a check's
 * health before its first result.
 */
class ReadsAndCallbacksTest {
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final Logger vitalsLog = Logger.getLogger("dev.vitals");
    private final List<LogRecord> logged = new CopyOnWriteArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord r) {
            logged.add(r);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };
    private Level oldLevel;

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : closeables) {
            c.close();
        }
        if (oldLevel != null || vitalsLog.getHandlers().length > 0) {
            vitalsLog.removeHandler(capture);
            vitalsLog.setLevel(oldLevel);
        }
    }

    private HealthRegistry track(HealthRegistry r) {
        closeables.add(r);
        return r;
    }

    private void captureLogs() {
        oldLevel = vitalsLog.getLevel();
        vitalsLog.setLevel(Level.ALL);
        vitalsLog.addHandler(capture);
    }

    @Test
    void aProbeReadChangesNothingLogsNothingAndAllocatesNothing() throws Exception {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        Method allocated = allocatedBytes(threads);
        Assumptions.assumeTrue(allocated != null, "this JVM does not count allocated bytes per thread");
        captureLogs();
        ManualScheduler scheduler = new ManualScheduler();
        TestChecks.Settable migrations = new TestChecks.Settable().set(Health.down("running"));
        HealthRegistry registry = track(HealthRegistry.builder().clock(scheduler.clock()).scheduler(scheduler)
                .register(Check.builder("migrations", migrations).groups(Groups.STARTUP)
                        .interval(Duration.ofSeconds(1)).build())
                .register(Check.builder("db", Health::up).interval(Duration.ofSeconds(1)).build())
                .build());
        registry.start();
        await().atMost(Duration.ofSeconds(20)).until(() -> registry.runner("db").latest() != null
                && registry.runner("migrations").latest() != null);

        // Start-up completes where the result is recorded (a check thread), before any read.
        migrations.set(Health.up());
        scheduler.advance(Duration.ofSeconds(1));
        long second = scheduler.clock().monotonicTime();
        await().atMost(Duration.ofSeconds(20)).until(() -> registry.availability().isStartupComplete()
                && registry.runner("db").latest().nanos == second);
        await().atMost(Duration.ofSeconds(20)).until(() -> logged.stream()
                .anyMatch(r -> String.valueOf(r.getMessage()).startsWith("availability")));
        long reader = Thread.currentThread().getId();
        assertThat(logged).filteredOn(r -> String.valueOf(r.getMessage()).startsWith("availability"))
                .as("start-up completion is logged by the recording thread").isNotEmpty()
                .allMatch(r -> r.getThreadID() != reader);

        // Transition log lines are written by scheduler tasks (issue 37; never by a reader): let them land first.
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            scheduler.runDue();
            return logged.stream().anyMatch(r -> String.valueOf(r.getMessage()).startsWith("check ''{0}'' is {1}")
                    && "migrations".equals(r.getParameters()[0]) && Status.UP.equals(r.getParameters()[1]));
        });
        logged.clear();
        Report first = registry.report(Groups.READINESS);
        for (int i = 0; i < 20_000; i++) { // warm the read path
            registry.report(Groups.READINESS);
        }
        long tid = Thread.currentThread().getId();
        long b0 = (long) allocated.invoke(threads, tid);
        long b1 = (long) allocated.invoke(threads, tid);
        Report last = null;
        for (int i = 0; i < 100_000; i++) {
            last = registry.report(Groups.READINESS);
        }
        long b2 = (long) allocated.invoke(threads, tid);
        long reads = (b2 - b1) - (b1 - b0); // minus what measuring itself allocates
        assertThat(last).as("an unchanged group answers with the same report").isSameAs(first);
        assertThat(reads).as("bytes allocated by 100 000 reads").isLessThan(1_000);
        assertThat(logged).as("reads log nothing").isEmpty();
        assertThat(registry.availability().isStartupComplete()).isTrue();
    }

    @Test
    void aProbeReadTakesNoLockThatRecordingHolds() throws Exception {
        ManualScheduler scheduler = new ManualScheduler();
        HealthRegistry registry = track(HealthRegistry.builder().clock(scheduler.clock()).scheduler(scheduler)
                .register(Check.builder("db", Health::up).groups(Groups.READINESS, Groups.LIVENESS)
                        .interval(Duration.ofSeconds(1)).build())
                .build());
        registry.start();
        await().atMost(Duration.ofSeconds(20)).until(() -> registry.runner("db").latest() != null);
        CheckRunner runner = registry.runner("db");
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread holder = new Thread(() -> {
            synchronized (runner) { // the lock recording holds
                held.countDown();
                try {
                    release.await(60, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }, "test-lock-holder");
        holder.start();
        try {
            assertThat(held.await(20, TimeUnit.SECONDS)).isTrue();
            assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
                assertThat(registry.report(Groups.READINESS).status()).isEqualTo(Status.UP);
                scheduler.clock().add(Duration.ofSeconds(5)); // past maxAge (3 s): the report is rebuilt, stale
                assertThat(registry.report(Groups.LIVENESS).checks().get("db").status()).isEqualTo(Status.UNKNOWN);
                assertThat(registry.evaluate(Groups.READINESS).get(10, TimeUnit.SECONDS).checks().get("db").message())
                        .hasValueSatisfying(m -> assertThat(m).startsWith("stale"));
            }, "a read waited for the runner's lock");
        } finally {
            release.countDown();
            holder.join(20_000);
        }
    }

    @Test
    void aBlockingListenerDoesNotDelayRecordingOfOtherChecksAndSeesResultsInOrder() throws Exception {
        AtomicInteger aRuns = new AtomicInteger();
        AtomicInteger bRuns = new AtomicInteger();
        CountDownLatch listenerBlocked = new CountDownLatch(1);
        CountDownLatch releaseListener = new CountDownLatch(1);
        Map<String, List<Long>> seen = new ConcurrentHashMap<>();
        HealthListener blockOnFirstA = (check, health, timedOut) -> {
            seen.computeIfAbsent(check.name(), k -> new CopyOnWriteArrayList<>())
                    .add(((Number) health.details().get("n")).longValue());
            if (check.name().equals("a") && listenerBlocked.getCount() > 0) {
                listenerBlocked.countDown();
                try {
                    releaseListener.await(60, TimeUnit.SECONDS); // a slow metrics registry, a user's callback
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        };
        HealthRegistry registry = track(HealthRegistry.builder().listener(blockOnFirstA)
                .register(Check.builder("a", () -> Health.up().withDetail("n", aRuns.incrementAndGet()))
                        .interval(Duration.ofMillis(50)).build())
                .register(Check.builder("b", () -> Health.up().withDetail("n", bRuns.incrementAndGet()))
                        .interval(Duration.ofMillis(50)).build())
                .build());
        registry.start();
        try {
            assertThat(listenerBlocked.await(20, TimeUnit.SECONDS)).isTrue();
            int bBefore = bRuns.get();
            int aBefore = aRuns.get();
            // While the listener blocks on a's first result, a and b keep being run and recorded;
            // the listener is slow (one call over 1 s), so its notices are skipped, not queued
            // (issue 40: one queue per listener, one call at a time).
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                assertThat(bRuns.get()).isGreaterThanOrEqualTo(bBefore + 5);
                assertThat(aRuns.get()).isGreaterThanOrEqualTo(aBefore + 3);
                assertThat(reportedRun(registry, "b")).isGreaterThan(bBefore + 2);
                assertThat(reportedRun(registry, "a")).isGreaterThan(aBefore + 1);
                assertThat(registry.skippedNotifications()).as("stuck over 1 s: its notices skipped").isPositive();
            });
            assertThat(seen.get("a")).as("a's later notices wait for the blocked delivery").containsExactly(1L);
        } finally {
            releaseListener.countDown();
        }
        // After the release, delivery resumes with later executions of both checks, still in order.
        int aRecorded = aRuns.get();
        int bRecorded = bRuns.get();
        await().atMost(Duration.ofSeconds(30)).until(() -> last(seen.get("a")) > aRecorded && last(seen.get("b")) > bRecorded);
        registry.close();
        assertThat(registry.skippedNotifications()).as("notices while its listener was stuck").isPositive();
        for (List<Long> told : List.of(seen.get("a"), seen.get("b"))) {
            for (int i = 1; i < told.size(); i++) {
                assertThat(told.get(i)).as("told in recording order").isGreaterThan(told.get(i - 1));
            }
        }
    }

    private static long last(List<Long> told) {
        return told == null || told.isEmpty() ? 0 : told.get(told.size() - 1);
    }

    @Test
    void theShutdownHookIsInstalledByStartAndRemovedByClose() {
        HealthRegistry neverStarted = HealthRegistry.builder().drainOnShutdown(Duration.ofSeconds(1)).build();
        assertThat(neverStarted.hasShutdownHook()).as("build() installs nothing").isFalse();
        neverStarted.close();

        HealthRegistry registry = track(HealthRegistry.builder().drainOnShutdown(Duration.ofSeconds(1)).build());
        assertThat(registry.hasShutdownHook()).isFalse();
        registry.start();
        assertThat(registry.hasShutdownHook()).isTrue();
        registry.close();
        assertThat(registry.hasShutdownHook()).isFalse();

        HealthRegistry noDrain = track(HealthRegistry.builder().build());
        noDrain.start();
        assertThat(noDrain.hasShutdownHook()).isFalse();
    }

    @Test
    void beforeItsFirstResultACheckReadsWhatItsRegistrationSaysAndNeverCompletesStartup() throws Exception {
        TestChecks.Blocking slowStart = new TestChecks.Blocking();
        TestChecks.Blocking slowLive = new TestChecks.Blocking();
        TestChecks.Blocking slowDefault = new TestChecks.Blocking();
        Health starting = Health.builder(Status.UP).message("starting: no sample yet").build();
        HealthRegistry registry = track(HealthRegistry.builder()
                .register(Check.builder("warm", slowStart).groups(Groups.STARTUP).beforeFirstResult(starting)
                        .timeout(Duration.ofSeconds(60)).build())
                .register(Check.builder("progress", slowLive).groups(Groups.LIVENESS).beforeFirstResult(starting)
                        .timeout(Duration.ofSeconds(60)).build())
                .register(Check.builder("db", slowDefault).timeout(Duration.ofSeconds(60)).build())
                .build());
        registry.start();
        try {
            await().atMost(Duration.ofSeconds(20)).until(() -> slowStart.running.get() == 1
                    && slowLive.running.get() == 1 && slowDefault.running.get() == 1);
            assertThat(registry.report(Groups.LIVENESS).status()).isEqualTo(Status.UP);
            assertThat(registry.report(Groups.LIVENESS).checks().get("progress")).isEqualTo(starting);
            assertThat(registry.report(Groups.READINESS).checks().get("db")).isEqualTo(Check.NO_RESULT_YET);
            assertThat(registry.availability().isStartupComplete())
                    .as("a check without a result never completes startup").isFalse();
            assertThat(registry.report(Groups.STARTUP).status()).isEqualTo(Status.DOWN);
        } finally {
            slowStart.release.countDown();
            slowLive.release.countDown();
            slowDefault.release.countDown();
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> registry.availability().isStartupComplete());
    }

    /** The execution number a report shows for a check, or -1 before its first result. */
    private static long reportedRun(HealthRegistry registry, String check) {
        Object n = registry.report(Groups.READINESS).checks().get(check).details().get("n");
        return n == null ? -1 : ((Number) n).longValue();
    }

    private static Method allocatedBytes(ThreadMXBean threads) {
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
