package dev.vitals.spring;

import dev.vitals.HealthRegistry;
import dev.vitals.server.DetailsPolicy;
import dev.vitals.server.ProbeServer;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Vitals' probe server ({@code vitals.server.*}): its own port, one event-loop thread (the JDK transport),
 * independent of the web server.
 */
@AutoConfiguration(after = VitalsAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "vitals.enabled", matchIfMissing = true)
@ConditionalOnBean(HealthRegistry.class)
public final class VitalsServerAutoConfiguration {
    VitalsServerAutoConfiguration() {
    }

    /**
     * The probe server, started as soon as the registry exists (so {@code /startupz} answers
     * "starting" while the rest of the context initialises) and stopped when the context is
     * destroyed (at once: the drain on context close is the graceful part), after the web server.
     *
     * @throws IllegalArgumentException naming the property, for {@code details=when-authorized}
     *     without a token or an option out of range
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    @ConditionalOnBooleanProperty(name = "vitals.server.enabled", matchIfMissing = true)
    ProbeServer vitalsProbeServer(HealthRegistry registry, VitalsProperties properties) {
        VitalsProperties.Server p = properties.getServer();
        ProbeServer.Builder b = ProbeServer.builder(registry).port(p.getPort()).basePath(p.getBasePath());
        if (p.getAddress() != null) {
            b.bindAddress(p.getAddress());
        }
        switch (p.getDetails()) {
            case ALWAYS:
                b.detailsPolicy(DetailsPolicy.always());
                break;
            case WHEN_AUTHORIZED:
                if (p.getToken() == null || p.getToken().isBlank()) {
                    throw new IllegalArgumentException("vitals.server.details=when-authorized needs vitals.server.token");
                }
                b.detailsPolicy(DetailsPolicy.whenAuthorized(p.getToken()));
                break;
            default:
                b.detailsPolicy(DetailsPolicy.never());
                break;
        }
        try {
            if (p.getEventLoopThreads() != null) {
                b.eventLoopThreads(p.getEventLoopThreads());
            }
            if (p.getMaxConnections() != null) {
                b.maxConnections(p.getMaxConnections());
            }
            if (p.getReadTimeout() != null) {
                b.readTimeout(p.getReadTimeout());
            }
            if (p.getIdleTimeout() != null) {
                b.idleTimeout(p.getIdleTimeout());
            }
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("vitals.server: " + e.getMessage(), e);
        }
        return b.build().start();
    }
}
