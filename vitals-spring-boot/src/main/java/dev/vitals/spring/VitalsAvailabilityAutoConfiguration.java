package dev.vitals.spring;

import dev.vitals.HealthRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * Spring's availability states and Vitals', both ways, and the drain on context close
 * ({@link AvailabilityBridge}; {@code vitals.availability.*}, {@code vitals.shutdown.*}).
 */
@AutoConfiguration(after = VitalsAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "vitals.enabled", matchIfMissing = true)
public final class VitalsAvailabilityAutoConfiguration {
    VitalsAvailabilityAutoConfiguration() {
    }

    /** Tells the bridge which on-demand results someone asked for (a registry listener). */
    @Bean
    AvailabilityBridge.Executions vitalsOnDemandExecutions() {
        return new AvailabilityBridge.Executions();
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(HealthRegistry.class)
    AvailabilityBridge vitalsAvailabilityBridge(HealthRegistry registry, AvailabilityBridge.Executions executions,
                                                ApplicationContext context,
                                                ObjectProvider<ApplicationAvailability> springAvailability,
                                                VitalsProperties properties) {
        return new AvailabilityBridge(registry, executions, context, springAvailability.getIfAvailable(),
                properties.getAvailability().isMapSpringStates(), properties.getAvailability().getPublishInterval(),
                properties.getShutdown().getDrainDelay());
    }
}
