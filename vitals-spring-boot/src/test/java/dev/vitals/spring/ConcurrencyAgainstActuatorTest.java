package dev.vitals.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vitals.Groups;
import dev.vitals.HealthRegistry;
import dev.vitals.Report;
import dev.vitals.Status;
import java.lang.management.ManagementFactory;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The two timing claims, on a real embedded Tomcat: ten 1 s indicators cost Vitals
 * about 1 s and Spring's own sequential evaluation about 10 s; an indicator that never returns
 * costs Vitals its timeout and one thread, whatever the number of probes.
 */
class ConcurrencyAgainstActuatorTest {

    @Test
    void tenOneSecondIndicatorsTakeOneSecondInVitalsAndTenInActuator() throws Exception {
        String names = IntStream.range(0, 10).mapToObj(i -> "slow" + i).collect(Collectors.joining(","));
        try (ConfigurableApplicationContext ctx = TestApp.builder()
                .property("management.endpoint.health.group.readiness.include=readinessState," + names)
                .property("vitals.defaults.mode=on-demand")
                .property("vitals.defaults.timeout=5s")
                .beans(c -> {
                    for (int i = 0; i < 10; i++) {
                        c.registerBean("slow" + i + "HealthIndicator", HealthIndicator.class, () -> () -> {
                            try {
                                Thread.sleep(1_000);
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                            return Health.up().build();
                        });
                    }
                })
                .run()) {
            HealthRegistry registry = ctx.getBean(HealthRegistry.class);
            assertThat(registry.checks()).extracting(c -> c.name()).contains("slow0", "slow9");
            assertThat(registry.check("slow3").orElseThrow().groups()).contains(Groups.READINESS, "health");

            long t0 = System.nanoTime();
            Report vitals = registry.evaluate(Groups.READINESS).get(30, TimeUnit.SECONDS);
            long vitalsNanos = System.nanoTime() - t0;
            assertThat(vitals.status()).isEqualTo(Status.UP);
            assertThat(vitals.checks().keySet().stream().filter(n -> n.startsWith("slow"))).hasSize(10);

            // The same over the probe port: within the 1 s ttl the results are reused, so the
            // probe answers at once; past it the probe evaluates again, again in about 1 s.
            Thread.sleep(1_100);
            long p0 = System.nanoTime();
            HttpResponse<String> readyz = TestApp.get(TestApp.probePort(ctx), "/readyz", Duration.ofSeconds(30));
            long probeNanos = System.nanoTime() - p0;
            assertThat(readyz.statusCode()).isEqualTo(200);
            assertThat(probeNanos).isLessThan(TimeUnit.SECONDS.toNanos(5));

            t0 = System.nanoTime();
            HttpResponse<String> spring = TestApp.get(TestApp.port(ctx), "/actuator/health/readiness", Duration.ofSeconds(60));
            long springNanos = System.nanoTime() - t0;
            assertThat(spring.statusCode()).isEqualTo(200);

            double ratio = (double) springNanos / vitalsNanos;
            System.out.printf("10 x 1 s indicators: Vitals readiness %d ms (/readyz %d ms), Spring /actuator/health/readiness %d ms, ratio %.1f%n",
                    vitalsNanos / 1_000_000, probeNanos / 1_000_000, springNanos / 1_000_000, ratio);
            assertThat(vitalsNanos).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(950));
            assertThat(springNanos).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(9_500));
            assertThat(ratio).as("Spring sequential / Vitals concurrent").isGreaterThan(4.0);
        }
    }

    @Test
    void hungIndicatorCostsItsTimeoutAndOneThreadOverAHundredProbes() throws Exception {
        CountDownLatch never = new CountDownLatch(1);
        try (ConfigurableApplicationContext ctx = TestApp.builder()
                .property("management.endpoint.health.group.readiness.include=readinessState,stuck,ok")
                .property("vitals.defaults.mode=on-demand")
                .property("vitals.defaults.ttl=1ms")
                .property("vitals.checks.stuck.timeout=500ms")
                .beans(c -> {
                    c.registerBean("stuckHealthIndicator", HealthIndicator.class, () -> () -> {
                        try {
                            never.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        return Health.up().build();
                    });
                    c.registerBean("okHealthIndicator", HealthIndicator.class, () -> () -> Health.up().build());
                })
                .run()) {
            HealthRegistry registry = ctx.getBean(HealthRegistry.class);
            int probePort = TestApp.probePort(ctx);
            Report direct = registry.evaluate(Groups.READINESS).get(10, TimeUnit.SECONDS);
            assertThat(direct.checks().get("stuck").message()).hasValueSatisfying(m -> assertThat(m).startsWith("timed out after 500 ms"));
            int threadsAtStart = ManagementFactory.getThreadMXBean().getThreadCount();
            int threadsBefore = 0;
            List<Long> millis = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                if (i == 10) { // after warm-up: check threads and pools exist
                    threadsBefore = ManagementFactory.getThreadMXBean().getThreadCount();
                }
                long t0 = System.nanoTime();
                HttpResponse<String> probe = TestApp.get(probePort, "/readyz?verbose", Duration.ofSeconds(10));
                millis.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
                assertThat(probe.statusCode()).isEqualTo(503);
                assertThat(probe.body()).contains("[-]stuck", "[+]ok");
            }
            int threadsAfter = ManagementFactory.getThreadMXBean().getThreadCount();
            long slowest = millis.stream().mapToLong(Long::longValue).max().orElseThrow();
            System.out.printf("hung indicator: 100 Vitals /readyz probes, slowest %d ms, threads %d at start, %d after 10 probes, %d after 100%n",
                    slowest, threadsAtStart, threadsBefore, threadsAfter);
            assertThat(slowest).as("every probe answers within the timeout (500 ms) plus scheduling slack").isLessThan(3_000);
            // JVM-wide counts also move with JIT compiler and Tomcat threads: a loose bound there,
            // an exact one on Vitals' own threads (scheduler, availability publisher, one per check).
            assertThat(threadsAfter - threadsBefore).as("threads added by probes 11 to 100").isLessThanOrEqualTo(4);
            assertThat(threadsAfter - threadsAtStart).as("threads added by 100 probes").isLessThanOrEqualTo(12);
            List<String> vitalsThreads = Thread.getAllStackTraces().keySet().stream().map(Thread::getName)
                    .filter(n -> n.startsWith("vitals-")).sorted().collect(Collectors.toList());
            System.out.println("Vitals threads after 100 probes: " + vitalsThreads);
            int eventLoops = ctx.getBean(dev.vitals.server.ProbeServer.class).eventLoopThreads();
            assertThat(vitalsThreads.stream().filter(n -> n.startsWith("vitals-check-")))
                    .as("check threads: at most one per check").hasSizeLessThanOrEqualTo(registry.checks().size());
            assertThat(vitalsThreads.stream().filter(n -> n.startsWith("vitals-listener-")))
                    .as("listener delivery (Micrometer, the transition log): two at most, ended when idle")
                    .hasSizeLessThanOrEqualTo(2);
            assertThat(vitalsThreads.stream().filter(n -> !n.startsWith("vitals-check-") && !n.startsWith("vitals-listener-")))
                    .as("scheduler, availability publisher, probe event loops")
                    .hasSizeLessThanOrEqualTo(2 + eventLoops);

            // Spring's own endpoint calls the indicator on a Tomcat worker and never answers.
            assertThatThrownBy(() -> TestApp.get(TestApp.port(ctx), "/actuator/health/readiness", Duration.ofSeconds(2)))
                    .isInstanceOf(HttpTimeoutException.class);
        } finally {
            never.countDown(); // frees the Tomcat worker Spring's endpoint pinned
        }
    }
}
