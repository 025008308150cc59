package dev.vitals;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.vitals.testing.ManualScheduler;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The evaluation engine of DESIGN.md section 5, with real threads and real time where it matters. */
class EngineTest {
    private final List<AutoCloseable> closeables = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : closeables) {
            c.close();
        }
    }

    private HealthRegistry track(HealthRegistry r) {
        closeables.add(r);
        return r;
    }

    // case C01: checks run concurrently, so the report costs about the slowest check, never the sum
    @Test
    void c01TenSlowOnDemandChecksTakeAboutOneCheckNotTheSum() throws Exception {
        HealthRegistry.Builder b = HealthRegistry.builder();
        for (int i = 0; i < 10; i++) {
            b.register(Check.builder("slow-" + i, () -> {
                Thread.sleep(1000);
                return Health.up();
            }).mode(Mode.ON_DEMAND).timeout(Duration.ofSeconds(5)).build());
        }
        HealthRegistry registry = track(b.build());

        long t0 = System.nanoTime();
        Report report = registry.evaluate(Groups.READINESS).get(30, TimeUnit.SECONDS);
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);

        assertThat(report.status()).isEqualTo(Status.UP);
        assertThat(report.checks()).hasSize(11); // 10 checks + availability
        assertThat(ms).as("10 × 1 s checks evaluated concurrently").isGreaterThanOrEqualTo(990).isLessThan(5_000);
    }

    // case C02: a check waiting on an exhausted connection pool reports DOWN at its own timeout
    @Test
    void c02CheckWaitingOnExhaustedPoolTimesOutAndOthersStillReport() throws Exception {
        Semaphore pool = new Semaphore(0); // every connection held
        HealthRegistry registry = track(HealthRegistry.builder()
                .register(Check.builder("db", () -> {
                    pool.tryAcquire(30, TimeUnit.SECONDS); // the pool's 30 s acquisition timeout
                    return Health.up();
                }).mode(Mode.ON_DEMAND).timeout(Duration.ofMillis(500)).build())
                .register(Check.builder("cache", Health::up).mode(Mode.ON_DEMAND).build())
                .build());

        long t0 = System.nanoTime();
        Report report = registry.evaluate(Groups.READINESS).get(10, TimeUnit.SECONDS);
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);

        Health db = report.checks().get("db");
        assertThat(db.status()).isEqualTo(Status.DOWN);
        assertThat(db.message()).hasValueSatisfying(m -> assertThat(m).startsWith("timed out after 500 ms"));
        assertThat(db.errorType()).hasValue("java.util.concurrent.TimeoutException");
        assertThat(report.checks().get("cache").status()).isEqualTo(Status.UP);
        assertThat(ms).isGreaterThanOrEqualTo(490).isLessThan(5_000);
    }

    // case C03: a stopped dependency behind a 10 s client timeout costs the check timeout, not 10 s
    @Test
    void c03StoppedDependencyIsDownWithinCheckTimeoutAndAtOnceWhenScheduled() throws Exception {
        try (ServerSocket blackhole = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            HealthCheck client = () -> {
                try (Socket s = new Socket()) {
                    s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), blackhole.getLocalPort()), 10_000);
                    s.setSoTimeout(10_000); // the client's own 10 s timeout
                    s.getOutputStream().write("PING\n".getBytes());
                    InputStream in = s.getInputStream();
                    return in.read() >= 0 ? Health.up() : Health.down("closed");
                }
            };
            HealthRegistry registry = track(HealthRegistry.builder()
                    .register(Check.builder("mongo", client).mode(Mode.ON_DEMAND).timeout(Duration.ofSeconds(1)).build())
                    .register(Check.builder("mongo-scheduled", client).groups("dashboard")
                            .timeout(Duration.ofSeconds(1)).interval(Duration.ofSeconds(1)).build())
                    .group("dashboard")
                    .build());
            registry.start();

            long t0 = System.nanoTime();
            Report onDemand = registry.evaluate(Groups.READINESS).get(10, TimeUnit.SECONDS);
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            assertThat(onDemand.checks().get("mongo").status()).isEqualTo(Status.DOWN);
            assertThat(ms).isLessThan(5_000);

            await().atMost(Duration.ofSeconds(10)).until(() ->
                    registry.report("dashboard").checks().get("mongo-scheduled").status() == Status.DOWN);
            long r0 = System.nanoTime();
            Report scheduled = registry.report("dashboard");
            long readMicros = TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - r0);
            assertThat(scheduled.status()).isEqualTo(Status.DOWN);
            // Loaded-machine margin: a read that ran the check would wait for the client's 10 s timeout.
            assertThat(readMicros).as("a scheduled read is answered from memory").isLessThan(5_000_000);
        }
    }

    // case C04: one check that never returns: bounded report, at most one thread spent on it, forever
    @Test
    void c04HungCheckIsBoundedAndCostsAtMostOneThread() throws Exception {
        TestChecks.Blocking hung = new TestChecks.Blocking();
        HealthRegistry registry = track(HealthRegistry.builder()
                .register(Check.builder("hung", hung).mode(Mode.ON_DEMAND).timeout(Duration.ofMillis(300))
                        .ttl(Duration.ofMillis(1)).build())
                .register(Check.builder("ok", Health::up).mode(Mode.ON_DEMAND).build())
                .build());

        long t0 = System.nanoTime();
        Report first = registry.evaluate(Groups.READINESS).get(10, TimeUnit.SECONDS);
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        assertThat(first.checks().get("hung").status()).isEqualTo(Status.DOWN);
        assertThat(first.checks().get("hung").message()).hasValueSatisfying(m -> assertThat(m).contains("timed out"));
        assertThat(first.checks().get("ok").status()).isEqualTo(Status.UP);
        assertThat(ms).isLessThan(5_000);

        long threadsBefore = TestChecks.liveVitalsThreads();
        for (int i = 0; i < 200; i++) {
            Report r = registry.evaluate(Groups.READINESS).get(10, TimeUnit.SECONDS);
            assertThat(r.checks().get("hung").message()).hasValueSatisfying(m -> assertThat(m).contains("running"));
        }
        assertThat(hung.executions).hasValue(1);
        assertThat(TestChecks.liveVitalsThreads()).isLessThanOrEqualTo(threadsBefore + 1);
        hung.release.countDown();
    }

    // case C16: a stalled check never convoys: one execution in flight, probes every second for 10 minutes
    @Test
    void c16StalledCheckHasOneExecutionInFlightAndThreadCountStaysFlat() throws Exception {
        ManualScheduler scheduler = new ManualScheduler();
        TestChecks.Blocking stalled = new TestChecks.Blocking();
        HealthRegistry registry = track(HealthRegistry.builder()
                .clock(scheduler.clock()).scheduler(scheduler)
                .register(Check.builder("stalled", stalled).interval(Duration.ofSeconds(1))
                        .timeout(Duration.ofSeconds(2)).build())
                .build());
        registry.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> stalled.executions.get() == 1);
        long threadsBefore = TestChecks.liveVitalsThreads();

        for (int second = 0; second < 600; second++) {
            scheduler.advance(Duration.ofSeconds(1));
            Report r = registry.report(Groups.READINESS);
            if (second >= 2) {
                assertThat(r.checks().get("stalled").status()).isEqualTo(Status.DOWN);
            }
        }
        assertThat(stalled.executions).hasValue(1);
        assertThat(stalled.maxRunning).hasValue(1);
        assertThat(registry.report(Groups.READINESS).checks().get("stalled").message())
                .hasValueSatisfying(m -> assertThat(m).startsWith("timed out after 2000 ms (running 60"));
        // + the transition log's own thread (issue 30: log lines and listeners run off the engine),
        // at most one per lane, however many ticks pass
        assertThat(TestChecks.liveVitalsThreads()).isLessThanOrEqualTo(threadsBefore + 1);
        stalled.release.countDown();
    }

    // case C12: a scheduled check that hangs after its first success does not serve "UP" forever
    @Test
    void c12HungScheduledCheckShowsTimedOutAndStarvedScheduleTurnsStale() throws Exception {
        ManualScheduler scheduler = new ManualScheduler();
        TestChecks.Settable flaky = new TestChecks.Settable();
        TestChecks.Blocking blocker = new TestChecks.Blocking();
        HealthCheck hangsAfterFirst = () -> flaky.executions.get() == 0 ? flaky.check() : blocker.check();
        HealthRegistry registry = track(HealthRegistry.builder()
                .clock(scheduler.clock()).scheduler(scheduler)
                .register(Check.builder("db", hangsAfterFirst).interval(Duration.ofSeconds(10))
                        .timeout(Duration.ofSeconds(2)).build())
                .build());
        registry.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> registry.report(Groups.READINESS).checks().get("db").status() == Status.UP);

        scheduler.advance(Duration.ofSeconds(10)); // second run starts and hangs
        await().atMost(Duration.ofSeconds(10)).until(() -> blocker.executions.get() == 1);
        scheduler.advance(Duration.ofSeconds(2)); // its timeout fires
        Health h = registry.report(Groups.READINESS).checks().get("db");
        assertThat(h.status()).isEqualTo(Status.DOWN);
        assertThat(h.message()).hasValueSatisfying(m -> assertThat(m).startsWith("timed out after 2000 ms"));
        blocker.release.countDown();

        // Now starve the schedule: time passes, but no scheduled task ever runs.
        ManualScheduler starved = new ManualScheduler();
        TestChecks.Settable ok = new TestChecks.Settable();
        HealthRegistry starving = track(HealthRegistry.builder()
                .clock(starved.clock()).scheduler(starved)
                .register(Check.builder("db", ok).interval(Duration.ofSeconds(10)).build())
                .build());
        starving.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> starving.report(Groups.READINESS).status() == Status.UP);
        starved.clock().add(Duration.ofSeconds(29));
        assertThat(starving.report(Groups.READINESS).status()).isEqualTo(Status.UP);
        starved.clock().add(Duration.ofSeconds(2)); // 31 s > maxAge (3 × 10 s)
        Health stale = starving.report(Groups.READINESS).checks().get("db");
        assertThat(stale.status()).isEqualTo(Status.UNKNOWN);
        String expected = "stale: no result for longer than maxAge (30000 ms); the last one was observed at "
                + stale.observedAt();
        assertThat(stale.message()).hasValue(expected);
        assertThat(starving.report(Groups.READINESS).status()).isEqualTo(Status.UNKNOWN);
        // Minutes later the cached report still says only what stays true: no frozen age.
        starved.clock().add(Duration.ofMinutes(5));
        assertThat(starving.report(Groups.READINESS).checks().get("db").message()).hasValue(expected);
    }

    @Test
    void scheduledReadWhileEveryCheckIsBlockedReturnsAtOnceWithLatestResults() throws Exception {
        ManualScheduler scheduler = new ManualScheduler();
        List<TestChecks.Blocking> blockers = new ArrayList<>();
        HealthRegistry.Builder b = HealthRegistry.builder().clock(scheduler.clock()).scheduler(scheduler);
        TestChecks.Settable[] firsts = new TestChecks.Settable[5];
        for (int i = 0; i < 5; i++) {
            TestChecks.Settable first = new TestChecks.Settable().set(Health.up().withDetail("run", 1));
            TestChecks.Blocking blocker = new TestChecks.Blocking();
            firsts[i] = first;
            blockers.add(blocker);
            b.register(Check.builder("c" + i, () -> first.executions.get() == 0 ? first.check() : blocker.check())
                    .interval(Duration.ofSeconds(5)).timeout(Duration.ofSeconds(60)).build());
        }
        HealthRegistry registry = track(b.build());
        registry.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> registry.report(Groups.READINESS).status() == Status.UP);
        scheduler.advance(Duration.ofSeconds(5));
        await().atMost(Duration.ofSeconds(10)).until(() -> blockers.stream().allMatch(x -> x.running.get() == 1));

        long t0 = System.nanoTime();
        Report r = registry.report(Groups.READINESS);
        long micros = TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - t0);
        assertThat(r.status()).isEqualTo(Status.UP);
        assertThat(r.checks().get("c3").details()).containsEntry("run", 1);
        // Loaded-machine margin: a read that waited for a blocked check would never return.
        assertThat(micros).as("read while every check is blocked").isLessThan(5_000_000);
        // And an evaluation of a scheduled group does not run anything either.
        assertThat(registry.evaluate(Groups.READINESS)).isCompleted();
        blockers.forEach(x -> x.release.countDown());
    }

    @Test
    void readingReportsNeverRunsAScheduledCheck() {
        ManualScheduler scheduler = new ManualScheduler();
        TestChecks.Settable c = new TestChecks.Settable();
        HealthRegistry registry = track(HealthRegistry.builder().clock(scheduler.clock()).scheduler(scheduler)
                .register(Check.builder("c", c).build()).build());
        registry.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> c.executions.get() == 1);
        for (int i = 0; i < 1000; i++) {
            registry.report(Groups.READINESS);
            registry.evaluate(Groups.READINESS);
        }
        assertThat(c.executions).hasValue(1);
        scheduler.advance(Duration.ofSeconds(10));
        await().atMost(Duration.ofSeconds(10)).until(() -> c.executions.get() == 2);
    }

    @Test
    void unchangedStateReturnsTheSameReportInstance() {
        HealthRegistry registry = track(HealthRegistry.builder()
                .register(Check.builder("c", Health::up).build()).build());
        registry.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> registry.report(Groups.READINESS).status() == Status.UP);
        assertThat(registry.report(Groups.READINESS)).isSameAs(registry.report(Groups.READINESS));
    }

    @Test
    void onDemandResultIsReusedWithinTtlAndRunsAgainAfter() throws Exception {
        ManualScheduler scheduler = new ManualScheduler();
        TestChecks.Settable c = new TestChecks.Settable();
        HealthRegistry registry = track(HealthRegistry.builder().clock(scheduler.clock()).scheduler(scheduler)
                .register(Check.builder("c", c).mode(Mode.ON_DEMAND).ttl(Duration.ofSeconds(5)).build()).build());

        registry.evaluate(Groups.READINESS).get(10, TimeUnit.SECONDS);
        scheduler.advance(Duration.ofSeconds(4));
        registry.evaluate(Groups.READINESS).get(10, TimeUnit.SECONDS);
        assertThat(c.executions).hasValue(1);
        scheduler.advance(Duration.ofSeconds(2));
        registry.evaluate(Groups.READINESS).get(10, TimeUnit.SECONDS);
        assertThat(c.executions).hasValue(2);
    }

    @Test
    void concurrentEvaluationsJoinTheExecutionInFlight() throws Exception {
        TestChecks.Blocking slow = new TestChecks.Blocking();
        HealthRegistry registry = track(HealthRegistry.builder()
                .register(Check.builder("slow", slow).mode(Mode.ON_DEMAND).timeout(Duration.ofSeconds(30)).build())
                .build());
        List<CompletableFuture<Report>> all = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            all.add(registry.evaluate(Groups.READINESS));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> slow.running.get() == 1);
        slow.release.countDown();
        for (CompletableFuture<Report> f : all) {
            assertThat(f.get(10, TimeUnit.SECONDS).checks().get("slow").status()).isEqualTo(Status.UP);
        }
        assertThat(slow.executions).hasValue(1);
    }

    @Test
    void closeDoesNotWaitForHungChecksAndClosedRegistryFailsClearly() throws Exception {
        TestChecks.Blocking hung = new TestChecks.Blocking();
        HealthRegistry registry = HealthRegistry.builder()
                .register(Check.builder("hung", hung).timeout(Duration.ofSeconds(60)).build()).build();
        registry.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> hung.running.get() == 1);

        long t0 = System.nanoTime();
        registry.close();
        registry.close(); // idempotent
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)).isLessThan(5_000);
        org.assertj.core.api.Assertions.assertThatIllegalStateException()
                .isThrownBy(() -> registry.report(Groups.READINESS)).withMessage("health registry is closed");
        org.assertj.core.api.Assertions.assertThatIllegalStateException()
                .isThrownBy(() -> registry.evaluate(Groups.READINESS)).withMessage("health registry is closed");
        org.assertj.core.api.Assertions.assertThatIllegalStateException().isThrownBy(registry::start);
        // The abandoned check thread is interrupted and ends.
        await().atMost(Duration.ofSeconds(10)).until(() -> hung.running.get() == 0);
    }

    @Test
    void startingTwiceFails() {
        HealthRegistry registry = track(HealthRegistry.builder().build());
        registry.start();
        org.assertj.core.api.Assertions.assertThatIllegalStateException().isThrownBy(registry::start)
                .withMessage("health registry is already started");
    }

    @Test
    void unknownGroupIsNoSuchElement() {
        HealthRegistry registry = track(HealthRegistry.builder().build());
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> registry.report("nope"))
                .isInstanceOf(java.util.NoSuchElementException.class).hasMessageContaining("no group 'nope'");
    }

    @Test
    void checksRunOnPlatformThreadsByDefault() throws Exception {
        java.util.concurrent.atomic.AtomicReference<String> threadName = new java.util.concurrent.atomic.AtomicReference<>();
        java.util.concurrent.atomic.AtomicBoolean daemon = new java.util.concurrent.atomic.AtomicBoolean();
        HealthRegistry registry = track(HealthRegistry.builder()
                .register(Check.builder("where", () -> {
                    threadName.set(Thread.currentThread().getName());
                    daemon.set(Thread.currentThread().isDaemon());
                    return Health.up();
                }).mode(Mode.ON_DEMAND).build()).build());
        registry.evaluate(Groups.READINESS).get(10, TimeUnit.SECONDS);

        assertThat(registry.usesVirtualThreads()).isFalse(); // issue 19: a spinning check must not take a carrier
        // a quick check leaves its pool thread's name alone (renaming is a system call, issue 37)
        assertThat(threadName.get()).matches("vitals-check-\\d+");
        assertThat(daemon.get()).isTrue();
    }

    @Test
    void aHungChecksThreadIsNamedAfterItOnceTimedOutAndGetsItsNameBackWhenItReturns() throws Exception {
        Semaphore release = new Semaphore(0);
        java.util.concurrent.atomic.AtomicReference<Thread> runner = new java.util.concurrent.atomic.AtomicReference<>();
        HealthRegistry registry = track(HealthRegistry.builder()
                .register(Check.builder("stuck", () -> {
                    runner.set(Thread.currentThread());
                    release.acquire();
                    return Health.up();
                }).mode(Mode.ON_DEMAND).timeout(Duration.ofMillis(50)).build()).build());
        Report r = registry.evaluate(Groups.READINESS).get(10, TimeUnit.SECONDS);

        assertThat(r.checks().get("stuck").message()).hasValueSatisfying(m -> assertThat(m).startsWith("timed out after 50 ms"));
        Thread t = runner.get();
        assertThat(t.getName()).as("what a thread dump shows of the hung execution").isEqualTo("vitals-check-stuck");
        release.release();
        await().atMost(Duration.ofSeconds(10)).until(() -> t.getName().matches("vitals-check-\\d+"));
    }

    @Test
    void oneTimerServesEveryTimeoutEarliestFirst() {
        ManualScheduler scheduler = new ManualScheduler();
        Semaphore never = new Semaphore(0);
        HealthRegistry registry = track(HealthRegistry.builder().scheduler(scheduler).clock(scheduler.clock())
                .register(Check.builder("slow", () -> {
                    never.acquire();
                    return Health.up();
                }).mode(Mode.ON_DEMAND).timeout(Duration.ofSeconds(3)).build())
                .register(Check.builder("quick", () -> {
                    never.acquire();
                    return Health.up();
                }).mode(Mode.ON_DEMAND).timeout(Duration.ofSeconds(1)).build()).build());
        CompletableFuture<Report> f = registry.evaluate(Groups.READINESS);
        scheduler.advance(Duration.ofMillis(999));
        assertThat(f).isNotDone();
        scheduler.advance(Duration.ofMillis(1)); // the shorter timeout re-armed the timer earlier
        assertThat(registry.evaluate(Groups.READINESS, java.util.Set.of("slow")).join().checks().get("quick").message())
                .hasValueSatisfying(m -> assertThat(m).startsWith("timed out after 1000 ms"));
        assertThat(f).isNotDone();
        scheduler.advance(Duration.ofMillis(1999)); // the timer, fired at 1 s, armed itself for the 3 s deadline
        assertThat(f).isNotDone();
        scheduler.advance(Duration.ofMillis(1));
        assertThat(f.join().checks().get("slow").message()).hasValueSatisfying(m -> assertThat(m).startsWith("timed out after 3000 ms"));
        never.release(2);
    }
}
