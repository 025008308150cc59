package dev.vitals.monitor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;
import static org.awaitility.Awaitility.await;

import dev.vitals.Check;
import dev.vitals.Groups;
import dev.vitals.Health;
import dev.vitals.HealthRegistry;
import dev.vitals.Names;
import dev.vitals.Report;
import dev.vitals.Status;
import dev.vitals.testing.ManualScheduler;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The one monitor template (issue 17): every monitor answers "not started", "closed" and "no
 * sample yet" the same way, validates its name with the one name rule and its interval against
 * its own minimum; and liveness never fails before a monitor's first sample (issue 13).
 */
class MonitorTemplateTest {
    private static final Health STARTING = Health.builder(Status.UP).message("starting: no sample yet").build();
    private final Fixtures fx = new Fixtures();
    private final ManualScheduler scheduler = new ManualScheduler();

    @AfterEach
    void close() throws Exception {
        fx.close();
    }

    private List<Monitor> oneOfEach() {
        Executor held = r -> { }; // a loop that never runs the heartbeat
        return List.of(
                fx.track(SaturationMonitor.builder("saturation", () -> SaturationSnapshot.of(1, 2, 0)).build()),
                fx.track(ProgressWatchdog.builder("progress", () -> ProgressSnapshot.of(1, 0, 0)).build()),
                fx.track(LagMonitor.forExecutor("lag", held).build()),
                fx.track(PauseDetector.builder().build()),
                fx.track(DeadlockMonitor.builder().build()),
                fx.track(MemoryMonitor.builder().reader(() -> MemorySnapshot.of(1, 10)).build()),
                fx.track(ListenerMonitor.builder("listener", 1).build()));
    }

    @Test
    void everyMonitorAnswersNotStartedAndClosedTheSameWay() throws Exception {
        for (Monitor m : oneOfEach()) {
            assertThat(m.healthCheck().check()).as(m.name()).isEqualTo(Health.unknown("monitor not started"));
            assertThat(m.toString()).as(m.name()).contains("{" + m.name()).contains("latest=null");
            m.close();
            assertThat(m.healthCheck().check()).as(m.name()).isEqualTo(Health.unknown("monitor closed"));
            assertThat(m.isRunning()).isFalse();
        }
    }

    @Test
    void aStartedMonitorWithoutASampleReadsUpStarting() throws Exception {
        Supplier<RuntimeException> broken = () -> new IllegalStateException("source not ready");
        SaturationMonitor saturation = fx.track(SaturationMonitor.builder("saturation", () -> {
            throw broken.get();
        }).build());
        ProgressWatchdog progress = fx.track(ProgressWatchdog.builder("progress", () -> {
            throw broken.get();
        }).build());
        MemoryMonitor memory = fx.track(MemoryMonitor.builder().reader(() -> {
            throw broken.get();
        }).build());
        for (AbstractMonitor<?> m : List.<AbstractMonitor<?>>of(saturation, progress, memory)) {
            m.start(scheduler.clock(), scheduler); // the first sample fails (logged), the schedule goes on
            assertThat(m.snapshot()).as(m.name()).isEmpty();
            assertThat(m.healthCheck().check()).as(m.name()).isEqualTo(STARTING);
        }
    }

    // Issue 13: /livez answered 503 "no result yet" at start-up, before the monitors' first samples.
    @Test
    void livenessNeverFailsBeforeAMonitorsFirstSample() throws Exception {
        ProgressWatchdog progress = fx.track(ProgressWatchdog.builder("progress", () -> {
            throw new IllegalStateException("pool not created yet");
        }).build());
        LagMonitor lag = fx.track(LagMonitor.forExecutor("loop", Runnable::run).build());
        DeadlockMonitor deadlock = fx.track(DeadlockMonitor.builder().build());
        MemoryMonitor memory = fx.track(MemoryMonitor.builder().reader(() -> MemorySnapshot.of(1, 10)).build());
        HealthRegistry registry = fx.track(HealthRegistry.builder().clock(scheduler.clock()).scheduler(scheduler)
                .register(progress.check().build())
                .register(lag.check().build())
                .register(deadlock.check().build())
                .register(memory.check().build())
                .build());

        // Registered, nothing run yet: the registry shows what the registration says.
        Report before = registry.report(Groups.LIVENESS);
        assertThat(before.status()).isEqualTo(Status.UP);
        for (String name : List.of("progress", "loop", "deadlock", "memory")) {
            assertThat(before.checks().get(name)).as(name).isEqualTo(STARTING);
        }

        // Started in the documented order; the watchdog's source fails its first sample.
        for (Monitor m : List.<Monitor>of(progress, lag, deadlock, memory)) {
            m.start(registry);
        }
        registry.start();
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(registry.report(Groups.LIVENESS)
                .checks().get("deadlock").message()).isEmpty()); // the registry's first executions are in
        Report after = registry.report(Groups.LIVENESS);
        assertThat(after.status()).isEqualTo(Status.UP);
        assertThat(after.checks().get("progress")).as("started, no sample yet")
                .satisfies(h -> assertThat(h.status()).isEqualTo(Status.UP))
                .satisfies(h -> assertThat(h.message()).hasValue("starting: no sample yet"));
    }

    @Test
    void aMonitorRegisteredButNeverStartedIsNoticedAtTheFirstExecution() {
        DeadlockMonitor forgotten = fx.track(DeadlockMonitor.builder().build());
        HealthRegistry registry = fx.track(HealthRegistry.builder().clock(scheduler.clock()).scheduler(scheduler)
                .register(forgotten.check().build()).build());
        registry.start();
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(registry.report(Groups.LIVENESS)
                .checks().get("deadlock").message()).hasValue("monitor not started"));
        assertThat(registry.report(Groups.LIVENESS).checks().get("deadlock").status()).isEqualTo(Status.UNKNOWN);
        assertThat(registry.report(Groups.LIVENESS).status()).isEqualTo(Status.UNKNOWN);
    }

    @Test
    void oneNameRuleForChecksGroupsAndMonitors() {
        assertThat(Names.isValid("db.primary_1-a")).isTrue();
        assertThat(Names.isValid("db/primary")).isFalse();
        assertThat(Names.isValid("")).isFalse();
        assertThat(Names.isValid(null)).isFalse();
        assertThatIllegalArgumentException().isThrownBy(() -> SaturationMonitor.builder("a b", () -> null))
                .withMessage("monitor name 'a b' may hold only letters, digits, '.', '_' and '-' (it is used in probe paths)");
        assertThatIllegalArgumentException().isThrownBy(() -> DeadlockMonitor.builder(" "))
                .withMessage("monitor name must not be blank");
        assertThatNullPointerException().isThrownBy(() -> MemoryMonitor.builder(null)).withMessage("monitor name");
        assertThatIllegalArgumentException().isThrownBy(() -> Check.builder("a b", Health::up))
                .withMessage("check name 'a b' may hold only letters, digits, '.', '_' and '-' (it is used in probe paths)");
        assertThatIllegalArgumentException().isThrownBy(() -> HealthRegistry.builder().group("a b"))
                .withMessage("group name 'a b' may hold only letters, digits, '.', '_' and '-' (it is used in probe paths)");
    }

    @Test
    void everyBuilderChecksTheIntervalAgainstItsOwnMinimum() {
        assertThatIllegalArgumentException().isThrownBy(() -> DeadlockMonitor.builder().interval(Duration.ofMillis(99)))
                .withMessage("monitor 'deadlock': interval must be at least 100 ms, was PT0.099S");
        assertThatIllegalArgumentException().isThrownBy(() -> ListenerMonitor.builder("l", 80).interval(Duration.ofMillis(9)))
                .withMessage("monitor 'l': interval must be at least 10 ms, was PT0.009S");
        assertThatIllegalArgumentException().isThrownBy(() -> PauseDetector.builder().interval(Duration.ZERO))
                .withMessage("monitor 'pauses': interval must be at least 1 ms, was PT0S");
        assertThatNullPointerException().isThrownBy(() -> MemoryMonitor.builder().interval(null)).withMessage("interval");
        assertThat(LagMonitor.forExecutor("l", Runnable::run).interval(Duration.ofMillis(1)).stallAfter(Duration.ofMillis(1))
                .build().interval()).isEqualTo(Duration.ofMillis(1));
        // The check registration keeps its floors whatever the sampling interval.
        Check c = SaturationMonitor.builder("s", () -> null).interval(Duration.ofMillis(5)).build().check().build();
        assertThat(c.interval()).isEqualTo(Duration.ofSeconds(1));
        assertThat(c.maxAge()).isEqualTo(Duration.ofSeconds(30));
        assertThat(c.beforeFirstResult()).isEqualTo(STARTING);
    }
}
