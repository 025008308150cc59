package dev.vitals.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.vitals.Check;
import dev.vitals.Health;
import dev.vitals.HealthListener;
import dev.vitals.HealthRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 40's field report: a listener that hangs on two checks (a webhook without a timeout in an
 * outage) held both delivery threads, and the metrics listener then received 3 of 78 notices. Now
 * the real {@link VitalsMetrics} is delivered apart from the application's listeners: its timer
 * counts every execution of both checks while two application listeners hang.
 */
class MetricsBesideHangingListenersTest {
    private final CountDownLatch release = new CountDownLatch(1);
    private HealthRegistry health;

    @AfterEach
    void tearDown() {
        release.countDown();
        if (health != null) {
            health.close();
        }
    }

    @Test
    void hangingListenersLeaveTheMetricsListenersCountsComplete() {
        AtomicInteger aRuns = new AtomicInteger();
        AtomicInteger bRuns = new AtomicInteger();
        HealthListener webhook = (check, h, timedOut) -> {
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
        VitalsMetrics metrics = VitalsMetrics.create();
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        health = HealthRegistry.builder()
                .listener(webhook).listener(webhook::onExecution).listener(metrics)
                .register(Check.builder("a", () -> {
                    aRuns.incrementAndGet();
                    return Health.up();
                }).interval(Duration.ofMillis(50)).build())
                .register(Check.builder("b", () -> {
                    bRuns.incrementAndGet();
                    return Health.down("outage");
                }).interval(Duration.ofMillis(50)).build())
                .build();
        metrics.monitor(health).bindTo(meters);
        health.start();

        await().atMost(Duration.ofSeconds(60)).until(() -> aRuns.get() >= 78 && bRuns.get() >= 78);
        // Complete: at some instant every execution that ran has been counted (the counters can
        // trail a run by the moment between its start and its notice, never by a lost notice).
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(5)).until(() -> {
            int a = aRuns.get();
            int b = bRuns.get();
            return meters.get(VitalsMetrics.CHECK_DURATION).tag("check", "a").timer().count() == a
                    && meters.get(VitalsMetrics.CHECK_FAILURES).tag("check", "b").counter().count() == b
                    && aRuns.get() == a && bRuns.get() == b;
        });
        assertThat(health.skippedNotifications()).as("the hanging listeners' notices were skipped").isPositive();
    }
}
