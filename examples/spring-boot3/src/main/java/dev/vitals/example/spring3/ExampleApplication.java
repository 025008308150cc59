package dev.vitals.example.spring3;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.actuate.health.CompositeHealthContributor;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthContributor;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * A plain Spring Boot 3.5 service (the twin of the Boot 4 example in examples/spring-boot) with ordinary {@code HealthIndicator}s, which Vitals adopts without
 * a line of Vitals code: {@code example.indicators.count} synthetic indicators of
 * {@code example.indicators.latency} each (composite {@code synthetic}, children
 * {@code synthetic/0}…), optionally one that never returns ({@code synthetic/hung}), all in the
 * readiness group, and {@code GET /slow?ms=N} holding a Tomcat worker for N ms. Run it with
 * {@code --vitals.enabled=false} for the Actuator-only baseline. See README.md.
 */
@SpringBootApplication
@EnableConfigurationProperties(ExampleApplication.Indicators.class)
public class ExampleApplication {
    private static final CountDownLatch NEVER = new CountDownLatch(1);

    public static void main(String[] args) {
        SpringApplication.run(ExampleApplication.class, args);
    }

    /** The synthetic indicators. */
    @ConfigurationProperties("example.indicators")
    public static class Indicators {
        /** How many synthetic indicators. */
        private int count = 10;
        /** How long each synthetic indicator takes. */
        private Duration latency = Duration.ofMillis(100);
        /** Whether one more indicator, synthetic/hung, never returns. */
        private boolean hung = false;

        public int getCount() {
            return count;
        }

        public void setCount(int count) {
            this.count = count;
        }

        public Duration getLatency() {
            return latency;
        }

        public void setLatency(Duration latency) {
            this.latency = latency;
        }

        public boolean isHung() {
            return hung;
        }

        public void setHung(boolean hung) {
            this.hung = hung;
        }
    }

    @Bean
    HealthContributor syntheticHealthContributor(Indicators config) {
        if (config.getCount() < 0) {
            throw new IllegalArgumentException("example.indicators.count must not be negative, was " + config.getCount());
        }
        Map<String, HealthContributor> children = new LinkedHashMap<>();
        long millis = config.getLatency().toMillis();
        for (int i = 0; i < config.getCount(); i++) {
            int n = i;
            children.put(String.valueOf(i), (HealthIndicator) () -> {
                sleep(millis);
                return Health.up().withDetail("indicator", n).build();
            });
        }
        if (config.isHung()) {
            children.put("hung", (HealthIndicator) () -> {
                try {
                    NEVER.await(); // a dependency that never answers
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return Health.down().build();
            });
        }
        if (children.isEmpty()) {
            children.put("none", (HealthIndicator) () -> Health.up().build());
        }
        return CompositeHealthContributor.fromMap(children);
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Application work that holds a worker. */
    @RestController
    static class SlowController {
        @GetMapping("/slow")
        String slow(@RequestParam(name = "ms", defaultValue = "1000") long ms) {
            if (ms < 0 || ms > 600_000) {
                throw new IllegalArgumentException("ms must be 0-600000, was " + ms);
            }
            sleep(ms);
            return "slept " + ms + " ms\n";
        }
    }
}
