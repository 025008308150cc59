package dev.vitals.examples.agent.micronaut;

import io.micronaut.core.async.publisher.Publishers;
import io.micronaut.health.HealthStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.PathVariable;
import io.micronaut.http.annotation.Produces;
import io.micronaut.management.health.indicator.HealthIndicator;
import io.micronaut.management.health.indicator.HealthResult;
import io.micronaut.management.health.indicator.annotation.Readiness;
import io.micronaut.runtime.Micronaut;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import jakarta.inject.Singleton;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.ReentrantLock;
import org.reactivestreams.Publisher;

/**
 * A plain Micronaut 4 service with no Vitals code: Netty, management's {@code /health/readiness},
 * and a readiness indicator ({@code gate}) the test routes can make slow or hang. Run it with
 * {@code java -javaagent:vitals-agent.jar -jar agent-micronaut.jar}.
 */
public class AgentMicronautApp {
    static volatile String mode = "ok";
    static final CountDownLatch NEVER = new CountDownLatch(1);

    public static void main(String[] args) {
        Micronaut.run(AgentMicronautApp.class, args);
    }

    /** The readiness check a framework user writes; it waits off the event loop. */
    @Singleton
    @Readiness
    public static class Gate implements HealthIndicator {
        @Override
        public Publisher<HealthResult> getResult() {
            return Publishers.fromCompletableFuture(() -> CompletableFuture.supplyAsync(() -> {
                try {
                    if (mode.equals("slow")) {
                        Thread.sleep(3000);
                    } else if (mode.equals("hang")) {
                        NEVER.await();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return HealthResult.builder("gate", HealthStatus.UP).build();
            }));
        }
    }

    @Controller("/test")
    @Produces(MediaType.TEXT_PLAIN)
    public static class TestRoutes {
        @Get("/hello")
        public String hello() {
            return "hello\n";
        }

        @Get("/readiness/{m}")
        public String readiness(@PathVariable String m) {
            mode = m;
            return "readiness check: " + m + "\n";
        }

        @Get("/block")
        @ExecuteOn(TaskExecutors.BLOCKING)
        public String block() throws InterruptedException {
            NEVER.await();
            return "never\n";
        }

        @Get("/deadlock")
        public String deadlock() {
            ReentrantLock a = new ReentrantLock();
            ReentrantLock b = new ReentrantLock();
            CountDownLatch both = new CountDownLatch(2);
            new Thread(() -> lock(a, b, both), "app-deadlock-1").start();
            new Thread(() -> lock(b, a, both), "app-deadlock-2").start();
            return "deadlocked\n";
        }

        private static void lock(ReentrantLock first, ReentrantLock second, CountDownLatch both) {
            first.lock();
            both.countDown();
            try {
                both.await();
            } catch (InterruptedException e) {
                return;
            }
            second.lock();
        }
    }
}
