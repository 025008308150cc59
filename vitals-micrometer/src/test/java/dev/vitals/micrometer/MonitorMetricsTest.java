package dev.vitals.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.vitals.Check;
import dev.vitals.Health;
import dev.vitals.HealthRegistry;
import dev.vitals.monitor.DeadlockMonitor;
import dev.vitals.monitor.LagMonitor;
import dev.vitals.monitor.ListenerMonitor;
import dev.vitals.monitor.MemoryMonitor;
import dev.vitals.monitor.PauseDetector;
import dev.vitals.monitor.ProgressSource;
import dev.vitals.monitor.ProgressWatchdog;
import dev.vitals.monitor.SaturationMonitor;
import dev.vitals.monitor.SaturationSource;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class MonitorMetricsTest {
    private final CountDownLatch release = new CountDownLatch(1);
    private final ThreadPoolExecutor pool = new ThreadPoolExecutor(2, 2, 1, TimeUnit.MINUTES, new LinkedBlockingQueue<>());
    private final ScheduledExecutorService loop = Executors.newSingleThreadScheduledExecutor();
    private final HealthRegistry registry = HealthRegistry.builder().build();

    @AfterEach
    void tearDown() {
        release.countDown();
        pool.shutdownNow();
        loop.shutdownNow();
        registry.close();
    }

    @Test
    void poolLagAndPauseMetersReadTheMonitorsSnapshots() throws Exception {
        for (int i = 0; i < 3; i++) { // two busy, one queued
            pool.execute(() -> {
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        pool.submit(() -> { }); // queued behind them too
        SaturationMonitor saturation = SaturationMonitor.builder("workers", SaturationSource.of(pool)).build();
        ProgressWatchdog progress = ProgressWatchdog.builder("workers", ProgressSource.of(pool)).build();
        LagMonitor lag = LagMonitor.forScheduler("loop", loop).interval(Duration.ofMillis(50)).build();
        PauseDetector pauses = PauseDetector.builder().interval(Duration.ofMillis(100)).build();

        VitalsMetrics metrics = VitalsMetrics.create(Tags.of("service", "orders"));
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        metrics.bindTo(meters); // monitors added after binding reach it too
        metrics.saturation(saturation).progress(progress).lag(lag).pause(pauses);
        assertThat(meters.get(VitalsMetrics.POOL_BUSY).tags("pool", "workers").gauge().value()).isNaN(); // not sampled yet

        await().atMost(Duration.ofSeconds(10)).until(() -> pool.getActiveCount() == 2);
        saturation.start(registry);
        progress.start(registry);
        lag.start(registry);
        pauses.start(registry);

        assertThat(meters.get(VitalsMetrics.POOL_BUSY).tags("pool", "workers", "service", "orders").gauge().value()).isEqualTo(2.0);
        assertThat(meters.get(VitalsMetrics.POOL_CAPACITY).tags("pool", "workers").gauge().value()).isEqualTo(2.0);
        assertThat(meters.get(VitalsMetrics.POOL_QUEUED).tags("pool", "workers").gauge().value()).isEqualTo(2.0);
        assertThat(meters.get(VitalsMetrics.POOL_SATURATION).tags("pool", "workers").gauge().value()).isEqualTo(1.0);
        assertThat(meters.get(VitalsMetrics.POOL_STALLED).tags("pool", "workers").gauge().value()).isEqualTo(0.0);
        assertThat(meters.get(VitalsMetrics.POOL_COMPLETED).tags("pool", "workers").functionCounter().count()).isEqualTo(0.0);
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(meters.get(VitalsMetrics.POOL_WITHOUT_PROGRESS).tags("pool", "workers").gauge().value()).isGreaterThan(0.0));

        release.countDown();
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            assertThat(meters.get(VitalsMetrics.POOL_COMPLETED).tags("pool", "workers").functionCounter().count()).isEqualTo(4.0);
            assertThat(meters.get(VitalsMetrics.POOL_BUSY).tags("pool", "workers").gauge().value()).isEqualTo(0.0);
        });

        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            assertThat(meters.get(VitalsMetrics.LAG_MAX).tags("pool", "loop").gauge().value()).isGreaterThanOrEqualTo(0.0);
            assertThat(meters.get(VitalsMetrics.PAUSE_MAX).tags("monitor", "pauses").gauge().value()).isGreaterThanOrEqualTo(0.0);
        });
        assertThat(meters.get(VitalsMetrics.LAG_P99).tags("pool", "loop").gauge().value()).isLessThan(5.0);
        assertThat(meters.get(VitalsMetrics.LAG_CURRENT).tags("pool", "loop").gauge().getId().getBaseUnit()).isEqualTo("seconds");

        PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        metrics.bindTo(prometheus);
        String scrape = prometheus.scrape();
        assertThat(scrape).contains("vitals_pool_saturation_ratio{pool=\"workers\",service=\"orders\"}",
                "vitals_pool_completed_tasks_total{pool=\"workers\",service=\"orders\"} 4.0",
                "vitals_pool_busy_units{pool=\"workers\",service=\"orders\"}",
                "vitals_pool_queued_tasks{pool=\"workers\",service=\"orders\"}",
                "vitals_pool_stalled_pools{pool=\"workers\",service=\"orders\"} 0.0",
                "vitals_lag_max_seconds{pool=\"loop\",service=\"orders\"}",
                "vitals_pause_p99_seconds{monitor=\"pauses\",service=\"orders\"}");
        saturation.close();
        progress.close();
        lag.close();
        pauses.close();
    }

    // Issue 17: every meter has a description and a base unit (Micrometer's binders do), and each
    // unit is the unit of the meter's value or what it counts.
    @Test
    void everyMeterHasADescriptionAndTheBaseUnitOfItsValue() {
        Map<String, String> expected = new TreeMap<>(Map.ofEntries(
                Map.entry(VitalsMetrics.CHECK_DURATION, "seconds"),
                Map.entry(VitalsMetrics.CHECK_FAILURES, "failures"),
                Map.entry(VitalsMetrics.CHECK_TIMEOUTS, "timeouts"),
                Map.entry(VitalsMetrics.CHECK_STATUS, "status"),
                Map.entry(VitalsMetrics.GROUP_STATUS, "status"),
                Map.entry(VitalsMetrics.AVAILABILITY_DRAINING, "registries"),
                Map.entry(VitalsMetrics.POOL_SATURATION, "ratio"),
                Map.entry(VitalsMetrics.POOL_BUSY, "units"),
                Map.entry(VitalsMetrics.POOL_CAPACITY, "units"),
                Map.entry(VitalsMetrics.POOL_QUEUED, "tasks"),
                Map.entry(VitalsMetrics.POOL_COMPLETED, "tasks"),
                Map.entry(VitalsMetrics.POOL_STALLED, "pools"),
                Map.entry(VitalsMetrics.POOL_WITHOUT_PROGRESS, "seconds"),
                Map.entry(VitalsMetrics.LAG_CURRENT, "seconds"),
                Map.entry(VitalsMetrics.LAG_MAX, "seconds"),
                Map.entry(VitalsMetrics.LAG_P99, "seconds"),
                Map.entry(VitalsMetrics.PAUSE_MAX, "seconds"),
                Map.entry(VitalsMetrics.PAUSE_P99, "seconds")));
        VitalsMetrics metrics = VitalsMetrics.create();
        HealthRegistry checked = HealthRegistry.builder().listener(metrics)
                .register(Check.builder("db", Health::up).build()).build();
        try {
            metrics.monitor(checked)
                    .saturation(SaturationMonitor.builder("workers", SaturationSource.of(pool)).build())
                    .progress(ProgressWatchdog.builder("workers", ProgressSource.of(pool)).build())
                    .lag(LagMonitor.forScheduler("loop", loop).build())
                    .pause(PauseDetector.builder().build());
            metrics.onExecution(checked.checks().get(0), Health.up(), false); // creates the check's meters
            SimpleMeterRegistry meters = new SimpleMeterRegistry();
            metrics.bindTo(meters);

            Map<String, String> actual = new TreeMap<>();
            for (Meter m : meters.getMeters()) {
                assertThat(m.getId().getDescription()).as(m.getId().getName()).isNotBlank();
                actual.put(m.getId().getName(), m.getId().getBaseUnit());
            }
            assertThat(actual).as("every meter, by name, with its base unit").isEqualTo(expected);
        } finally {
            checked.close();
        }
    }

    @Test
    void oneMethodGivesEveryMonitorKindItsMetersAndAStatus() throws Exception {
        MemoryMonitor memory = MemoryMonitor.builder().build();
        DeadlockMonitor deadlocks = DeadlockMonitor.builder().build();
        try (java.net.ServerSocket listening = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            ListenerMonitor listener = ListenerMonitor.builder("app-port",
                    new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), listening.getLocalPort())).build();
            SaturationMonitor saturation = SaturationMonitor.builder("workers", SaturationSource.of(pool)).build();
            VitalsMetrics metrics = VitalsMetrics.create();
            SimpleMeterRegistry meters = new SimpleMeterRegistry();
            metrics.bindTo(meters);
            for (dev.vitals.monitor.Monitor m : java.util.List.of(memory, deadlocks, listener, saturation)) {
                metrics.monitor(m);
                m.start(registry);
            }
            try {
                // "used after GC" is the heap pools' collection usage: 0 until a collection has run,
                // which a short test JVM with the serial collector may not have done (pom: vitals.testJvmArgs)
                System.gc();
                await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
                    assertThat(meters.get(VitalsMetrics.MEMORY_RATIO).tag("monitor", memory.name()).gauge().value()).isBetween(0.0, 1.0);
                    assertThat(meters.get(VitalsMetrics.MEMORY_USED_AFTER_GC).gauge().value()).isPositive();
                    assertThat(meters.get(VitalsMetrics.DEADLOCKED_THREADS).tag("monitor", deadlocks.name()).gauge().value()).isZero();
                    assertThat(meters.get(VitalsMetrics.LISTENER_ACCEPTED).tag("monitor", "app-port").gauge().value()).isEqualTo(1.0);
                    assertThat(meters.get(VitalsMetrics.LISTENER_CONNECT_TIME).tag("monitor", "app-port").gauge().value()).isNotNaN();
                });
                // Every monitor, whatever its kind, has a status gauge (0 = UP) tagged with its name and kind.
                assertThat(meters.get(VitalsMetrics.MONITOR_STATUS).tag("monitor", "app-port").tag("kind", "listener").gauge().value()).isZero();
                assertThat(meters.get(VitalsMetrics.MONITOR_STATUS).tag("monitor", "workers").tag("kind", "saturation").gauge().value()).isZero();
                assertThat(meters.find(VitalsMetrics.MONITOR_STATUS).gauges()).hasSize(4);
                // Issue 17: the meters of every monitor kind carry a description and a base unit too.
                for (Meter meter : meters.getMeters()) {
                    assertThat(meter.getId().getDescription()).as(meter.getId().getName()).isNotBlank();
                    assertThat(meter.getId().getBaseUnit()).as(meter.getId().getName()).isNotBlank();
                }
                assertThat(meters.get(VitalsMetrics.MEMORY_RATIO).gauge().getId().getBaseUnit()).isEqualTo("ratio");
                assertThat(meters.get(VitalsMetrics.MONITOR_STATUS).tag("kind", "listener").gauge().getId().getBaseUnit())
                        .isEqualTo("status");
                assertThat(meters.get(VitalsMetrics.POOL_CAPACITY).tag("pool", "workers").gauge().value()).isEqualTo(2.0);
            } finally {
                for (dev.vitals.monitor.Monitor m : java.util.List.of(memory, deadlocks, listener, saturation)) {
                    m.close();
                }
            }
        }
    }
}
