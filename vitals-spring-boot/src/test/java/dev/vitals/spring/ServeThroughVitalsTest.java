package dev.vitals.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.vitals.Groups;
import dev.vitals.HealthRegistry;
import dev.vitals.Status;
import java.lang.management.ManagementFactory;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.ReactiveHealthIndicator;
import org.springframework.context.ConfigurableApplicationContext;
import reactor.core.publisher.Mono;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * {@code vitals.actuator.serve-through-vitals=true} on a real embedded Tomcat: Actuator's own
 * {@code /actuator/health} answers from Vitals' evaluation (concurrent, bounded, single flight)
 * with Spring's JSON unchanged.
 */
class ServeThroughVitalsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static TestApp.Builder tenSlowIndicators(TestApp.Builder b, AtomicInteger calls) {
        return b.property("management.endpoint.health.show-details=always")
                .property("management.health.diskspace.enabled=false") // free bytes change between two reads
                .property("vitals.defaults.mode=on-demand")
                .property("vitals.defaults.timeout=5s")
                .beans(c -> {
                    for (int i = 0; i < 10; i++) {
                        int n = i;
                        c.registerBean("slow" + i + "HealthIndicator", HealthIndicator.class, () -> () -> {
                            calls.incrementAndGet();
                            try {
                                Thread.sleep(1_000);
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                            return Health.up().withDetail("n", n).build();
                        });
                    }
                });
    }

    @Test
    void tenOneSecondIndicatorsAnswerInAboutOneSecondThroughVitalsAndTenWithout() throws Exception {
        AtomicInteger springCalls = new AtomicInteger();
        JsonNode springBody;
        long springNanos;
        try (ConfigurableApplicationContext ctx = tenSlowIndicators(TestApp.builder(), springCalls).run()) {
            long t0 = System.nanoTime();
            HttpResponse<String> r = TestApp.get(TestApp.port(ctx), "/actuator/health", Duration.ofSeconds(60));
            springNanos = System.nanoTime() - t0;
            assertThat(r.statusCode()).isEqualTo(200);
            springBody = JSON.readTree(r.body());
        }

        AtomicInteger vitalsCalls = new AtomicInteger();
        try (ConfigurableApplicationContext ctx = tenSlowIndicators(TestApp.builder(), vitalsCalls)
                .property("vitals.actuator.serve-through-vitals=true").run()) {
            int port = TestApp.port(ctx);
            long t0 = System.nanoTime();
            HttpResponse<String> r = TestApp.get(port, "/actuator/health", Duration.ofSeconds(60));
            long vitalsNanos = System.nanoTime() - t0;
            assertThat(r.statusCode()).isEqualTo(200);
            JsonNode vitalsBody = JSON.readTree(r.body());
            assertThat(vitalsCalls.get()).as("each indicator ran once (single flight, results reused within the ttl)").isEqualTo(10);

            double ratio = (double) springNanos / vitalsNanos;
            System.out.printf("10 x 1 s indicators: /actuator/health %d ms without, %d ms with serve-through-vitals, ratio %.1f%n",
                    springNanos / 1_000_000, vitalsNanos / 1_000_000, ratio);
            assertThat(springNanos).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(9_500));
            assertThat(vitalsNanos).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(950));
            assertThat(ratio).as("Actuator sequential / served through Vitals").isGreaterThan(4.0);

            // Same JSON: status, the same components with the same statuses and details, groups.
            assertThat(vitalsBody).isEqualTo(springBody);
            assertThat(vitalsBody.path("components").path("slow7").path("details").path("n").asInt()).isEqualTo(7);

            // A component path evaluates that indicator (and, within the ttl, reuses the result).
            HttpResponse<String> one = TestApp.get(port, "/actuator/health/slow3", Duration.ofSeconds(30));
            assertThat(one.statusCode()).isEqualTo(200);
            assertThat(JSON.readTree(one.body()).path("status").asText()).isEqualTo("UP");
        }
    }

    @Test
    void hungIndicatorCostsItsTimeoutAndOneThreadOverFiftyActuatorRequests() throws Exception {
        CountDownLatch never = new CountDownLatch(1);
        AtomicInteger stuckCalls = new AtomicInteger();
        try (ConfigurableApplicationContext ctx = TestApp.builder()
                .property("vitals.actuator.serve-through-vitals=true")
                .property("management.endpoint.health.show-details=always")
                .property("management.endpoint.health.group.readiness.include=readinessState,stuck,ok")
                .property("vitals.defaults.mode=on-demand")
                .property("vitals.defaults.ttl=1ms")
                .property("vitals.checks.stuck.timeout=500ms")
                .beans(c -> {
                    c.registerBean("stuckHealthIndicator", HealthIndicator.class, () -> () -> {
                        stuckCalls.incrementAndGet();
                        try {
                            never.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        return Health.up().build();
                    });
                    c.registerBean("okHealthIndicator", HealthIndicator.class, () -> () -> Health.up().withDetail("k", "v").build());
                })
                .run()) {
            int port = TestApp.port(ctx);
            int threadsBefore = 0;
            List<Long> millis = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                if (i == 10) {
                    threadsBefore = ManagementFactory.getThreadMXBean().getThreadCount();
                }
                String path = i % 5 == 4 ? "/actuator/health/readiness" : "/actuator/health";
                long t0 = System.nanoTime();
                HttpResponse<String> r = TestApp.get(port, path, Duration.ofSeconds(10));
                millis.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
                assertThat(r.statusCode()).as(path).isEqualTo(503);
                JsonNode body = JSON.readTree(r.body());
                assertThat(body.path("status").asText()).isEqualTo("DOWN");
                JsonNode stuck = body.path("components").path("stuck");
                assertThat(stuck.path("status").asText()).isEqualTo("DOWN");
                assertThat(stuck.path("description").asText()).startsWith("timed out after 500 ms");
                assertThat(stuck.path("details").path("error").asText()).startsWith("java.util.concurrent.TimeoutException: timed out");
                assertThat(body.path("components").path("ok").path("status").asText()).isEqualTo("UP");
                assertThat(body.path("components").path("ok").path("details").path("k").asText()).isEqualTo("v");
            }
            int threadsAfter = ManagementFactory.getThreadMXBean().getThreadCount();
            long slowest = millis.stream().mapToLong(Long::longValue).max().orElseThrow();
            List<String> checkThreads = Thread.getAllStackTraces().keySet().stream().map(Thread::getName)
                    .filter(n -> n.startsWith("vitals-check-")).sorted().collect(Collectors.toList());
            System.out.printf("hung indicator: 50 /actuator/health requests served through Vitals, slowest %d ms, "
                    + "threads %d after 10 requests, %d after 50, indicator called %d times, check threads %s%n",
                    slowest, threadsBefore, threadsAfter, stuckCalls.get(), checkThreads);
            assertThat(slowest).as("every request answers within the 500 ms timeout plus scheduling slack").isLessThan(3_000);
            assertThat(stuckCalls.get()).as("single flight: the hung execution is never started again").isEqualTo(1);
            assertThat(threadsAfter - threadsBefore).as("threads added by requests 11 to 50").isLessThanOrEqualTo(4);
            assertThat(checkThreads).as("at most one check thread per check")
                    .hasSizeLessThanOrEqualTo(ctx.getBean(HealthRegistry.class).checks().size());

            HttpResponse<String> component = TestApp.get(port, "/actuator/health/stuck", Duration.ofSeconds(10));
            assertThat(component.statusCode()).isEqualTo(503);
            assertThat(TestApp.get(port, "/actuator/health/ok", Duration.ofSeconds(10)).statusCode()).isEqualTo(200);
        } finally {
            never.countDown();
        }
    }

    /** A composite of two blocking children, a reactive indicator, a custom status code, an excluded indicator. */
    private static TestApp.Builder mixed(TestApp.Builder b, AtomicInteger warnCalls) {
        return b.property("management.endpoint.health.show-details=always")
                .property("management.health.diskspace.enabled=false") // free bytes change between two reads
                // Spring's readinessState stays Spring's own (Vitals' readiness, DOWN here, is not published back to it)
                .property("vitals.availability.map-spring-states=false")
                .property("management.endpoint.health.group.readiness.include=readinessState,db,react")
                .property("vitals.exclude=plain")
                .property("vitals.checks.warn.interval=1h")
                .beans(c -> {
                    c.registerBean("dbHealthContributor", HealthContributor.class, () -> {
                        Map<String, HealthIndicator> children = new LinkedHashMap<>();
                        children.put("primary", () -> Health.up().withDetail("database", "H2").build());
                        children.put("replica", () -> Health.down().withDetail("lag", 42).build());
                        return CompositeHealthContributor.fromMap(children);
                    });
                    c.registerBean("reactHealthIndicator", ReactiveHealthIndicator.class,
                            () -> () -> Mono.just(Health.up().withDetail("reactive", true).build()));
                    c.registerBean("warnHealthIndicator", HealthIndicator.class,
                            () -> () -> {
                                warnCalls.incrementAndGet();
                                return Health.status("WARN").withDetail("disk", "90%").build();
                            });
                    c.registerBean("plainHealthIndicator", HealthIndicator.class, () -> () -> Health.outOfService().build());
                });
    }

    @Test
    void actuatorJsonIsTheSameWithAndWithoutServingThroughVitals() throws Exception {
        List<String> paths = List.of("/actuator/health", "/actuator/health/readiness", "/actuator/health/liveness",
                "/actuator/health/db", "/actuator/health/db/replica", "/actuator/health/react", "/actuator/health/warn",
                "/actuator/health/plain", "/actuator/health/readiness/db/primary", "/actuator/health/nosuch");
        Map<String, HttpResponse<String>> without = new LinkedHashMap<>();
        AtomicInteger springWarnCalls = new AtomicInteger();
        try (ConfigurableApplicationContext ctx = mixed(TestApp.builder(), springWarnCalls).run()) {
            for (String p : paths) {
                without.put(p, TestApp.get(TestApp.port(ctx), p, Duration.ofSeconds(10)));
            }
        }
        assertThat(springWarnCalls.get()).as("Actuator calls the indicator itself for each request").isGreaterThanOrEqualTo(3);
        AtomicInteger vitalsWarnCalls = new AtomicInteger();
        try (ConfigurableApplicationContext ctx = mixed(TestApp.builder(), vitalsWarnCalls)
                .property("vitals.actuator.serve-through-vitals=true").run()) {
            HealthRegistry registry = ctx.getBean(HealthRegistry.class);
            assertThat(registry.checks()).extracting(c -> c.name()).contains("db.primary", "db.replica", "react", "warn")
                    .doesNotContain("plain");
            // Scheduled checks (the default): the endpoint reads their latest results; wait for the first ones.
            await().atMost(Duration.ofSeconds(10)).until(() -> registry.report("health").checks().values().stream()
                    .noneMatch(h -> h.message().orElse("").equals("no result yet")));
            assertThat(registry.report("health").checks().get("db.replica").status()).isEqualTo(Status.DOWN);
            assertThat(registry.report(Groups.READINESS).checks()).containsKeys("db.primary", "react");
            for (String p : paths) {
                HttpResponse<String> served = TestApp.get(TestApp.port(ctx), p, Duration.ofSeconds(10));
                HttpResponse<String> spring = without.get(p);
                assertThat(served.statusCode()).as(p).isEqualTo(spring.statusCode());
                if (!spring.body().isEmpty()) {
                    assertThat(JSON.readTree(served.body())).as(p).isEqualTo(JSON.readTree(spring.body()));
                }
            }
            assertThat(vitalsWarnCalls.get()).as("served from the scheduled result: only Vitals' first run called the indicator")
                    .isEqualTo(1);
            JsonNode root = JSON.readTree(without.get("/actuator/health").body());
            assertThat(root.path("groups")).as("the system health lists Spring's groups").isNotEmpty();
            assertThat(root.path("components").path("warn").path("status").asText()).isEqualTo("WARN");
            assertThat(root.path("components").path("db").path("components").path("replica").path("details").path("lag").asInt()).isEqualTo(42);
            assertThat(without.get("/actuator/health/nosuch").statusCode()).isEqualTo(404);
        }
    }
}
