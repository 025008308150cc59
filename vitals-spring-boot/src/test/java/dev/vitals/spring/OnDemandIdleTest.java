package dev.vitals.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * On-demand means on demand (issue 13, DESIGN.md P6): an idle application with on-demand
 * indicators runs none of them, however often the availability bridge compares states; Spring's
 * readiness follows the evaluations someone asked for.
 */
class OnDemandIdleTest {

    @Test
    void idleOnDemandApplicationRunsNoIndicatorAndPublishesWhatAProbeFound() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        AtomicBoolean dbUp = new AtomicBoolean(true);
        ConfigurableApplicationContext ctx = TestApp.builder()
                .property("management.endpoint.health.group.readiness.include=readinessState,synthetic")
                .property("vitals.defaults.mode=on-demand")
                .property("vitals.availability.publish-interval=10ms")
                .beans(c -> c.registerBean("syntheticHealthContributor", HealthContributor.class, () -> {
                    Map<String, HealthContributor> m = new LinkedHashMap<>();
                    for (int i = 0; i < 10; i++) {
                        int n = i;
                        m.put(Integer.toString(i), (HealthIndicator) () -> {
                            calls.incrementAndGet();
                            return n == 0 && !dbUp.get() ? Health.down().build() : Health.up().build();
                        });
                    }
                    return CompositeHealthContributor.fromMap(m);
                }))
                .run();
        try {
            ApplicationAvailability spring = ctx.getBean(ApplicationAvailability.class);
            int probe = TestApp.probePort(ctx);
            await().atMost(Duration.ofSeconds(30)).until(() -> spring.getReadinessState() == ReadinessState.ACCEPTING_TRAFFIC);

            Thread.sleep(3_000); // idle: 300 publish intervals, nobody probing
            assertThat(calls.get()).as("indicator executions while idle").isZero();
            assertThat(spring.getReadinessState()).isEqualTo(ReadinessState.ACCEPTING_TRAFFIC);

            dbUp.set(false);
            Thread.sleep(500); // still nobody asked: Spring's state stays, nothing runs
            assertThat(calls.get()).isZero();
            assertThat(spring.getReadinessState()).isEqualTo(ReadinessState.ACCEPTING_TRAFFIC);

            assertThat(TestApp.get(probe, "/readyz?verbose", Duration.ofSeconds(10)).statusCode()).isEqualTo(503);
            assertThat(calls.get()).isEqualTo(10);
            await().atMost(Duration.ofSeconds(10)).until(() -> spring.getReadinessState() == ReadinessState.REFUSING_TRAFFIC);

            dbUp.set(true);
            Thread.sleep(1_100); // past the 1 s ttl: the next probe runs the indicators again
            assertThat(TestApp.get(probe, "/readyz", Duration.ofSeconds(10)).statusCode()).isEqualTo(200);
            await().atMost(Duration.ofSeconds(10)).until(() -> spring.getReadinessState() == ReadinessState.ACCEPTING_TRAFFIC);
            assertThat(calls.get()).isEqualTo(20);
        } finally {
            ctx.close();
        }
    }
}
