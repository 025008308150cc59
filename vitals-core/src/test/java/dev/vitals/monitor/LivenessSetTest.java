package dev.vitals.monitor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.vitals.Check;
import dev.vitals.Groups;
import dev.vitals.HealthRegistry;
import dev.vitals.Report;
import dev.vitals.Status;
import dev.vitals.testing.ManualScheduler;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The default liveness set holds exactly what its documentation lists. */
class LivenessSetTest {
    private final Fixtures fx = new Fixtures();
    private final ManualScheduler scheduler = new ManualScheduler();

    @AfterEach
    void close() throws Exception {
        fx.close();
    }

    @Test
    void holdsDeadlockTheWatchdogsAndLagMonitorsAllInLiveness() {
        ProgressWatchdog a = ProgressWatchdog.builder("workers", () -> ProgressSnapshot.of(0, 0, 0)).build();
        LagMonitor loop = LagMonitor.forExecutor("event-loop", Runnable::run).build();
        LivenessSet set = LivenessSet.builder().watchdog(a).lag(loop).deadlockInterval(Duration.ofSeconds(5)).build();
        assertThat(set.monitors()).extracting(Monitor::name).containsExactly("deadlock", "workers", "event-loop");
        assertThat(set.checks()).extracting(Check::name).containsExactly("deadlock", "workers", "event-loop");
        for (Check c : set.checks()) {
            assertThat(c.groups()).containsExactly(Groups.LIVENESS);
            assertThat(c.critical()).isTrue();
        }
        assertThat(set.monitors().get(0).interval()).isEqualTo(Duration.ofSeconds(5));
        assertThat(LivenessSet.of().monitors()).extracting(Monitor::name).containsExactly("deadlock");
    }

    @Test
    void applicationMarkedBrokenStateFailsTheSameLivenessGroup() {
        LivenessSet set = fx.track(LivenessSet.of(ProgressWatchdog.builder("workers",
                () -> ProgressSnapshot.of(0, 0, 0)).build()));
        HealthRegistry registry = fx.track(set.registerAll(HealthRegistry.builder()
                .clock(scheduler.clock()).scheduler(scheduler)).build());
        set.start(registry);
        registry.start();
        Report up = Fixtures.awaitStatus(registry, scheduler, Groups.LIVENESS, Status.UP);
        assertThat(up.checks()).containsOnlyKeys("deadlock", "workers", "availability");

        registry.availability().markBroken("cache corrupted");
        Report down = registry.report(Groups.LIVENESS);
        assertThat(down.status()).isEqualTo(Status.DOWN);
        assertThat(down.checks().get("availability").status()).isEqualTo(Status.DOWN);
        registry.availability().markCorrect();
        assertThat(registry.report(Groups.LIVENESS).status()).isEqualTo(Status.UP);

        registry.close();
        assertThat(scheduler.pending()).as("monitors stop with their scheduler").isLessThanOrEqualTo(3);
    }

    @Test
    void rejectsTwoMonitorsWithOneName() {
        ProgressWatchdog a = ProgressWatchdog.builder("deadlock", () -> ProgressSnapshot.of(0, 0, 0)).build();
        assertThatIllegalArgumentException().isThrownBy(() -> LivenessSet.of(a))
                .withMessage("liveness set: two monitors are named 'deadlock'");
    }
}
