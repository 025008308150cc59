package dev.vitals;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.vitals.testing.ManualScheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Issue 19: the probe budget, recovery after a hang, and durations the builder cannot represent. */
class HardeningTest {
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

    // ---------------------------------------------------------------- durations

    @Test
    void builderRejectsDurationsItCannotRepresentNamingCheckFieldAndBound() {
        Duration huge = Duration.ofSeconds(Long.MAX_VALUE);
        assertThatThrownBy(() -> Check.builder("db", Health::up).timeout(huge).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("check 'db': timeout must be at most 365 days (PT8760H), was " + huge);
        assertThatThrownBy(() -> Check.builder("db", Health::up).interval(huge).build())
                .hasMessage("check 'db': interval must be at most 365 days (PT8760H), was " + huge);
        assertThatThrownBy(() -> Check.builder("db", Health::up).maxAge(Duration.ofDays(366)).build())
                .hasMessage("check 'db': maxAge must be at most 365 days (PT8760H), was PT8784H");
        assertThatThrownBy(() -> Check.builder("db", Health::up).mode(Mode.ON_DEMAND).ttl(Duration.ofDays(1000)).build())
                .hasMessage("check 'db': ttl must be at most 365 days (PT8760H), was PT24000H");
        // The bound itself is fine, default maxAge (3 × interval) included, and runs.
        Check yearly = Check.builder("yearly", Health::up).interval(Check.MAX_DURATION).timeout(Check.MAX_DURATION).build();
        assertThat(yearly.maxAge()).isEqualTo(Check.MAX_DURATION.multipliedBy(3));
        HealthRegistry r = track(HealthRegistry.builder().register(yearly).build());
        r.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> r.report(Groups.READINESS).status() == Status.UP);
    }

    // ---------------------------------------------------------------- probe budget

    @Test
    void anEvaluationAnswersByItsBudgetWhileAHungCheckGoesOnInTheBackground() throws Exception {
        TestChecks.Blocking hung = new TestChecks.Blocking();
        HealthRegistry r = track(HealthRegistry.builder()
                .register(Check.builder("hung", hung).mode(Mode.ON_DEMAND).timeout(Duration.ofSeconds(30)).build())
                .register(Check.builder("quick", Health::up).mode(Mode.ON_DEMAND).build())
                .build());

        long t0 = System.nanoTime();
        Report first = r.evaluate(Groups.READINESS, Set.of(), Duration.ofMillis(300)).get(10, TimeUnit.SECONDS);
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);

        assertThat(ms).as("answered at the budget, not the 30 s timeout").isLessThan(10_000);
        assertThat(first.checks().get("quick").status()).isEqualTo(Status.UP);
        Health h = first.checks().get("hung");
        assertThat(h.status()).isEqualTo(Status.UNKNOWN);
        assertThat(h.message()).hasValueSatisfying(m -> assertThat(m).startsWith("still running (").endsWith(" ms), no result yet"));
        assertThat(first.status().isHealthy()).isFalse(); // UNKNOWN fails a probe

        Report second = r.evaluate(Groups.READINESS, Set.of(), Duration.ofMillis(300)).get(10, TimeUnit.SECONDS);
        assertThat(second.checks().get("hung").message()).hasValueSatisfying(m -> assertThat(m).startsWith("still running ("));
        assertThat(hung.executions.get()).as("the second evaluation joined the execution in flight").isEqualTo(1);
        hung.release.countDown();
    }

    @Test
    void aCheckStillRunningAtTheBudgetShowsItsLastResultWhileYoungerThanMaxAge() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        CountDownLatch release = new CountDownLatch(1);
        HealthRegistry r = track(HealthRegistry.builder()
                .register(Check.builder("db", () -> {
                    if (runs.incrementAndGet() > 1) {
                        release.await();
                    }
                    return Health.up();
                }).mode(Mode.ON_DEMAND).timeout(Duration.ofSeconds(30)).ttl(Duration.ofMillis(1)).interval(Duration.ofSeconds(20))
                        .build())
                .build());
        assertThat(r.evaluate(Groups.READINESS, Set.of(), Duration.ofSeconds(5)).get(10, TimeUnit.SECONDS).status())
                .isEqualTo(Status.UP);
        Thread.sleep(5); // past the 1 ms ttl

        Report during = r.evaluate(Groups.READINESS, Set.of(), Duration.ofMillis(200)).get(10, TimeUnit.SECONDS);

        Health h = during.checks().get("db");
        assertThat(h.status()).isEqualTo(Status.UP);
        assertThat(h.message()).hasValueSatisfying(m -> assertThat(m).startsWith("still running (").contains("; last result "));
        release.countDown();
    }

    @Test
    void aBudgetUnderOneMilliIsRejected() {
        HealthRegistry r = track(HealthRegistry.builder().build());
        assertThatThrownBy(() -> r.evaluate(Groups.READINESS, Set.of(), Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("budget must be in 1 ms..365 days, was PT0S");
    }

    // ---------------------------------------------------------------- recovery

    @Test
    void aRecoveryIsSeenAsSoonAsAHungExecutionReturnsNotAnIntervalLater() throws Exception {
        ManualScheduler scheduler = new ManualScheduler();
        AtomicInteger runs = new AtomicInteger();
        CountDownLatch outage = new CountDownLatch(1); // counted down when the dependency is back
        HealthRegistry r = track(HealthRegistry.builder().clock(scheduler.clock()).scheduler(scheduler)
                .register(Check.builder("db", () -> {
                    if (runs.incrementAndGet() == 2) {
                        outage.await(); // a call stuck on the dead dependency until it is back
                    }
                    return Health.up();
                }).interval(Duration.ofSeconds(2)).timeout(Duration.ofSeconds(1)).build())
                .build());
        r.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> r.report(Groups.READINESS).status() == Status.UP);

        scheduler.advance(Duration.ofSeconds(2)); // run 2 starts and hangs
        await().atMost(Duration.ofSeconds(10)).until(() -> runs.get() == 2);
        scheduler.advance(Duration.ofSeconds(1)); // its timeout
        assertThat(r.report(Groups.READINESS).status()).isEqualTo(Status.DOWN);
        scheduler.advance(Duration.ofSeconds(1)); // t = 4 s: a scheduled run finds it hung, starts nothing
        assertThat(runs.get()).isEqualTo(2);
        scheduler.advance(Duration.ofMillis(500));

        long back = scheduler.clock().monotonicTime();
        outage.countDown(); // t = 4.5 s: the dependency is back; the hung call returns

        // Seen at once (a run starts as the hung one returns), not at the next tick at t = 6 s.
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            scheduler.runDue();
            return r.report(Groups.READINESS).status() == Status.UP;
        });
        assertThat(scheduler.clock().monotonicTime()).as("the clock did not move").isEqualTo(back);
        assertThat(runs.get()).isEqualTo(3);
    }
}
