package dev.vitals.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.vitals.Check;
import dev.vitals.Groups;
import dev.vitals.Health;
import dev.vitals.HealthRegistry;
import dev.vitals.Mode;
import dev.vitals.Report;
import dev.vitals.Status;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class VitalsMetricsTest {
    private final CountDownLatch release = new CountDownLatch(1);
    private final AtomicReference<Status> dbStatus = new AtomicReference<>(Status.UP);
    private HealthRegistry health;

    @AfterEach
    void tearDown() {
        release.countDown();
        if (health != null) {
            health.close();
        }
    }

    /** db: settable, 30 ms; cache: throws, non-critical; stuck: never returns, 100 ms timeout. TTLs 1 ms. */
    private HealthRegistry build(VitalsMetrics metrics) {
        health = HealthRegistry.builder()
                .group("dashboard")
                .register(Check.builder("db", () -> {
                    Thread.sleep(30);
                    return Health.builder(dbStatus.get()).build();
                }).groups(Groups.READINESS, "dashboard").mode(Mode.ON_DEMAND).ttl(Duration.ofMillis(1)).build())
                .register(Check.builder("cache", () -> {
                    throw new IOException("connection refused");
                }).groups(Groups.READINESS).critical(false).mode(Mode.ON_DEMAND).ttl(Duration.ofMillis(1)).build())
                .register(Check.builder("stuck", () -> {
                    release.await();
                    return Health.up();
                }).groups(Groups.LIVENESS).mode(Mode.ON_DEMAND).timeout(Duration.ofMillis(100)).ttl(Duration.ofMillis(1)).build())
                .listener(metrics)
                .build();
        health.start();
        return health;
    }

    /**
     * Listeners are told off the engine's threads (DESIGN §5): a meter may move a moment after the
     * evaluation's future completes, so assertions on meters after an evaluation wait for it.
     */
    private static void eventually(org.awaitility.core.ThrowingRunnable assertion) {
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(10)).untilAsserted(assertion);
    }

    private static Report evaluate(HealthRegistry r, String group) throws Exception {
        return r.evaluate(group).get(10, TimeUnit.SECONDS);
    }

    @Test
    void metersHaveDocumentedNamesTagsAndValues() throws Exception {
        VitalsMetrics metrics = VitalsMetrics.create(Tags.of("service", "orders"));
        HealthRegistry r = build(metrics);
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        metrics.monitor(r).bindTo(meters);

        // Registered up front, at zero, before any execution.
        assertThat(meters.get(VitalsMetrics.CHECK_FAILURES).tags("check", "db", "service", "orders").counter().count())
                .isZero();
        assertThat(meters.get(VitalsMetrics.CHECK_DURATION).tags("check", "stuck").timer().count()).isZero();
        assertThat(meters.get(VitalsMetrics.CHECK_STATUS).tags("check", "db").gauge().value()).isEqualTo(3.0); // UNKNOWN

        evaluate(r, Groups.READINESS);
        evaluate(r, Groups.LIVENESS);

        eventually(() -> {
            Timer db = meters.get(VitalsMetrics.CHECK_DURATION).tags("check", "db", "service", "orders").timer();
            assertThat(db.count()).isEqualTo(1);
            assertThat(db.totalTime(TimeUnit.MILLISECONDS)).isGreaterThanOrEqualTo(25.0);
            assertThat(db.getId().getDescription()).isNotBlank();
            assertThat(meters.get(VitalsMetrics.CHECK_FAILURES).tags("check", "db").counter().count()).isZero();
            assertThat(meters.get(VitalsMetrics.CHECK_FAILURES).tags("check", "cache").counter().count()).isEqualTo(1);
            assertThat(meters.get(VitalsMetrics.CHECK_TIMEOUTS).tags("check", "cache").counter().count()).isZero();
            assertThat(meters.get(VitalsMetrics.CHECK_TIMEOUTS).tags("check", "stuck").counter().count()).isEqualTo(1);
            assertThat(meters.get(VitalsMetrics.CHECK_FAILURES).tags("check", "stuck").counter().count()).isEqualTo(1);
            // A timed-out execution has no duration to record.
            assertThat(meters.get(VitalsMetrics.CHECK_DURATION).tags("check", "stuck").timer().count()).isZero();

            assertThat(meters.get(VitalsMetrics.CHECK_STATUS).tags("check", "db").gauge().value()).isEqualTo(0.0);
            assertThat(meters.get(VitalsMetrics.CHECK_STATUS).tags("check", "cache").gauge().value()).isEqualTo(2.0);
            assertThat(meters.get(VitalsMetrics.CHECK_STATUS).tags("check", "stuck").gauge().value()).isEqualTo(2.0);
            // readiness: db UP (critical), cache DOWN (non-critical) -> DEGRADED
            assertThat(meters.get(VitalsMetrics.GROUP_STATUS).tags("group", "readiness").gauge().value()).isEqualTo(1.0);
            assertThat(meters.get(VitalsMetrics.GROUP_STATUS).tags("group", "liveness").gauge().value()).isEqualTo(2.0);
            assertThat(meters.get(VitalsMetrics.GROUP_STATUS).tags("group", "dashboard").gauge().value()).isEqualTo(0.0);
        });

        // The status gauge follows the check.
        dbStatus.set(Status.DEGRADED);
        Thread.sleep(5); // past the 1 ms ttl
        evaluate(r, "dashboard");
        eventually(() -> {
            assertThat(meters.get(VitalsMetrics.CHECK_STATUS).tags("check", "db").gauge().value()).isEqualTo(1.0);
            assertThat(meters.get(VitalsMetrics.CHECK_DURATION).tags("check", "db").timer().count()).isEqualTo(2);
        });

        // Every meter carries the common tag and a description.
        for (Meter m : meters.getMeters()) {
            assertThat(m.getId().getTag("service")).as(m.getId().toString()).isEqualTo("orders");
            assertThat(m.getId().getDescription()).as(m.getId().toString()).isNotBlank();
        }
    }

    @Test
    void hungCheckCountsATimeoutPerReportedTimeout() throws Exception {
        VitalsMetrics metrics = VitalsMetrics.create();
        HealthRegistry r = build(metrics);
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        metrics.monitor(r).bindTo(meters);
        for (int i = 0; i < 3; i++) {
            assertThat(evaluate(r, Groups.LIVENESS).checks().get("stuck").status()).isEqualTo(Status.DOWN);
            Thread.sleep(5); // past the 1 ms ttl, so the next evaluation finds the execution still hung
        }
        // Single flight: one execution, but three timed-out results reported.
        eventually(() -> {
            assertThat(meters.get(VitalsMetrics.CHECK_TIMEOUTS).tags("check", "stuck").counter().count()).isEqualTo(3);
        });
    }

    @Test
    void listenerMetersWorkWithoutMonitoredRegistryAndAcrossSeveralMeterRegistries() throws Exception {
        VitalsMetrics metrics = VitalsMetrics.create();
        SimpleMeterRegistry first = new SimpleMeterRegistry();
        SimpleMeterRegistry second = new SimpleMeterRegistry();
        metrics.bindTo(first);
        metrics.bindTo(first); // no duplicate
        HealthRegistry r = build(metrics);
        evaluate(r, Groups.READINESS);
        eventually(() -> {
            assertThat(first.get(VitalsMetrics.CHECK_FAILURES).tags("check", "cache").counter().count()).isEqualTo(1);
            assertThat(first.find(VitalsMetrics.CHECK_STATUS).gauges()).isEmpty();
        });

        metrics.bindTo(second);
        metrics.monitor(r); // gauges reach the registries bound before
        assertThat(first.get(VitalsMetrics.CHECK_STATUS).tags("check", "cache").gauge().value()).isEqualTo(2.0);
        assertThat(second.get(VitalsMetrics.CHECK_STATUS).tags("check", "cache").gauge().value()).isEqualTo(2.0);
        Thread.sleep(5);
        evaluate(r, Groups.READINESS);
        eventually(() -> {
            assertThat(first.get(VitalsMetrics.CHECK_FAILURES).tags("check", "cache").counter().count()).isEqualTo(2);
            assertThat(second.get(VitalsMetrics.CHECK_FAILURES).tags("check", "cache").counter().count()).isEqualTo(1);
        });
    }

    @Test
    void gaugesReadNaNOnceTheRegistryIsClosed() throws Exception {
        VitalsMetrics metrics = VitalsMetrics.create();
        HealthRegistry r = build(metrics);
        MeterRegistry meters = new SimpleMeterRegistry();
        metrics.monitor(r).bindTo(meters);
        evaluate(r, Groups.READINESS);
        r.close();
        assertThat(meters.get(VitalsMetrics.CHECK_STATUS).tags("check", "db").gauge().value()).isNaN();
        assertThat(meters.get(VitalsMetrics.GROUP_STATUS).tags("group", "readiness").gauge().value()).isNaN();
    }

    @Test
    void scheduledChecksFeedTheMetersToo() {
        VitalsMetrics metrics = VitalsMetrics.create();
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        health = HealthRegistry.builder()
                .register(Check.builder("ping", Health::up).groups(Groups.LIVENESS).interval(Duration.ofMillis(50)).build())
                .listener(metrics)
                .build();
        metrics.monitor(health).bindTo(meters);
        health.start();
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(meters.get(VitalsMetrics.CHECK_DURATION).tags("check", "ping").timer().count()).isGreaterThanOrEqualTo(3));
        assertThat(meters.get(VitalsMetrics.GROUP_STATUS).tags("group", "liveness").gauge().value()).isEqualTo(0.0);
        assertThat(meters.get(VitalsMetrics.AVAILABILITY_DRAINING).gauge().value()).isEqualTo(0.0);
        health.availability().drain(Duration.ofMinutes(1));
        assertThat(meters.get(VitalsMetrics.AVAILABILITY_DRAINING).gauge().value()).as("draining").isEqualTo(1.0);
    }

    @Test
    void prometheusScrapeContainsTheMeters() throws Exception {
        VitalsMetrics metrics = VitalsMetrics.create(Tags.of("service", "orders"));
        HealthRegistry r = build(metrics);
        PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        metrics.monitor(r).bindTo(prometheus);
        evaluate(r, Groups.READINESS);
        evaluate(r, Groups.LIVENESS);

        eventually(() -> {
            String scrape = prometheus.scrape();
            List<String> lines = scrape.lines().filter(l -> l.startsWith("vitals_")).collect(Collectors.toList());
            assertThat(lines).contains(
                    "vitals_check_duration_seconds_count{check=\"db\",service=\"orders\"} 1",
                    "vitals_check_failures_total{check=\"cache\",service=\"orders\"} 1.0",
                    "vitals_check_timeouts_total{check=\"stuck\",service=\"orders\"} 1.0",
                    "vitals_check_status{check=\"cache\",service=\"orders\"} 2.0",
                    "vitals_group_status{group=\"readiness\",service=\"orders\"} 1.0",
                    "vitals_group_status{group=\"liveness\",service=\"orders\"} 2.0");
            assertThat(scrape).contains("# TYPE vitals_check_duration_seconds summary",
                    "# TYPE vitals_check_failures_total counter", "# TYPE vitals_check_status gauge",
                    "# HELP vitals_check_status Current status of the check");
        });
    }

    @Test
    void rejectsReservedTagsAndASecondRegistry() {
        assertThatThrownBy(() -> VitalsMetrics.create(Tags.of("check", "x")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'check' is reserved");
        assertThatThrownBy(() -> VitalsMetrics.create(Tags.of("group", "x")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'group' is reserved");
        VitalsMetrics metrics = VitalsMetrics.create();
        HealthRegistry r = build(metrics);
        metrics.monitor(r);
        metrics.monitor(r); // same registry: fine
        try (HealthRegistry other = HealthRegistry.builder().build()) {
            assertThatThrownBy(() -> metrics.monitor(other))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("another health registry");
        }
        assertThat(VitalsMetrics.statusValue(Status.UP)).isZero();
        assertThat(VitalsMetrics.statusValue(Status.UNKNOWN)).isEqualTo(3.0);
    }
}
