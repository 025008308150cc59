package dev.vitals.spring;

import dev.vitals.Check;
import dev.vitals.Warmup;
import java.util.List;
import java.util.stream.Collectors;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * {@code vitals.warmup.enabled=true}: a {@link Warmup} bean and its readiness check
 * {@code warmup}, started when the application is ready ({@link ApplicationReadyEvent}), with the
 * {@link VitalsWarmupRoutine} beans as its routine (run in {@code @Order} order) and
 * {@code vitals.warmup.requests} / {@code normal-latency} / {@code max-wait}. The application
 * reports requests with {@link Warmup#recordRequest(java.time.Duration)}.
 */
@AutoConfiguration(before = VitalsAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "vitals.enabled", matchIfMissing = true)
@EnableConfigurationProperties(VitalsProperties.class)
public final class VitalsWarmupAutoConfiguration {
    VitalsWarmupAutoConfiguration() {
    }

    /** The beans, only with {@code vitals.warmup.enabled=true}. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBooleanProperty(name = "vitals.warmup.enabled")
    static class Enabled {
        /**
         * @throws IllegalArgumentException naming the property when a value is out of range
         */
        @Bean
        @ConditionalOnMissingBean
        Warmup vitalsWarmup(VitalsProperties properties, ObjectProvider<VitalsWarmupRoutine> routines) {
            VitalsProperties.Warmup p = properties.getWarmup();
            List<VitalsWarmupRoutine> all = routines.orderedStream().collect(Collectors.toList());
            Warmup.Builder b = Warmup.builder().maxWait(p.getMaxWait());
            if (p.getRequests() < 0) {
                throw new IllegalArgumentException("vitals.warmup.requests must be 0 or more, was " + p.getRequests());
            }
            if (p.getRequests() > 0) {
                b.requests(p.getRequests(), p.getNormalLatency());
            }
            if (!all.isEmpty()) {
                b.routine(() -> {
                    for (VitalsWarmupRoutine r : all) {
                        try {
                            r.warmUp();
                        } catch (RuntimeException e) {
                            throw e;
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                    }
                });
            }
            try {
                return b.build();
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("vitals.warmup: " + e.getMessage(), e);
            }
        }

        /** The readiness check (a {@link Check} bean: the registry registers it). */
        @Bean
        Check vitalsWarmupCheck(Warmup warmup) {
            return warmup.check();
        }

        /** Starts the wait and the routine once the application is ready (it listens). */
        @Bean
        ApplicationListener<ApplicationReadyEvent> vitalsWarmupStart(Warmup warmup) {
            return event -> warmup.start();
        }
    }
}
