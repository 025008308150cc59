package dev.vitals.spring;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.web.WebServerNamespace;
import org.springframework.boot.actuate.health.AdditionalHealthEndpointPath;
import org.springframework.boot.actuate.health.HealthEndpointGroup;
import org.springframework.boot.actuate.health.HealthEndpointGroups;
import org.springframework.boot.actuate.health.HealthEndpointGroupsPostProcessor;
import org.springframework.boot.actuate.health.HttpCodeStatusMapper;
import org.springframework.boot.actuate.health.StatusAggregator;

/**
 * Spring's health endpoint groups, unchanged except that asking a group whether to show its
 * components (which Actuator's endpoint does once per request, before it calls any indicator)
 * first starts the Vitals evaluation of the group's adopted on-demand members
 * ({@link ActuatorBridge#prefetch}). Each group is wrapped once: the endpoint compares groups by
 * identity.
 */
final class PrefetchingGroups implements HealthEndpointGroups {
    private final HealthEndpointGroups delegate;
    private final ActuatorBridge bridge;
    private final Map<HealthEndpointGroup, HealthEndpointGroup> wrapped = Collections.synchronizedMap(new IdentityHashMap<>());

    PrefetchingGroups(HealthEndpointGroups delegate, ActuatorBridge bridge) {
        this.delegate = delegate;
        this.bridge = bridge;
    }

    /** The post-processor Actuator applies to its {@link HealthEndpointGroups} bean. */
    static HealthEndpointGroupsPostProcessor postProcessor(ActuatorBridge bridge) {
        return groups -> groups instanceof PrefetchingGroups ? groups : new PrefetchingGroups(groups, bridge);
    }

    private HealthEndpointGroup wrap(HealthEndpointGroup g) {
        return g == null ? null : wrapped.computeIfAbsent(g, d -> new Group(d, bridge));
    }

    @Override
    public HealthEndpointGroup getPrimary() {
        return wrap(delegate.getPrimary());
    }

    @Override
    public Set<String> getNames() {
        return delegate.getNames();
    }

    @Override
    public HealthEndpointGroup get(String name) {
        return wrap(delegate.get(name));
    }

    @Override
    public HealthEndpointGroup get(AdditionalHealthEndpointPath path) {
        return wrap(delegate.get(path));
    }

    @Override
    public Set<HealthEndpointGroup> getAllWithAdditionalPath(WebServerNamespace namespace) {
        Set<HealthEndpointGroup> out = new LinkedHashSet<>();
        for (HealthEndpointGroup g : delegate.getAllWithAdditionalPath(namespace)) {
            out.add(wrap(g));
        }
        return out;
    }

    private static final class Group implements HealthEndpointGroup {
        private final HealthEndpointGroup delegate;
        private final ActuatorBridge bridge;

        Group(HealthEndpointGroup delegate, ActuatorBridge bridge) {
            this.delegate = delegate;
            this.bridge = bridge;
        }

        @Override
        public boolean isMember(String name) {
            return delegate.isMember(name);
        }

        @Override
        public boolean showComponents(SecurityContext securityContext) {
            bridge.prefetch(delegate);
            return delegate.showComponents(securityContext);
        }

        @Override
        public boolean showDetails(SecurityContext securityContext) {
            return delegate.showDetails(securityContext);
        }

        @Override
        public StatusAggregator getStatusAggregator() {
            return delegate.getStatusAggregator();
        }

        @Override
        public HttpCodeStatusMapper getHttpCodeStatusMapper() {
            return delegate.getHttpCodeStatusMapper();
        }

        @Override
        public AdditionalHealthEndpointPath getAdditionalPath() {
            return delegate.getAdditionalPath();
        }
    }
}
