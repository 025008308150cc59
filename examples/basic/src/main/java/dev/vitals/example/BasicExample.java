package dev.vitals.example;

import dev.vitals.Check;
import dev.vitals.Groups;
import dev.vitals.Health;
import dev.vitals.HealthRegistry;
import dev.vitals.Mode;
import dev.vitals.Report;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Registers a few checks (one slow, one hung, one throwing, one non-critical), evaluates the
 * groups and prints the reports: the hung check costs its timeout, not the endpoint; the
 * throwing check fails alone; the slow on-demand checks run concurrently.
 */
public final class BasicExample {
    private BasicExample() {
    }

    public static void main(String[] args) throws Exception {
        CountDownLatch never = new CountDownLatch(1);
        try (HealthRegistry registry = HealthRegistry.builder()
                .group("dashboard")
                .register(Check.builder("ping", Health::up).groups(Groups.LIVENESS).build())
                .register(Check.builder("database", () -> {
                    Thread.sleep(300); // a real round trip would go here
                    return Health.up().withDetail("latencyMs", 300);
                }).groups(Groups.READINESS, "dashboard").interval(Duration.ofSeconds(5)).build())
                .register(Check.builder("cache", () -> {
                    throw new IllegalStateException("cache node refused the connection");
                }).groups(Groups.READINESS).critical(false).build())
                .register(Check.builder("payments-api", () -> {
                    never.await(); // a dead TCP peer: never answers
                    return Health.up();
                }).groups("dashboard").mode(Mode.ON_DEMAND).timeout(Duration.ofMillis(800)).build())
                .register(Check.builder("search", () -> {
                    Thread.sleep(700);
                    return Health.up();
                }).groups("dashboard").mode(Mode.ON_DEMAND).build())
                .build()) {
            registry.start();
            Thread.sleep(500); // let the first scheduled runs finish

            for (String group : registry.groups()) {
                long t0 = System.nanoTime();
                Report report = registry.evaluate(group).get(5, TimeUnit.SECONDS);
                long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
                System.out.println(report + "\n  (evaluated in " + ms + " ms)\n");
            }
            System.out.println("Threads named vitals-*: " + Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> t.getName().startsWith("vitals-")).count());
        }
    }
}
