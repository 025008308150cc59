package dev.vitals.spring;

import dev.vitals.HealthRegistry;
import dev.vitals.micrometer.VitalsMetrics;
import dev.vitals.monitor.Monitor;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Micrometer meters, when vitals-micrometer and Micrometer are on the class path
 * ({@code vitals.metrics.enabled}): check and group meters from the registry, and the figures of
 * every {@link Monitor} bean, whatever its kind ({@link VitalsMetrics#monitor(Monitor)}).
 */
@AutoConfiguration(before = VitalsAutoConfiguration.class)
@ConditionalOnClass(name = {"dev.vitals.micrometer.VitalsMetrics", "io.micrometer.core.instrument.MeterRegistry"})
@ConditionalOnBooleanProperty(name = "vitals.enabled", matchIfMissing = true)
@ConditionalOnBooleanProperty(name = "vitals.metrics.enabled", matchIfMissing = true)
public final class VitalsMetricsAutoConfiguration {
    VitalsMetricsAutoConfiguration() {
    }

    /**
     * A {@code MeterBinder} (bound by Boot's metrics auto-configuration to the application's
     * {@code MeterRegistry}) and the registry's {@code HealthListener}.
     */
    @Bean
    @ConditionalOnMissingBean
    VitalsMetrics vitalsMetrics() {
        return VitalsMetrics.create();
    }

    /** Names the registry (status gauges) and adds the figures of every monitor bean. */
    @Bean
    static SmartInitializingSingleton vitalsMetricsMonitors(ObjectProvider<VitalsMetrics> metrics,
                                                            ObjectProvider<HealthRegistry> registry,
                                                            ObjectProvider<Monitor> monitors) {
        return () -> {
            VitalsMetrics m = metrics.getIfAvailable();
            HealthRegistry r = registry.getIfAvailable();
            if (m == null || r == null) {
                return;
            }
            m.monitor(r);
            monitors.orderedStream().forEach(m::monitor);
        };
    }
}
