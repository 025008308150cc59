package dev.vitals.examples.agent.quarkus;

import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/** The readiness check a framework user writes: here one the test routes can make slow or hang. */
@Readiness
@ApplicationScoped
public class Gate implements HealthCheck {
    @Override
    public HealthCheckResponse call() {
        try {
            if (TestRoutes.mode.equals("slow")) {
                Thread.sleep(3000);
            } else if (TestRoutes.mode.equals("hang")) {
                TestRoutes.NEVER.await();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return HealthCheckResponse.up("gate");
    }
}
