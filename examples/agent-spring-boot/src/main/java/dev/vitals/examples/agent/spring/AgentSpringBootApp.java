package dev.vitals.examples.agent.spring;

import dev.vitals.examples.agent.faults.Faults;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.stereotype.Component;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * A plain Spring Boot 4 service with no Vitals code: Tomcat, Actuator's probe groups, and a
 * readiness indicator ({@code gate}) the test routes can make slow or hung ({@link Faults}). Run
 * it with {@code java -javaagent:vitals-agent.jar -jar agent-spring-boot.jar}.
 */
@SpringBootApplication
public class AgentSpringBootApp {
    public static void main(String[] args) {
        SpringApplication.run(AgentSpringBootApp.class, args);
    }

    /** The readiness check a framework user writes: here one that can be made slow or hung. */
    @Component("gate")
    static class Gate implements HealthIndicator {
        @Override
        public Health health() {
            Faults.gateUninterruptibly();
            try {
                Faults.checkDependency();
            } catch (java.io.IOException e) {
                return Health.down(e).build();
            }
            return Health.up().build();
        }
    }

    @RestController
    static class TestRoutes {
        @GetMapping("/test/hello")
        String hello() {
            return Faults.hello();
        }

        @GetMapping("/test/readiness/{m}")
        String readiness(@PathVariable("m") String m) {
            return Faults.readiness(m);
        }

        @GetMapping("/test/block")
        String block() throws InterruptedException {
            return Faults.block();
        }

        @GetMapping("/test/work")
        String work(@RequestParam("ms") long ms) throws InterruptedException {
            return Faults.work(ms);
        }

        @GetMapping("/test/dependency")
        String dependency() throws java.io.IOException {
            return Faults.dependency();
        }

        @GetMapping("/test/deadlock")
        String deadlock() {
            return Faults.deadlock();
        }
    }
}
