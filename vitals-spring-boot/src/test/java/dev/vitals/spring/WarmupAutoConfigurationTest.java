package dev.vitals.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.vitals.Warmup;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

/** {@code vitals.warmup.*}: readiness waits for the application's warm-up routine. */
class WarmupAutoConfigurationTest {

    @Test
    void readinessIsDownUntilTheRoutineHasRun() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        VitalsWarmupRoutine routine = () -> release.await(60, TimeUnit.SECONDS);
        try (ConfigurableApplicationContext ctx = TestApp.builder()
                .property("vitals.warmup.enabled=true")
                .property("vitals.warmup.max-wait=5m")
                .beans(c -> c.registerBean(VitalsWarmupRoutine.class, () -> routine))
                .run()) {
            int probe = TestApp.probePort(ctx);
            await().atMost(Duration.ofSeconds(20)).until(() -> TestApp.get(probe, "/livez", Duration.ofSeconds(5)).statusCode() == 200);
            assertThat(TestApp.get(probe, "/readyz", Duration.ofSeconds(5)).statusCode()).isEqualTo(503);
            assertThat(ctx.getBean(Warmup.class).warm()).isFalse();
            release.countDown();
            await().atMost(Duration.ofSeconds(30)).until(() -> TestApp.get(probe, "/readyz", Duration.ofSeconds(5)).statusCode() == 200);
            assertThat(ctx.getBean(Warmup.class).warm()).isTrue();
        }
    }

    @Test
    void offByDefault() {
        try (ConfigurableApplicationContext ctx = TestApp.builder().run()) {
            assertThat(ctx.getBeanNamesForType(Warmup.class)).isEmpty();
        }
    }
}
