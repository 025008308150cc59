package dev.vitals.examples.agent.micronaut;

import dev.vitals.examples.agent.faults.Faults;
import io.micronaut.core.async.publisher.Publishers;
import io.micronaut.health.HealthStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.PathVariable;
import io.micronaut.http.annotation.Produces;
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.management.health.indicator.HealthIndicator;
import io.micronaut.management.health.indicator.HealthResult;
import io.micronaut.management.health.indicator.annotation.Readiness;
import io.micronaut.runtime.Micronaut;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import jakarta.inject.Singleton;
import java.util.concurrent.CompletableFuture;
import org.reactivestreams.Publisher;

/**
 * A plain Micronaut 4 service with no Vitals code: Netty, management's {@code /health/readiness},
 * and a readiness indicator ({@code gate}) the test routes can make slow or hang ({@link Faults}).
 * Run it with {@code java -javaagent:vitals-agent.jar -jar agent-micronaut.jar}.
 */
public class AgentMicronautApp {
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
                Faults.gateUninterruptibly();
                try {
                    Faults.checkDependency();
                } catch (java.io.IOException e) {
                    return HealthResult.builder("gate", HealthStatus.DOWN).build();
                }
                return HealthResult.builder("gate", HealthStatus.UP).build();
            }));
        }
    }

    /** The test routes; the blocking ones run on the blocking executor, off the event loop. */
    @Controller("/test")
    @Produces(MediaType.TEXT_PLAIN)
    public static class TestRoutes {
        @Get("/hello")
        public String hello() {
            return Faults.hello();
        }

        @Get("/readiness/{m}")
        public String readiness(@PathVariable String m) {
            return Faults.readiness(m);
        }

        @Get("/block")
        @ExecuteOn(TaskExecutors.BLOCKING)
        public String block() throws InterruptedException {
            return Faults.block();
        }

        @Get("/work")
        @ExecuteOn(TaskExecutors.BLOCKING)
        public String work(@QueryValue long ms) throws InterruptedException {
            return Faults.work(ms);
        }

        @Get("/dependency")
        @ExecuteOn(TaskExecutors.BLOCKING)
        public String dependency() throws java.io.IOException {
            return Faults.dependency();
        }

        @Get("/deadlock")
        public String deadlock() {
            return Faults.deadlock();
        }
    }
}
