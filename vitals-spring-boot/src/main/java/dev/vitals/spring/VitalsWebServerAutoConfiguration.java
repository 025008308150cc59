package dev.vitals.spring;

import dev.vitals.Groups;
import dev.vitals.monitor.LagMonitor;
import dev.vitals.monitor.PauseDetector;
import dev.vitals.monitor.ProgressWatchdog;
import dev.vitals.monitor.SaturationMonitor;
import java.lang.System.Logger.Level;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.web.server.context.WebServerInitializedEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The application's own execution resources as Vitals monitors (this Boot generation's classes): the embedded
 * web server's pool (Tomcat, Jetty or Reactor Netty's loops) and, opt-in, the JVM pause
 * detector. Every monitor samples on the registry's scheduler (no thread of its own, except the
 * pause detector's) and reaches Micrometer through {@code VitalsMetricsAutoConfiguration}.
 */
@AutoConfiguration(afterName = {"dev.vitals.spring.VitalsAutoConfiguration",
        "org.springframework.boot.reactor.netty.autoconfigure.NettyReactiveWebServerAutoConfiguration"})
@ConditionalOnBooleanProperty(name = "vitals.enabled", matchIfMissing = true)
public final class VitalsWebServerAutoConfiguration {
    private static final System.Logger LOG = System.getLogger("dev.vitals.spring");

    VitalsWebServerAutoConfiguration() {
    }

    /** JVM pause detector (opt-in: it keeps one thread sleeping and waking). */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBooleanProperty(name = "vitals.pause-detector.enabled")
    PauseDetector vitalsPauseDetector() {
        return PauseDetector.builder().build();
    }

    /**
     * Embedded Tomcat's worker pool as a saturation source (check {@code tomcat-saturation} in
     * readiness: DEGRADED, still 200, at 90% busy) and a progress source (check
     * {@code tomcat-progress} in liveness: DOWN when requests wait and none completes for
     * {@code vitals.web-server.stall-after}), so that a stuck application fails liveness even
     * though the probe server itself is fine (DESIGN.md P2).
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {"org.springframework.boot.tomcat.TomcatWebServer", "org.apache.tomcat.util.threads.ThreadPoolExecutor"})
    @ConditionalOnBooleanProperty(name = "vitals.web-server.enabled", matchIfMissing = true)
    static class TomcatPoolConfiguration {
        private final TomcatPool pool = new TomcatPool();

        @Bean
        SaturationMonitor vitalsTomcatSaturation() {
            return SaturationMonitor.builder("tomcat", pool.saturation()).build();
        }

        @Bean
        ProgressWatchdog vitalsTomcatProgress(VitalsProperties properties) {
            return ProgressWatchdog.builder("tomcat", pool.progress())
                    .stallAfter(properties.getWebServer().getStallAfter()).build();
        }

        /** Registers the two checks when the application's web server factory is Tomcat's. */
        @Bean
        VitalsCustomizer vitalsTomcatChecks(@Qualifier("vitalsTomcatSaturation") SaturationMonitor vitalsTomcatSaturation,
                                            @Qualifier("vitalsTomcatProgress") ProgressWatchdog vitalsTomcatProgress,
                                            ListableBeanFactory beans) {
            return b -> {
                if (beans.getBeanNamesForType(org.springframework.boot.tomcat.ConfigurableTomcatWebServerFactory.class, true, false).length > 0) {
                    b.register(Adoption.monitorCheck("tomcat-saturation", vitalsTomcatSaturation).groups(Groups.READINESS).build())
                            .register(Adoption.monitorCheck("tomcat-progress", vitalsTomcatProgress).groups(Groups.LIVENESS).build());
                }
            };
        }

        @Bean
        ApplicationListener<WebServerInitializedEvent> vitalsTomcatPoolAttacher() {
            return event -> {
                if (event.getApplicationContext().getServerNamespace() == null
                        && event.getWebServer() instanceof org.springframework.boot.tomcat.TomcatWebServer
                        && pool.attach(((org.springframework.boot.tomcat.TomcatWebServer) event.getWebServer())
                                .getTomcat().getConnector().getProtocolHandler().getExecutor())) {
                    LOG.log(Level.DEBUG, "Vitals: watching Tomcat's worker pool");
                }
            };
        }

    }

    /**
     * Embedded Jetty's worker pool (servlet or reactive), as for Tomcat: check
     * {@code jetty-saturation} in readiness and {@code jetty-progress} in liveness
     * ({@link JettyPool}; a statistics handler in front of the application counts completed
     * requests).
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {"org.springframework.boot.jetty.JettyWebServer", "org.eclipse.jetty.util.thread.QueuedThreadPool",
            "org.eclipse.jetty.server.handler.StatisticsHandler"})
    @ConditionalOnBooleanProperty(name = "vitals.web-server.enabled", matchIfMissing = true)
    static class JettyPoolConfiguration {
        private final JettyPool pool = new JettyPool();

        @Bean
        SaturationMonitor vitalsJettySaturation() {
            return SaturationMonitor.builder("jetty", pool.saturation()).build();
        }

        @Bean
        ProgressWatchdog vitalsJettyProgress(VitalsProperties properties) {
            return ProgressWatchdog.builder("jetty", pool.progress())
                    .stallAfter(properties.getWebServer().getStallAfter()).build();
        }

        /** Registers the two checks when the application's web server factory is Jetty's. */
        @Bean
        VitalsCustomizer vitalsJettyChecks(@Qualifier("vitalsJettySaturation") SaturationMonitor vitalsJettySaturation,
                                            @Qualifier("vitalsJettyProgress") ProgressWatchdog vitalsJettyProgress,
                                           ListableBeanFactory beans) {
            return b -> {
                if (beans.getBeanNamesForType(org.springframework.boot.jetty.ConfigurableJettyWebServerFactory.class, true, false).length > 0) {
                    b.register(Adoption.monitorCheck("jetty-saturation", vitalsJettySaturation).groups(Groups.READINESS).build())
                            .register(Adoption.monitorCheck("jetty-progress", vitalsJettyProgress).groups(Groups.LIVENESS).build());
                }
            };
        }

        /** Puts the statistics handler in front of the application's handlers. */
        @Bean
        org.springframework.boot.web.server.WebServerFactoryCustomizer<org.springframework.boot.jetty.ConfigurableJettyWebServerFactory> vitalsJettyStatistics() {
            return factory -> factory.addServerCustomizers(pool::install);
        }

        @Bean
        ApplicationListener<WebServerInitializedEvent> vitalsJettyPoolAttacher() {
            return event -> {
                if (event.getApplicationContext().getServerNamespace() == null
                        && event.getWebServer() instanceof org.springframework.boot.jetty.JettyWebServer
                        && pool.attach(((org.springframework.boot.jetty.JettyWebServer) event.getWebServer()).getServer().getThreadPool())) {
                    LOG.log(Level.DEBUG, "Vitals: watching Jetty's worker pool");
                }
            };
        }
    }

    /**
     * Reactor Netty's server event loops (WebFlux on Netty) watched by a {@link LagMonitor}:
     * check {@code netty-event-loop} in liveness, DOWN when a heartbeat posted to the loops has
     * waited {@code vitals.web-server.stall-after} (a loop blocked by application code). The
     * heartbeats go to the loop group, which hands each to its next loop: a blocked loop is
     * caught once the round reaches it; the lag figures mix the loops.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {"org.springframework.boot.reactor.netty.NettyReactiveWebServerFactory",
            "org.springframework.http.client.ReactorResourceFactory", "reactor.netty.resources.LoopResources"})
    @ConditionalOnBean(type = "org.springframework.boot.reactor.netty.NettyReactiveWebServerFactory")
    @ConditionalOnBooleanProperty(name = "vitals.web-server.enabled", matchIfMissing = true)
    static class ReactorNettyConfiguration {
        /** The server's loops: Boot runs the server on the {@code ReactorResourceFactory}'s loop resources. */
        @Bean
        LagMonitor vitalsNettyEventLoopLag(org.springframework.http.client.ReactorResourceFactory resources, VitalsProperties properties) {
            return LagMonitor.forExecutor("netty-event-loop", resources.getLoopResources().onServer(true))
                    .stallAfter(properties.getWebServer().getStallAfter()).build();
        }

        @Bean
        VitalsCustomizer vitalsNettyEventLoopCheck(@Qualifier("vitalsNettyEventLoopLag") LagMonitor lag) {
            return b -> b.register(Adoption.monitorCheck("netty-event-loop", lag).groups(Groups.LIVENESS).build());
        }
    }
}
