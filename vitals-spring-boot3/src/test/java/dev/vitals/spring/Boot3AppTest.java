package dev.vitals.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vitals.Check;
import dev.vitals.Groups;
import dev.vitals.HealthRegistry;
import dev.vitals.Mode;
import dev.vitals.micrometer.VitalsMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.health.CompositeHealthContributor;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthContributor;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.actuate.health.ReactiveHealthIndicator;
import org.springframework.context.ConfigurableApplicationContext;
import reactor.core.publisher.Mono;

/** vitals-spring-boot3 on a real Boot 3.5 application: the features of the Boot 4 module. */
class Boot3AppTest {

    @Test
    void adoptsIndicatorsWithSpringNamesGroupsAndSettingsAndAnswersProbes() throws Exception {
        try (ConfigurableApplicationContext ctx = TestApp.builder()
                .property("management.endpoint.health.group.readiness.include=readinessState,db,reactive")
                .property("management.endpoint.health.group.dashboard.include=db/primary,cache")
                .property("management.endpoints.web.exposure.include=health,prometheus")
                .property("vitals.exclude=ignored")
                .property("vitals.defaults.timeout=700ms")
                .property("vitals.defaults.mode=on-demand")
                .property("vitals.checks[db/replica].critical=false")
                .property("vitals.checks.cache.mode=scheduled")
                .property("vitals.checks.cache.groups=readiness")
                .beans(c -> {
                    Map<String, HealthContributor> dbs = new LinkedHashMap<>();
                    dbs.put("primary", (HealthIndicator) () -> Health.up().withDetail("database", "H2").build());
                    dbs.put("replica", (HealthIndicator) () -> Health.down(new java.io.IOException("replica lag")).build());
                    c.registerBean("dbHealthContributor", HealthContributor.class, () -> CompositeHealthContributor.fromMap(dbs));
                    c.registerBean("cacheHealthIndicator", HealthIndicator.class, () -> () -> Health.up().build());
                    c.registerBean("ignoredHealthIndicator", HealthIndicator.class, () -> () -> Health.up().build());
                    c.registerBean("reactiveHealthIndicator", ReactiveHealthIndicator.class,
                            () -> () -> Mono.just(Health.status("WARMING").build()));
                    c.registerBean("ownCheck", Check.class, () -> Check.builder("own", dev.vitals.Health::up)
                            .groups(Groups.LIVENESS).build());
                })
                .run()) {
            HealthRegistry registry = ctx.getBean(HealthRegistry.class);
            Map<String, Check> checks = new LinkedHashMap<>();
            registry.checks().forEach(c -> checks.put(c.name(), c));
            assertThat(checks).containsKeys("db.primary", "db.replica", "cache", "reactive", "ping", "own",
                            "tomcat-saturation", "tomcat-progress")
                    .doesNotContainKeys("ignored", "livenessState", "readinessState", "db");
            assertThat(checks.get("db.primary").groups()).containsExactlyInAnyOrder("health", Groups.READINESS, "dashboard");
            assertThat(checks.get("cache").groups()).containsExactly(Groups.READINESS);
            assertThat(checks.get("db.primary").mode()).isEqualTo(Mode.ON_DEMAND);
            assertThat(checks.get("db.primary").timeout()).isEqualTo(Duration.ofMillis(700));
            assertThat(checks.get("cache").mode()).isEqualTo(Mode.SCHEDULED);
            assertThat(checks.get("db.replica").critical()).isFalse();

            int probe = TestApp.probePort(ctx);
            HttpResponse<String> ready = TestApp.get(probe, "/readyz?verbose", Duration.ofSeconds(10));
            // replica is non-critical (DEGRADED), reactive's custom WARMING is DEGRADED: still ready.
            assertThat(ready.statusCode()).isEqualTo(200);
            assertThat(ready.body()).contains("db.primary ok", "db.replica", "reactive", "cache ok", "tomcat-saturation");
            assertThat(TestApp.get(probe, "/livez?verbose", Duration.ofSeconds(10)).body()).contains("tomcat-progress", "own ok");

            // Actuator intact beside Vitals.
            HttpResponse<String> actuator = TestApp.get(TestApp.port(ctx), "/actuator/health/liveness", Duration.ofSeconds(10));
            assertThat(actuator.statusCode()).isEqualTo(200);

            // Every monitor kind reaches Micrometer through one method.
            MeterRegistry meters = ctx.getBean(MeterRegistry.class);
            assertThat(meters.find(VitalsMetrics.POOL_SATURATION).tag("pool", "tomcat").gauge()).isNotNull();
            assertThat(meters.find(VitalsMetrics.POOL_STALLED).tag("pool", "tomcat").gauge()).isNotNull();
            assertThat(meters.find(VitalsMetrics.MONITOR_STATUS).tag("monitor", "tomcat").gauges()).hasSize(2);
            assertThat(meters.find(VitalsMetrics.MONITOR_STATUS).tag("monitor", "tomcat").tag("kind", "saturation").gauge().value()).isZero();
        }
    }

    @Test
    void actuatorServedThroughVitalsBoundsAHungIndicator() throws Exception {
        CountDownLatch never = new CountDownLatch(1);
        try (ConfigurableApplicationContext ctx = TestApp.builder()
                .property("management.endpoint.health.group.readiness.include=readinessState,hung,fast")
                .property("management.endpoint.health.show-details=always")
                .property("vitals.actuator.serve-through-vitals=true")
                .property("vitals.defaults.mode=on-demand")
                .property("vitals.defaults.timeout=500ms")
                .beans(c -> {
                    c.registerBean("hungHealthIndicator", HealthIndicator.class, () -> () -> {
                        try {
                            never.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        return Health.up().build();
                    });
                    c.registerBean("fastHealthIndicator", HealthIndicator.class, () -> () -> Health.up().withDetail("k", "v").build());
                })
                .run()) {
            long t0 = System.nanoTime();
            HttpResponse<String> r = TestApp.get(TestApp.port(ctx), "/actuator/health/readiness", Duration.ofSeconds(20));
            assertThat(r.statusCode()).isEqualTo(503);
            assertThat(r.body()).contains("\"hung\"", "timed out", "\"fast\"", "\"k\":\"v\"");
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(15));
        } finally {
            never.countDown();
        }
    }

    @Test
    void reactiveNettyLoopsAreWatched() throws Exception {
        try (ConfigurableApplicationContext ctx = TestApp.builder().reactiveNetty().run()) {
            HealthRegistry registry = ctx.getBean(HealthRegistry.class);
            assertThat(registry.check("netty-event-loop")).isPresent();
            assertThat(registry.check("netty-event-loop").get().groups()).containsExactly(Groups.LIVENESS);
            assertThat(TestApp.get(TestApp.probePort(ctx), "/livez?verbose", Duration.ofSeconds(10)).body()).contains("netty-event-loop");
        }
    }

    @Test
    void jettyPoolIsWatched() throws Exception {
        try (ConfigurableApplicationContext ctx = TestApp.builder().jetty().run()) {
            HealthRegistry registry = ctx.getBean(HealthRegistry.class);
            assertThat(registry.check("jetty-saturation").get().groups()).containsExactly(Groups.READINESS);
            assertThat(registry.check("jetty-progress").get().groups()).containsExactly(Groups.LIVENESS);
            assertThat(registry.check("tomcat-progress")).isEmpty();
            assertThat(TestApp.get(TestApp.port(ctx), "/actuator/health", Duration.ofSeconds(10)).statusCode()).isEqualTo(200);
            // The statistics handler Vitals put in front of the application counted that request.
            MeterRegistry meters = ctx.getBean(MeterRegistry.class);
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> {
                io.micrometer.core.instrument.FunctionCounter c = meters.find(VitalsMetrics.POOL_COMPLETED).tag("pool", "jetty").functionCounter();
                return c != null && c.count() >= 1;
            });
            assertThat(TestApp.get(TestApp.probePort(ctx), "/livez?verbose", Duration.ofSeconds(10)).body()).contains("[+]jetty-progress ok");
        }
    }
}
