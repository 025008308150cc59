package dev.vitals.examples.agent.dropwizard;

import com.codahale.metrics.health.HealthCheck;
import io.dropwizard.core.Application;
import io.dropwizard.core.Configuration;
import io.dropwizard.core.setup.Environment;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A plain Dropwizard 5 service with no Vitals code: Jetty, Jersey, and a health check
 * ({@code gate}) the test routes can make slow or hang. Run it with
 * {@code java -javaagent:vitals-agent.jar -jar agent-dropwizard.jar server agent-dropwizard.yml}.
 */
public class AgentDropwizardApp extends Application<Configuration> {
    static volatile String mode = "ok";
    static final CountDownLatch NEVER = new CountDownLatch(1);

    public static void main(String[] args) throws Exception {
        new AgentDropwizardApp().run(args);
    }

    @Override
    public void run(Configuration configuration, Environment environment) {
        environment.healthChecks().register("gate", new HealthCheck() {
            @Override
            protected Result check() throws Exception {
                if (mode.equals("slow")) {
                    Thread.sleep(3000);
                } else if (mode.equals("hang")) {
                    NEVER.await();
                }
                return Result.healthy();
            }
        });
        environment.jersey().register(new TestRoutes());
    }

    @Path("/test")
    @Produces(MediaType.TEXT_PLAIN)
    public static class TestRoutes {
        @GET
        @Path("/hello")
        public String hello() {
            return "hello\n";
        }

        @GET
        @Path("/readiness/{m}")
        public String readiness(@PathParam("m") String m) {
            mode = m;
            return "readiness check: " + m + "\n";
        }

        @GET
        @Path("/block")
        public String block() throws InterruptedException {
            NEVER.await();
            return "never\n";
        }

        @GET
        @Path("/deadlock")
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
