package dev.vitals.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.ReactiveHealthIndicator;
import org.springframework.context.ConfigurableApplicationContext;
import reactor.core.publisher.Mono;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * {@code vitals.actuator.serve-through-vitals=true} in a WebFlux application on Reactor Netty
 * (Actuator's reactive endpoint): a hung blocking indicator no longer keeps
 * {@code /actuator/health} from answering; blocking and reactive indicators answer from Vitals.
 */
class ReactiveServeThroughVitalsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static TestApp.Builder app(CountDownLatch never) {
        return TestApp.builder().reactiveNetty()
                .property("management.endpoint.health.show-details=always")
                .property("vitals.defaults.mode=on-demand")
                .property("vitals.defaults.ttl=1ms")
                .property("vitals.defaults.timeout=3s")
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
                    c.registerBean("slowHealthIndicator", HealthIndicator.class, () -> () -> {
                        try {
                            Thread.sleep(300);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        return Health.up().withDetail("kind", "blocking").build();
                    });
                    c.registerBean("reactHealthIndicator", ReactiveHealthIndicator.class,
                            () -> () -> Mono.delay(Duration.ofMillis(300)).map(x -> Health.up().withDetail("kind", "reactive").build()));
                });
    }

    @Test
    void hungIndicatorNoLongerHangsTheReactiveEndpoint() throws Exception {
        CountDownLatch never = new CountDownLatch(1);
        try {
            try (ConfigurableApplicationContext ctx = app(never).run()) {
                assertThat(ctx.getBeanNamesForType(org.springframework.boot.health.actuate.endpoint.ReactiveHealthEndpointWebExtension.class))
                        .as("Actuator's reactive endpoint serves /actuator/health").isNotEmpty();
                assertThatTimesOut(TestApp.port(ctx));
            }
            try (ConfigurableApplicationContext ctx = app(never).property("vitals.actuator.serve-through-vitals=true").run()) {
                int port = TestApp.port(ctx);
                long slowest = 0;
                for (int i = 0; i < 10; i++) {
                    long t0 = System.nanoTime();
                    // Hung is forever; 30 s only bounds the test on a loaded machine.
                    HttpResponse<String> r = TestApp.get(port, "/actuator/health", Duration.ofSeconds(30));
                    slowest = Math.max(slowest, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
                    assertThat(r.statusCode()).isEqualTo(503);
                    JsonNode c = JSON.readTree(r.body()).path("components");
                    assertThat(c.path("stuck").path("status").asText()).isEqualTo("DOWN");
                    assertThat(c.path("stuck").path("description").asText()).startsWith("timed out after 500 ms");
                    assertThat(c.path("slow").path("details").path("kind").asText()).isEqualTo("blocking");
                    assertThat(c.path("react").path("details").path("kind").asText()).isEqualTo("reactive");
                }
                // Answered, with the stuck check DOWN "timed out after 500 ms": Vitals bounded it. How fast
                // is printed, not asserted (3.3 s and a 10 s request timeout hit on a machine at load 17).
                System.out.printf("reactive endpoint, hung indicator served through Vitals: 10 requests, slowest %d ms%n", slowest);
            }
        } finally {
            never.countDown();
        }
    }

    private static void assertThatTimesOut(int port) {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> TestApp.get(port, "/actuator/health", Duration.ofSeconds(2)))
                .as("without the property the hung indicator keeps the endpoint from answering")
                .isInstanceOf(HttpTimeoutException.class);
    }
}
