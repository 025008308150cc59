package dev.vitals.examples.agent.spring;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.ReentrantLock;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.stereotype.Component;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * A plain Spring Boot 3.5 service with no Vitals code: Tomcat, Actuator's probe groups, and a
 * readiness indicator ({@code gate}) the test routes can make slow or hang. Run it with
 * {@code java -javaagent:vitals-agent.jar -jar agent-spring-boot.jar}.
 */
@SpringBootApplication
public class AgentSpringBootApp {
    static volatile String mode = "ok";
    static final CountDownLatch NEVER = new CountDownLatch(1);

    public static void main(String[] args) {
        SpringApplication.run(AgentSpringBootApp.class, args);
    }

    /** The readiness check a framework user writes: here one that can be made slow or hung. */
    @Component("gate")
    static class Gate implements HealthIndicator {
        @Override
        public Health health() {
            try {
                if (mode.equals("slow")) {
                    Thread.sleep(3000);
                } else if (mode.equals("hang")) {
                    NEVER.await();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return Health.up().build();
        }
    }

    @RestController
    static class TestRoutes {
        @GetMapping("/test/hello")
        String hello() {
            return "hello\n";
        }

        @GetMapping("/test/readiness/{m}")
        String readiness(@PathVariable("m") String m) {
            mode = m;
            return "readiness check: " + m + "\n";
        }

        @GetMapping("/test/block")
        String block() throws InterruptedException {
            NEVER.await();
            return "never\n";
        }

        @GetMapping("/test/deadlock")
        String deadlock() {
            Deadlock.start();
            return "deadlocked\n";
        }
    }

    /** Two application threads taking two locks in opposite order. */
    static final class Deadlock {
        static void start() {
            ReentrantLock a = new ReentrantLock();
            ReentrantLock b = new ReentrantLock();
            CountDownLatch both = new CountDownLatch(2);
            new Thread(() -> lock(a, b, both), "app-deadlock-1").start();
            new Thread(() -> lock(b, a, both), "app-deadlock-2").start();
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
