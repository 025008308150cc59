package dev.vitals.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.vitals.Check;
import dev.vitals.Groups;
import dev.vitals.HealthListener;
import dev.vitals.HealthRegistry;
import dev.vitals.Status;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.event.SmartApplicationListener;
import org.springframework.core.Ordered;

/**
 * Issue 37: the bridge publishes Spring's availability events on the registry's delivery for
 * application callbacks ({@code vitals-listener-N}), not on a thread of its own and never on the
 * scheduler. A Spring listener that hangs in that publication stops neither probes, nor checks,
 * nor Vitals' other listeners; what the bridge hands over meanwhile is skipped and counted, and
 * the states meet again once it returns.
 */
class HangingSpringListenerTest {

    /** Ordered first, so that Spring's own availability bean is told only after it returns. */
    static final class HangsOnRefusal implements SmartApplicationListener {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final List<String> threads = new CopyOnWriteArrayList<>();

        @Override
        public boolean supportsEventType(Class<? extends ApplicationEvent> eventType) {
            return AvailabilityChangeEvent.class.isAssignableFrom(eventType);
        }

        @Override
        public void onApplicationEvent(ApplicationEvent event) {
            if (event.getSource() instanceof AvailabilityBridge
                    && ((AvailabilityChangeEvent<?>) event).getState() == ReadinessState.REFUSING_TRAFFIC) {
                threads.add(Thread.currentThread().getName());
                entered.countDown();
                try {
                    release.await(120, TimeUnit.SECONDS); // a webhook without a timeout, in an outage
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        @Override
        public int getOrder() {
            return Ordered.HIGHEST_PRECEDENCE;
        }
    }

    @Test
    void aSpringListenerThatHangsStopsNeitherProbesNorChecksNorListeners() throws Exception {
        AtomicBoolean dbUp = new AtomicBoolean(true);
        AtomicInteger told = new AtomicInteger();
        HangsOnRefusal hanging = new HangsOnRefusal();
        ConfigurableApplicationContext ctx = TestApp.builder()
                .property("management.endpoint.health.group.readiness.include=readinessState,db")
                .property("vitals.checks.db.interval=100ms")
                .property("vitals.availability.publish-interval=50ms")
                .property("vitals.shutdown.drain-delay=0s")
                .beans(c -> {
                    c.registerBean("dbHealthIndicator", HealthIndicator.class,
                            () -> () -> dbUp.get() ? Health.up().build() : Health.down().build());
                    c.registerBean("hangsOnRefusal", HangsOnRefusal.class, () -> hanging);
                    c.registerBean("countingListener", HealthListener.class,
                            () -> (Check check, dev.vitals.Health health, boolean timedOut) -> told.incrementAndGet());
                })
                .run();
        HealthRegistry registry = ctx.getBean(HealthRegistry.class);
        ApplicationAvailability spring = ctx.getBean(ApplicationAvailability.class);
        int probes = TestApp.probePort(ctx);
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> registry.report(Groups.READINESS).status() == Status.UP);
            dbUp.set(false);
            assertThat(hanging.entered.await(60, TimeUnit.SECONDS)).as("the bridge published REFUSING_TRAFFIC").isTrue();
            assertThat(hanging.threads.get(0)).as("Spring's listener runs on the listeners' delivery")
                    .startsWith("vitals-listener-");

            // While it hangs: probes answer at once, the check keeps running, Vitals' listener keeps being told.
            int toldThen = told.get();
            long skippedThen = registry.skippedNotifications();
            await().atMost(Duration.ofSeconds(60)).until(() -> told.get() >= toldThen + 20);
            assertThat(TestApp.get(probes, "/readyz", Duration.ofSeconds(5)).statusCode()).isEqualTo(503);
            assertThat(TestApp.get(probes, "/livez", Duration.ofSeconds(5)).statusCode()).isEqualTo(200);
            // Spring has not heard yet (its own bean comes after the hanging listener), so the bridge
            // hands the publication over again at each comparison: skipped while the call hangs.
            assertThat(spring.getReadinessState()).isEqualTo(ReadinessState.ACCEPTING_TRAFFIC);
            await().atMost(Duration.ofSeconds(30)).until(() -> registry.skippedNotifications() > skippedThen);

            hanging.release.countDown();
            await().atMost(Duration.ofSeconds(30)).until(() -> spring.getReadinessState() == ReadinessState.REFUSING_TRAFFIC);
            dbUp.set(true);
            await().atMost(Duration.ofSeconds(30)).until(() -> spring.getReadinessState() == ReadinessState.ACCEPTING_TRAFFIC);
            assertThat(hanging.threads).hasSize(1);
        } finally {
            hanging.release.countDown();
            ctx.close();
        }
    }
}
