package dev.vitals.spring;

import dev.vitals.Check;
import dev.vitals.HealthListener;
import dev.vitals.HealthRegistry;
import dev.vitals.StartupCompletion;
import dev.vitals.Groups;
import dev.vitals.micrometer.VitalsMetrics;
import dev.vitals.monitor.LagMonitor;
import dev.vitals.monitor.Monitor;
import dev.vitals.monitor.PauseDetector;
import dev.vitals.monitor.ProgressWatchdog;
import dev.vitals.monitor.SaturationMonitor;
import dev.vitals.server.DetailsPolicy;
import dev.vitals.server.ProbeServer;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroups;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroupsPostProcessor;
import org.springframework.boot.health.autoconfigure.registry.HealthContributorNameGenerator;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.ReactiveHealthContributor;
import org.springframework.boot.web.server.context.WebServerInitializedEvent;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationListener;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.ClassUtils;

/**
 * Auto-configures Vitals in a Spring Boot 4.0 application (see the module's README):
 * a {@link HealthRegistry} holding every adopted Spring health indicator plus any
 * {@link Check} beans and {@link VitalsCustomizer}s, started with the context and closed with
 * it; the availability mapping ({@link AvailabilityBridge}); Micrometer meters when Micrometer
 * is present. Every bean backs off when the application defines its own.
 */
@AutoConfiguration(afterName = {
        "org.springframework.boot.autoconfigure.availability.ApplicationAvailabilityAutoConfiguration",
        "org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration",
        "org.springframework.boot.health.autoconfigure.actuate.endpoint.HealthEndpointAutoConfiguration",
        "org.springframework.boot.reactor.netty.autoconfigure.NettyReactiveWebServerAutoConfiguration"})
@ConditionalOnBooleanProperty(name = "vitals.enabled", matchIfMissing = true)
@EnableConfigurationProperties(VitalsProperties.class)
public final class VitalsAutoConfiguration {
    private static final System.Logger LOG = System.getLogger("dev.vitals.spring");
    private static final boolean REACTOR = ClassUtils.isPresent("reactor.core.publisher.Mono", VitalsAutoConfiguration.class.getClassLoader());

    VitalsAutoConfiguration() {
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    HealthRegistry vitalsHealthRegistry(VitalsProperties properties, ListableBeanFactory beans,
                                        ObjectProvider<HealthContributorNameGenerator> nameGenerator,
                                        ObjectProvider<HealthEndpointGroups> springGroups,
                                        ObjectProvider<Check> checks,
                                        ObjectProvider<VitalsCustomizer> customizers,
                                        ObjectProvider<HealthListener> listeners,
                                        ObjectProvider<ActuatorBridge> actuatorBridge) {
        Optional<ActuatorBridge> bridge = Optional.ofNullable(actuatorBridge.getIfAvailable());
        HealthRegistry.Builder builder = HealthRegistry.builder()
                .virtualThreads(properties.isVirtualThreads())
                .startupCompletion(properties.getAvailability().isMapSpringStates()
                        ? StartupCompletion.MANUAL : StartupCompletion.AUTOMATIC);
        List<Check> adopted = properties.isAdoptIndicators()
                ? adopt(properties, beans, nameGenerator.getIfAvailable(HealthContributorNameGenerator::withoutStandardSuffixes),
                        Optional.ofNullable(springGroups.getIfAvailable()), bridge)
                : List.of();
        List<Check> all = new ArrayList<>(adopted);
        checks.orderedStream().forEach(all::add);
        for (String g : SpringIndicators.customGroups(all)) {
            builder.group(g);
        }
        all.forEach(builder::register);
        customizers.orderedStream().forEach(c -> c.customize(builder));
        listeners.orderedStream().forEach(builder::listener);
        HealthRegistry registry = builder.build();
        bridge.ifPresent(b -> {
            b.attach(registry);
            LOG.log(Level.INFO, "Vitals: Actuator''s health endpoint answers from Vitals for {0} indicators", b.size());
        });
        LOG.log(Level.INFO, "Vitals: {0} Spring health indicators adopted, {1} checks in all",
                adopted.size(), registry.checks().size());
        return registry;
    }

    private static List<Check> adopt(VitalsProperties properties, ListableBeanFactory beans,
                                     HealthContributorNameGenerator names, Optional<HealthEndpointGroups> springGroups,
                                     Optional<ActuatorBridge> bridge) {
        Map<String, HealthContributor> blocking = new LinkedHashMap<>();
        beans.getBeansOfType(HealthContributor.class).forEach((bean, c) -> blocking.put(names.generateContributorName(bean), c));
        Map<String, ReactiveHealthContributor> reactive = new LinkedHashMap<>();
        if (REACTOR) {
            beans.getBeansOfType(ReactiveHealthContributor.class)
                    .forEach((bean, c) -> reactive.put(names.generateContributorName(bean), c));
        }
        Set<String> excluded = new LinkedHashSet<>(properties.getExclude());
        List<Check> out = new ArrayList<>();
        for (SpringIndicators.Leaf leaf : SpringIndicators.leaves(blocking, reactive)) {
            if (isExcluded(excluded, leaf.springName)) {
                continue;
            }
            Set<String> groups = SpringIndicators.springGroups(leaf.springName, springGroups, properties.getHealthGroup());
            Optional<VitalsProperties.CheckSettings> own = SpringIndicators.own(properties.getChecks(), leaf.springName);
            if (groups.isEmpty() && own.map(VitalsProperties.CheckSettings::getGroups).isEmpty()) {
                LOG.log(Level.INFO, "Vitals: health contributor ''{0}'' is in no Spring health group; not adopted", leaf.springName);
                continue;
            }
            Optional<ActuatorBridge.Binding> binding = bridge.map(b -> b.bind(leaf.indicator(), leaf.springName));
            out.add(SpringIndicators.check(leaf, groups, properties.getDefaults(), own, binding));
        }
        return out;
    }

    private static boolean isExcluded(Set<String> excluded, String springName) {
        for (String name = springName; ; name = name.substring(0, name.lastIndexOf('/'))) {
            if (excluded.contains(name) || excluded.contains(SpringIndicators.checkName(name))) {
                return true;
            }
            if (name.indexOf('/') < 0) {
                return false;
            }
        }
    }

    @Bean
    @ConditionalOnMissingBean
    AvailabilityBridge vitalsAvailabilityBridge(HealthRegistry registry, ApplicationContext context,
                                                ObjectProvider<ApplicationAvailability> springAvailability,
                                                VitalsProperties properties) {
        return new AvailabilityBridge(registry, context, springAvailability.getIfAvailable(),
                properties.getAvailability().isMapSpringStates(), properties.getAvailability().getPublishInterval(),
                properties.getShutdown().getDrainDelay());
    }

    @Bean
    VitalsLifecycle vitalsLifecycle(HealthRegistry registry, AvailabilityBridge bridge, ObjectProvider<Monitor> monitors) {
        return new VitalsLifecycle(registry, bridge, monitors);
    }

    /**
     * Starts the registry's schedules, every {@link Monitor} bean not yet running (with the
     * registry's clock and scheduler) and the availability publisher with the context; stops
     * them last. Monitor beans are closed by the context when it is destroyed.
     */
    static final class VitalsLifecycle implements SmartLifecycle {
        private final HealthRegistry registry;
        private final AvailabilityBridge bridge;
        private final ObjectProvider<Monitor> monitors;
        private volatile boolean running;

        VitalsLifecycle(HealthRegistry registry, AvailabilityBridge bridge, ObjectProvider<Monitor> monitors) {
            this.registry = registry;
            this.bridge = bridge;
            this.monitors = monitors;
        }

        @Override
        public void start() {
            monitors.orderedStream().filter(m -> !m.isRunning()).forEach(m -> m.start(registry));
            if (!registry.isStarted()) {
                registry.start();
            }
            bridge.start();
            running = true;
        }

        @Override
        public void stop() {
            bridge.stop();
            running = false;
        }

        @Override
        public boolean isRunning() {
            return running;
        }

        /** Starts before and stops after the web servers (which use DEFAULT_PHASE - 2048 and - 1024). */
        @Override
        public int getPhase() {
            return Integer.MIN_VALUE + 1000;
        }
    }

    /**
     * The probe server, started as soon as the registry exists (so {@code /startupz} answers
     * "starting" while the rest of the context initialises) and stopped when the context is
     * destroyed (at once: the drain on context close is the graceful part), after the web server.
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
        return b.build().start();
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
                    b.register(monitorCheck("tomcat-saturation", vitalsTomcatSaturation).groups(Groups.READINESS).build())
                            .register(monitorCheck("tomcat-progress", vitalsTomcatProgress).groups(Groups.LIVENESS).build());
                }
            };
        }

        @Bean
        ApplicationListener<WebServerInitializedEvent> vitalsTomcatPoolAttacher() {
            return event -> {
                if (event.getApplicationContext().getServerNamespace() == null && pool.attach(event.getWebServer())) {
                    LOG.log(Level.DEBUG, "Vitals: watching Tomcat's worker pool");
                }
            };
        }

    }

    /** As {@link Monitor#check()}, under another name: reading a snapshot never blocks. */
    static Check.Builder monitorCheck(String name, Monitor monitor) {
        return Check.builder(name, monitor.healthCheck())
                .interval(monitor.interval().compareTo(Duration.ofSeconds(1)) < 0 ? Duration.ofSeconds(1) : monitor.interval())
                .timeout(Duration.ofSeconds(1))
                .maxAge(Duration.ofSeconds(30));
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
                    b.register(monitorCheck("jetty-saturation", vitalsJettySaturation).groups(Groups.READINESS).build())
                            .register(monitorCheck("jetty-progress", vitalsJettyProgress).groups(Groups.LIVENESS).build());
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
                if (event.getApplicationContext().getServerNamespace() == null && pool.attach(event.getWebServer())) {
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
            return b -> b.register(monitorCheck("netty-event-loop", lag).groups(Groups.LIVENESS).build());
        }
    }

    /**
     * {@code vitals.actuator.serve-through-vitals=true}: Actuator's health endpoint answers from
     * Vitals' evaluation of the adopted indicators ({@link ActuatorBridge}).
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {"org.springframework.boot.health.actuate.endpoint.HealthEndpointGroupsPostProcessor",
            "org.springframework.boot.actuate.endpoint.SecurityContext"})
    @ConditionalOnBooleanProperty(name = "vitals.actuator.serve-through-vitals")
    static class ActuatorConfiguration {
        /** Wraps Spring's contributor registries (a bean post-processor, hence static). */
        @Bean
        static ActuatorBridge vitalsActuatorBridge() {
            return new ActuatorBridge();
        }

        /** Starts a group's on-demand evaluations when the endpoint begins serving it. */
        @Bean
        static HealthEndpointGroupsPostProcessor vitalsPrefetchingGroups(ObjectProvider<ActuatorBridge> bridge) {
            return groups -> PrefetchingGroups.postProcessor(bridge.getObject()).postProcessHealthEndpointGroups(groups);
        }
    }

    /** JVM pause detector (opt-in: it keeps one thread sleeping and waking). */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBooleanProperty(name = "vitals.pause-detector.enabled")
    PauseDetector vitalsPauseDetector() {
        return PauseDetector.builder().build();
    }

    /** Micrometer meters, when vitals-micrometer and Micrometer are on the class path. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {"dev.vitals.micrometer.VitalsMetrics", "io.micrometer.core.instrument.MeterRegistry"})
    @ConditionalOnBooleanProperty(name = "vitals.metrics.enabled", matchIfMissing = true)
    static class MetricsConfiguration {
        /**
         * A {@code MeterBinder} (bound by Boot's metrics auto-configuration to the application's
         * {@code MeterRegistry}) and the registry's {@link HealthListener}.
         */
        @Bean
        @ConditionalOnMissingBean
        VitalsMetrics vitalsMetrics() {
            return VitalsMetrics.create();
        }

        /** Names the registry (status gauges) and adds the figures of every monitor bean. */
        @Bean
        static SmartInitializingSingleton vitalsMetricsMonitor(ObjectProvider<VitalsMetrics> metrics,
                                                               ObjectProvider<HealthRegistry> registry,
                                                               ObjectProvider<Monitor> monitors) {
            return () -> {
                VitalsMetrics m = metrics.getIfAvailable();
                HealthRegistry r = registry.getIfAvailable();
                if (m == null || r == null) {
                    return;
                }
                m.monitor(r);
                monitors.orderedStream().forEach(mon -> {
                    if (mon instanceof SaturationMonitor) {
                        m.saturation((SaturationMonitor) mon);
                    } else if (mon instanceof ProgressWatchdog) {
                        m.progress((ProgressWatchdog) mon);
                    } else if (mon instanceof LagMonitor) {
                        m.lag((LagMonitor) mon);
                    } else if (mon instanceof PauseDetector) {
                        m.pause((PauseDetector) mon);
                    }
                });
            };
        }
    }
}
