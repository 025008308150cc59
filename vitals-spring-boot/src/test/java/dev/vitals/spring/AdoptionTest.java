package dev.vitals.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vitals.Check;
import dev.vitals.Groups;
import dev.vitals.HealthRegistry;
import dev.vitals.Mode;
import dev.vitals.Report;
import dev.vitals.Status;
import dev.vitals.micrometer.VitalsMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.ReactiveHealthIndicator;
import org.springframework.context.ConfigurableApplicationContext;
import reactor.core.publisher.Mono;

/** Which beans become which checks, in which groups, with which settings; and the meters they feed. */
class AdoptionTest {

    @Test
    void adoptsIndicatorsCompositesAndReactiveIndicatorsWithNamesGroupsAndSettings() throws Exception {
        try (ConfigurableApplicationContext ctx = TestApp.builder()
                .property("management.endpoint.health.group.readiness.include=readinessState,db,reactive")
                .property("management.endpoint.health.group.dashboard.include=db/primary,cache")
                .property("management.endpoint.health.group.liveness.include=livenessState,cache")
                .property("management.endpoints.web.exposure.include=health,prometheus")
                .property("vitals.exclude=ignored")
                .property("vitals.defaults.timeout=700ms")
                .property("vitals.defaults.mode=on-demand")
                .property("vitals.checks[db/replica].critical=false")
                .property("vitals.checks[db/replica].timeout=300ms")
                .property("vitals.checks.cache.mode=scheduled")
                .property("vitals.checks.cache.interval=5s")
                .property("vitals.checks.cache.groups=readiness")
                .beans(c -> {
                    Map<String, HealthContributor> dbs = new LinkedHashMap<>();
                    dbs.put("primary", (HealthIndicator) () -> Health.up().withDetail("database", "H2").build());
                    dbs.put("replica", (HealthIndicator) () -> Health.down(new java.io.IOException("replica lag")).build());
                    c.registerBean("dbHealthContributor", HealthContributor.class, () -> CompositeHealthContributor.fromMap(dbs));
                    c.registerBean("cacheHealthIndicator", HealthIndicator.class, () -> () -> Health.outOfService().build());
                    c.registerBean("ignoredHealthIndicator", HealthIndicator.class, () -> () -> Health.up().build());
                    c.registerBean("reactiveHealthIndicator", ReactiveHealthIndicator.class,
                            () -> () -> Mono.just(Health.status("WARMING").build()));
                    c.registerBean("ownCheck", Check.class, () -> Check.builder("own", dev.vitals.Health::up)
                            .groups(Groups.LIVENESS).build());
                    c.registerBean("customizer", VitalsCustomizer.class, () -> b -> b.group("extra")
                            .register(Check.builder("custom", dev.vitals.Health::up).groups("extra").build()));
                })
                .run()) {
            HealthRegistry registry = ctx.getBean(HealthRegistry.class);
            Map<String, Check> checks = new LinkedHashMap<>();
            registry.checks().forEach(c -> checks.put(c.name(), c));

            assertThat(checks).containsKeys("db.primary", "db.replica", "cache", "reactive", "ping", "own", "custom")
                    .doesNotContainKeys("ignored", "livenessState", "readinessState", "db");
            // Spring group membership kept; composite children follow their parent's inclusion.
            assertThat(checks.get("db.primary").groups()).containsExactlyInAnyOrder("health", Groups.READINESS, "dashboard");
            assertThat(checks.get("db.replica").groups()).containsExactlyInAnyOrder("health", Groups.READINESS);
            assertThat(checks.get("reactive").groups()).containsExactlyInAnyOrder("health", Groups.READINESS);
            assertThat(checks.get("ping").groups()).containsExactly("health");
            // vitals.checks.cache.groups replaces Spring's (liveness, dashboard).
            assertThat(checks.get("cache").groups()).containsExactly(Groups.READINESS);
            assertThat(registry.groups()).contains("health", "dashboard", "extra");

            // Settings: defaults, then per check (by Spring name with a slash, or by check name).
            assertThat(checks.get("db.primary").timeout()).isEqualTo(Duration.ofMillis(700));
            assertThat(checks.get("db.primary").mode()).isEqualTo(Mode.ON_DEMAND);
            assertThat(checks.get("db.primary").critical()).isTrue();
            assertThat(checks.get("db.replica").timeout()).isEqualTo(Duration.ofMillis(300));
            assertThat(checks.get("db.replica").critical()).isFalse();
            assertThat(checks.get("cache").mode()).isEqualTo(Mode.SCHEDULED);
            assertThat(checks.get("cache").interval()).isEqualTo(Duration.ofSeconds(5));
            assertThat(checks.get("own").mode()).isEqualTo(Mode.SCHEDULED);

            // Spring results converted.
            Report dashboard = registry.evaluate("dashboard").get(10, TimeUnit.SECONDS);
            assertThat(dashboard.checks().get("db.primary").status()).isEqualTo(Status.UP);
            assertThat(dashboard.checks().get("db.primary").details()).containsEntry("database", "H2");
            Report health = registry.evaluate("health").get(10, TimeUnit.SECONDS);
            assertThat(health.checks().get("db.replica").status()).isEqualTo(Status.DOWN);
            assertThat(health.checks().get("db.replica").errorType()).hasValue("java.io.IOException");
            assertThat(health.checks().get("reactive").status()).isEqualTo(Status.DEGRADED);
            assertThat(health.checks().get("reactive").message()).hasValue("Spring status WARMING");
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                    assertThat(registry.report(Groups.READINESS).checks().get("cache").status()).isEqualTo(Status.DOWN));
            assertThat(registry.report(Groups.READINESS).checks().get("cache").message()).hasValue("Spring status OUT_OF_SERVICE");

            // Micrometer: the application's MeterRegistry has Vitals' meters; Prometheus scrapes them.
            MeterRegistry meters = ctx.getBean(MeterRegistry.class);
            assertThat(meters.get(VitalsMetrics.CHECK_DURATION).tags("check", "db.primary").timer().count()).isGreaterThanOrEqualTo(1);
            assertThat(meters.get(VitalsMetrics.CHECK_FAILURES).tags("check", "db.replica").counter().count()).isGreaterThanOrEqualTo(1);
            assertThat(meters.get(VitalsMetrics.CHECK_STATUS).tags("check", "cache").gauge().value()).isEqualTo(2.0);
            HttpResponse<String> scrape = TestApp.get(TestApp.port(ctx), "/actuator/prometheus", Duration.ofSeconds(10));
            assertThat(scrape.statusCode()).isEqualTo(200);
            assertThat(scrape.body()).contains("vitals_check_duration_seconds_count{check=\"db.primary\"",
                    "vitals_check_failures_total{check=\"db.replica\"", "vitals_check_status{check=\"cache\"",
                    "vitals_group_status{group=\"readiness\"");

            // The probe server reports the adopted checks by their Vitals names.
            HttpResponse<String> verbose = TestApp.get(TestApp.probePort(ctx), "/readyz?verbose", Duration.ofSeconds(10));
            assertThat(verbose.body()).contains("db.primary", "db.replica", "reactive", "cache");
        }
    }

    @Test
    void adoptionCanBeTurnedOffAndBadSettingsFailAtStartupNamingTheCheck() {
        try (ConfigurableApplicationContext ctx = TestApp.builder().property("vitals.adopt-indicators=false").run()) {
            assertThat(ctx.getBean(HealthRegistry.class).checks()).extracting(Check::name)
                    .containsExactly("tomcat-saturation", "tomcat-progress"); // Vitals' own, no adopted indicator
        }
        assertThatThrownBy(() -> TestApp.builder().property("vitals.checks.ping.timeout=0s").run())
                .hasRootCauseInstanceOf(IllegalArgumentException.class)
                .rootCause().hasMessageContaining("check 'ping': timeout must be at least 1 ms");
        assertThatThrownBy(() -> TestApp.builder().property("vitals.server.details=when-authorized").run())
                .rootCause().hasMessageContaining("vitals.server.token");
    }

    @Test
    void convertsSpringStatuses() {
        assertThat(SpringIndicators.convert(Health.up().build()).status()).isEqualTo(Status.UP);
        assertThat(SpringIndicators.convert(Health.down().build()).status()).isEqualTo(Status.DOWN);
        assertThat(SpringIndicators.convert(Health.outOfService().build()).status()).isEqualTo(Status.DOWN);
        assertThat(SpringIndicators.convert(Health.unknown().build()).status()).isEqualTo(Status.UNKNOWN);
        assertThat(SpringIndicators.convert(Health.status(new org.springframework.boot.health.contributor.Status("SLOW", "replica lagging"))
                .build()).message()).hasValue("replica lagging");
        assertThat(SpringIndicators.convert(null)).isNull();
        assertThat(Adoption.checkName("db/primary")).isEqualTo("db.primary");
        assertThat(Adoption.checkName("my bean#1")).isEqualTo("my_bean_1");
    }

    /**
     * A monitor sampled every 60 s: its check on the Spring path has the same settings as the
     * monitor's own registration (interval 60 s, maxAge 3 × 60 s), under the Spring name. With
     * the fixed 30 s maxAge it had, building this check threw (maxAge below interval) and the
     * context failed to start.
     */
    @Test
    void monitorChecksTakeTheMonitorsOwnSettingsForA60sInterval() {
        Duration minute = Duration.ofSeconds(60);
        java.util.List<dev.vitals.monitor.Monitor> monitors = java.util.List.of(
                dev.vitals.monitor.SaturationMonitor.builder("tomcat", () -> dev.vitals.monitor.SaturationSnapshot.of(1, 4, 0))
                        .interval(minute).build(),
                dev.vitals.monitor.ProgressWatchdog.builder("tomcat", () -> dev.vitals.monitor.ProgressSnapshot.of(1, 0, 0))
                        .interval(minute).stallAfter(Duration.ofMinutes(5)).build(),
                dev.vitals.monitor.LagMonitor.forExecutor("netty-event-loop", Runnable::run)
                        .interval(minute).stallAfter(Duration.ofMinutes(5)).build());
        for (dev.vitals.monitor.Monitor m : monitors) {
            Check own = m.check().build();
            Check spring = Adoption.monitorCheck("spring-name", m).groups(Groups.LIVENESS).build();

            assertThat(spring.name()).isEqualTo("spring-name");
            assertThat(spring.groups()).containsExactly(Groups.LIVENESS);
            assertThat(spring.interval()).isEqualTo(minute);
            assertThat(spring.maxAge()).isEqualTo(Duration.ofMinutes(3)).isEqualTo(own.maxAge());
            assertThat(spring.timeout()).isEqualTo(own.timeout());
            assertThat(spring.inline()).isTrue();
            assertThat(spring.beforeFirstResult()).isEqualTo(own.beforeFirstResult());
            assertThat(spring.beforeFirstResult().status()).isEqualTo(Status.UP);
            assertThat(spring.blockingCheck()).contains(m.healthCheck());
        }
        // Under 30 s the floor of the monitor's own rule holds: 1 s sampling, maxAge 30 s.
        Check fast = Adoption.monitorCheck("fast", dev.vitals.monitor.LagMonitor.forExecutor("loop", Runnable::run).build()).build();
        assertThat(fast.interval()).isEqualTo(Duration.ofSeconds(1));
        assertThat(fast.maxAge()).isEqualTo(Duration.ofSeconds(30));
    }
}
