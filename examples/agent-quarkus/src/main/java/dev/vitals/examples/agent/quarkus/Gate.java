package dev.vitals.examples.agent.quarkus;

import dev.vitals.examples.agent.faults.Faults;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/** The readiness check a framework user writes: here one the test routes ({@code JaxRsTestRoutes}) can make slow or hang. */
@Readiness
@ApplicationScoped
public class Gate implements HealthCheck {
    @Override
    public HealthCheckResponse call() {
        Faults.gateUninterruptibly();
        try {
            Faults.checkDependency();
        } catch (java.io.IOException e) {
            return HealthCheckResponse.down("gate");
        }
        return HealthCheckResponse.up("gate");
    }
}
