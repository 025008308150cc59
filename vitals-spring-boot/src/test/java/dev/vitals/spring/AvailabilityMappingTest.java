package dev.vitals.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.vitals.Availability;
import dev.vitals.Groups;
import dev.vitals.HealthRegistry;
import dev.vitals.Report;
import dev.vitals.Status;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.LivenessState;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.ConfigurableApplicationContext;

/** Spring's availability states and Vitals' kept in step both ways; drain on context close. */
class AvailabilityMappingTest {

    @Test
    void statesMapBothWaysAndCloseDrainsReadinessFirst() throws Exception {
        AtomicBoolean dbUp = new AtomicBoolean(true);
        AtomicReference<Report> readinessDuringStartup = new AtomicReference<>();
        AtomicReference<Report> startupDuringStartup = new AtomicReference<>();
        ConfigurableApplicationContext ctx = TestApp.builder()
                .property("management.endpoint.health.group.readiness.include=readinessState,db")
                .property("vitals.checks.db.interval=100ms")
                .property("vitals.availability.publish-interval=50ms")
                .property("vitals.shutdown.drain-delay=1500ms")
                .beans(c -> {
                    c.registerBean("dbHealthIndicator", HealthIndicator.class,
                            () -> () -> dbUp.get() ? Health.up().build() : Health.down().withDetail("reason", "test").build());
                    // Runs after refresh, before Spring publishes ACCEPTING_TRAFFIC.
                    c.registerBean("captureStartup", ApplicationRunner.class, () -> args -> {
                        HealthRegistry r = c.getBean(HealthRegistry.class);
                        readinessDuringStartup.set(r.report(Groups.READINESS));
                        startupDuringStartup.set(r.report(Groups.STARTUP));
                    });
                })
                .run();
        HealthRegistry registry = ctx.getBean(HealthRegistry.class);
        ApplicationAvailability spring = ctx.getBean(ApplicationAvailability.class);
        int probes = TestApp.probePort(ctx);
        try {
            // Start-up: Vitals stays "starting" until Spring says the application is ready.
            assertThat(readinessDuringStartup.get().status()).isEqualTo(Status.DOWN);
            assertThat(readinessDuringStartup.get().checks().get(Availability.CHECK_NAME).message()).hasValue("starting");
            assertThat(startupDuringStartup.get().status()).isEqualTo(Status.DOWN);
            assertThat(registry.availability().isStartupComplete()).isTrue();
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(registry.report(Groups.READINESS).status()).isEqualTo(Status.UP));
            assertThat(TestApp.get(probes, "/startupz", Duration.ofSeconds(5)).statusCode()).isEqualTo(200);

            // Spring -> Vitals.
            AvailabilityChangeEvent.publish(ctx, LivenessState.BROKEN);
            assertThat(registry.report(Groups.LIVENESS).status()).isEqualTo(Status.DOWN);
            assertThat(TestApp.get(probes, "/livez", Duration.ofSeconds(5)).statusCode()).isEqualTo(503);
            AvailabilityChangeEvent.publish(ctx, LivenessState.CORRECT);
            assertThat(registry.report(Groups.LIVENESS).status()).isEqualTo(Status.UP);
            AvailabilityChangeEvent.publish(ctx, ReadinessState.REFUSING_TRAFFIC);
            assertThat(registry.report(Groups.READINESS).checks().get(Availability.CHECK_NAME).message())
                    .hasValueSatisfying(m -> assertThat(m).contains("refusing traffic"));
            assertThat(TestApp.get(probes, "/readyz", Duration.ofSeconds(5)).statusCode()).isEqualTo(503);
            AvailabilityChangeEvent.publish(ctx, ReadinessState.ACCEPTING_TRAFFIC);
            assertThat(registry.report(Groups.READINESS).status()).isEqualTo(Status.UP);

            // Vitals -> Spring: the application marks itself broken through Vitals.
            registry.availability().markBroken("cache corrupted");
            await().atMost(Duration.ofSeconds(10)).until(() -> spring.getLivenessState() == LivenessState.BROKEN);
            assertThat(TestApp.get(TestApp.port(ctx), "/actuator/health/liveness", Duration.ofSeconds(5)).statusCode()).isEqualTo(503);
            registry.availability().markCorrect();
            await().atMost(Duration.ofSeconds(10)).until(() -> spring.getLivenessState() == LivenessState.CORRECT);

            // Vitals -> Spring: a failing readiness check refuses traffic in Spring, and recovering
            // accepts it again (the bridge's own events are not fed back into Vitals).
            dbUp.set(false);
            await().atMost(Duration.ofSeconds(10)).until(() -> spring.getReadinessState() == ReadinessState.REFUSING_TRAFFIC);
            assertThat(registry.report(Groups.READINESS).checks().get(Availability.CHECK_NAME).status()).isEqualTo(Status.UP);
            dbUp.set(true);
            await().atMost(Duration.ofSeconds(10)).until(() -> spring.getReadinessState() == ReadinessState.ACCEPTING_TRAFFIC);
            assertThat(registry.report(Groups.READINESS).status()).isEqualTo(Status.UP);

            // Close: readiness DOWN "draining" while liveness stays UP and probes still answer,
            // for the drain delay; then the context goes on closing.
            long t0 = System.nanoTime();
            CompletableFuture<Void> closing = CompletableFuture.runAsync(ctx::close);
            await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20))
                    .until(() -> registry.availability().isDraining());
            assertThat(TestApp.get(probes, "/readyz", Duration.ofSeconds(1)).statusCode()).isEqualTo(503);
            assertThat(TestApp.get(probes, "/livez", Duration.ofSeconds(1)).statusCode()).isEqualTo(200);
            assertThat(registry.report(Groups.READINESS).checks().get(Availability.CHECK_NAME).message())
                    .hasValueSatisfying(m -> assertThat(m).startsWith("draining"));
            assertThat(closing).isNotDone();
            closing.get(30, TimeUnit.SECONDS);
            long closeMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            System.out.println("context close with a 1500 ms drain took " + closeMillis + " ms");
            assertThat(closeMillis).isGreaterThanOrEqualTo(1_400);
            assertThatThrownBy(() -> registry.report(Groups.LIVENESS)).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> TestApp.get(probes, "/livez", Duration.ofSeconds(1))).isInstanceOf(java.io.IOException.class);
        } finally {
            ctx.close();
        }
    }

    @Test
    void mappingCanBeTurnedOff() throws Exception {
        try (ConfigurableApplicationContext ctx = TestApp.builder()
                .property("vitals.availability.map-spring-states=false")
                .run()) {
            HealthRegistry registry = ctx.getBean(HealthRegistry.class);
            // Automatic startup completion: no startup checks, so complete at once.
            assertThat(registry.availability().isStartupComplete()).isTrue();
            AvailabilityChangeEvent.publish(ctx, LivenessState.BROKEN);
            assertThat(registry.report(Groups.LIVENESS).status()).isEqualTo(Status.UP);
        }
    }
}
