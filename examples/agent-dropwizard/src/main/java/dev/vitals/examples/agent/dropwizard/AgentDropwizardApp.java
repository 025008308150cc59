package dev.vitals.examples.agent.dropwizard;

import com.codahale.metrics.health.HealthCheck;
import dev.vitals.examples.agent.faults.Faults;
import dev.vitals.examples.agent.faults.JaxRsTestRoutes;
import io.dropwizard.core.Application;
import io.dropwizard.core.Configuration;
import io.dropwizard.core.setup.Environment;

/**
 * A plain Dropwizard 5 service with no Vitals code: Jetty, Jersey, the test routes
 * ({@link JaxRsTestRoutes}) and a health check ({@code gate}) they can make slow or hang. Run it
 * with {@code java -javaagent:vitals-agent.jar -jar agent-dropwizard.jar server agent-dropwizard.yml}.
 */
public class AgentDropwizardApp extends Application<Configuration> {
    public static void main(String[] args) throws Exception {
        new AgentDropwizardApp().run(args);
    }

    @Override
    public void run(Configuration configuration, Environment environment) {
        environment.healthChecks().register("gate", new HealthCheck() {
            @Override
            protected Result check() throws Exception {
                Faults.gate();
                Faults.checkDependency();
                return Result.healthy();
            }
        });
        environment.jersey().register(new JaxRsTestRoutes());
    }
}
