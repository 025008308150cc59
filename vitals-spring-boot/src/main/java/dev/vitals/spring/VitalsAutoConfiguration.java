package dev.vitals.spring;

import dev.vitals.Check;
import dev.vitals.HealthListener;
import dev.vitals.HealthRegistry;
import dev.vitals.StartupCompletion;
import dev.vitals.monitor.Monitor;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroups;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroupsPostProcessor;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.ReactiveHealthContributor;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.ClassUtils;

/**
 * The Vitals registry in a Spring Boot application: a {@link HealthRegistry} holding every
 * adopted Spring health indicator (names and {@code management.endpoint.health.group.*}
 * membership kept, settings from {@code vitals.*}) plus any {@link Check} beans and
 * {@link VitalsCustomizer}s, started with the context and closed with it; and, opt-in, Actuator's
 * health endpoint served through Vitals. The probe server, the availability mapping, the
 * web-server pools and the meters are configured by the sibling auto-configurations
 * ({@code VitalsServerAutoConfiguration}, {@code VitalsAvailabilityAutoConfiguration},
 * {@code VitalsWebServerAutoConfiguration}, {@code VitalsMetricsAutoConfiguration}). Every bean
 * backs off when the application defines its own. On the other Boot generation it fails the
 * start with one line naming the right module ({@link BootGeneration}).
 */
@AutoConfiguration(afterName = {
        "org.springframework.boot.autoconfigure.availability.ApplicationAvailabilityAutoConfiguration",
        "org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration",
        "org.springframework.boot.health.autoconfigure.actuate.endpoint.HealthEndpointAutoConfiguration"})
@ConditionalOnBooleanProperty(name = "vitals.enabled", matchIfMissing = true)
@EnableConfigurationProperties(VitalsProperties.class)
public final class VitalsAutoConfiguration {
    private static final System.Logger LOG = System.getLogger("dev.vitals.spring");
    private static final boolean REACTOR = ClassUtils.isPresent("reactor.core.publisher.Mono", VitalsAutoConfiguration.class.getClassLoader());

    VitalsAutoConfiguration() {
        BootGeneration.require();
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    HealthRegistry vitalsHealthRegistry(VitalsProperties properties, ListableBeanFactory beans,
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
                ? adopt(properties, beans, HealthApi.contributorNames(beans),
                        Optional.ofNullable(springGroups.getIfAvailable()), bridge)
                : List.of();
        List<Check> all = new ArrayList<>(adopted);
        checks.orderedStream().forEach(all::add);
        for (String g : Adoption.customGroups(all)) {
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
                                     Function<String, String> names, Optional<HealthEndpointGroups> springGroups,
                                     Optional<ActuatorBridge> bridge) {
        Map<String, HealthContributor> blocking = new LinkedHashMap<>();
        beans.getBeansOfType(HealthContributor.class).forEach((bean, c) -> blocking.put(names.apply(bean), c));
        Map<String, ReactiveHealthContributor> reactive = new LinkedHashMap<>();
        if (REACTOR) {
            beans.getBeansOfType(ReactiveHealthContributor.class)
                    .forEach((bean, c) -> reactive.put(names.apply(bean), c));
        }
        Set<String> excluded = new LinkedHashSet<>(properties.getExclude());
        List<Check> out = new ArrayList<>();
        for (SpringIndicators.Leaf leaf : SpringIndicators.leaves(blocking, reactive)) {
            if (Adoption.isExcluded(excluded, leaf.springName)) {
                continue;
            }
            Set<String> groups = SpringIndicators.springGroups(leaf.springName, springGroups, properties.getHealthGroup());
            Optional<VitalsProperties.CheckSettings> own = Adoption.own(properties.getChecks(), leaf.springName);
            if (groups.isEmpty() && own.map(VitalsProperties.CheckSettings::getGroups).isEmpty()) {
                LOG.log(Level.INFO, "Vitals: health contributor ''{0}'' is in no Spring health group; not adopted", leaf.springName);
                continue;
            }
            Optional<ActuatorBridge.Binding> binding = bridge.map(b -> b.bind(leaf.indicator(), leaf.springName));
            out.add(SpringIndicators.check(leaf, groups, properties.getDefaults(), own, binding));
        }
        return out;
    }

    /** Starts the registry and the monitors with the context ({@link VitalsLifecycle}). */
    @Bean
    VitalsLifecycle vitalsLifecycle(HealthRegistry registry, ObjectProvider<Monitor> monitors) {
        return new VitalsLifecycle(registry, monitors);
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
}
