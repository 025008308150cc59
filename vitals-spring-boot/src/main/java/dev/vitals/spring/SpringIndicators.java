package dev.vitals.spring;

import dev.vitals.AsyncHealthCheck;
import dev.vitals.Check;
import dev.vitals.Health;
import dev.vitals.HealthCheck;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroup;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroups;
import org.springframework.boot.health.application.AvailabilityStateHealthIndicator;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.CompositeReactiveHealthContributor;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.ReactiveHealthContributor;
import org.springframework.boot.health.contributor.ReactiveHealthIndicator;

/**
 * Turns Spring health contributors into Vitals checks: composites are flattened into their
 * leaves ({@code db/primary} in Spring becomes check {@code db.primary}), each leaf keeps its
 * Spring group membership and gets its evaluation settings from {@code vitals.*} properties.
 * Spring's own availability indicators ({@code livenessState}, {@code readinessState}) are not
 * adopted: Vitals' {@code availability} check stands for them, kept in step by
 * {@link AvailabilityBridge}.
 */
final class SpringIndicators {
    private SpringIndicators() {
    }

    /** A leaf contributor: exactly one of the two indicators is set. */
    static final class Leaf {
        final String springName;
        final HealthIndicator blocking;
        final ReactiveHealthIndicator reactive;

        Leaf(String springName, HealthIndicator blocking, ReactiveHealthIndicator reactive) {
            this.springName = springName;
            this.blocking = blocking;
            this.reactive = reactive;
        }

        /** @return the Spring indicator instance (blocking or reactive) */
        Object indicator() {
            return blocking != null ? blocking : reactive;
        }
    }

    /**
     * @param contributors blocking contributors by Spring contributor name (already without suffix)
     * @param reactiveContributors reactive contributors by Spring contributor name
     * @return every leaf, composites flattened, Spring's availability indicators left out
     */
    static List<Leaf> leaves(Map<String, HealthContributor> contributors,
                             Map<String, ReactiveHealthContributor> reactiveContributors) {
        List<Leaf> out = new ArrayList<>();
        contributors.forEach((name, c) -> addBlocking(out, name, c));
        reactiveContributors.forEach((name, c) -> addReactive(out, name, c));
        return out;
    }

    private static void addBlocking(List<Leaf> out, String name, HealthContributor c) {
        if (c instanceof AvailabilityStateHealthIndicator) {
            return;
        }
        if (c instanceof HealthIndicator) {
            out.add(new Leaf(name, (HealthIndicator) c, null));
        } else if (c instanceof CompositeHealthContributor) {
            HealthApi.forEach((CompositeHealthContributor) c, (child, cc) -> addBlocking(out, name + "/" + child, cc));
        }
    }

    private static void addReactive(List<Leaf> out, String name, ReactiveHealthContributor c) {
        if (c instanceof ReactiveHealthIndicator) {
            out.add(new Leaf(name, null, (ReactiveHealthIndicator) c));
        } else if (c instanceof CompositeReactiveHealthContributor) {
            HealthApi.forEach((CompositeReactiveHealthContributor) c, (child, cc) -> addReactive(out, name + "/" + child, cc));
        }
    }

    /**
     * The Vitals groups of a leaf from Spring's {@code management.endpoint.health.group.*}
     * membership: Spring's {@code liveness}, {@code readiness} and {@code startup} groups map to
     * Vitals' built-in groups, any other Spring group to a custom Vitals group of the same name,
     * and Spring's primary group (what {@code /actuator/health} shows) to {@code healthGroup}.
     * Without Actuator's groups every leaf is in {@code healthGroup} only.
     */
    static Set<String> springGroups(String springName, Optional<HealthEndpointGroups> groups, String healthGroup) {
        Set<String> out = new LinkedHashSet<>();
        if (groups.isEmpty()) {
            out.add(healthGroup);
            return out;
        }
        HealthEndpointGroups g = groups.get();
        if (g.getPrimary().isMember(springName)) {
            out.add(healthGroup);
        }
        for (String name : g.getNames()) {
            HealthEndpointGroup group = g.get(name);
            if (group != null && group.isMember(springName)) {
                out.add(name);
            }
        }
        return out;
    }

    /**
     * Builds the check for one leaf.
     *
     * @param leaf the leaf
     * @param groups its Vitals groups (not empty)
     * @param defaults {@code vitals.defaults}
     * @param own {@code vitals.checks.<name>}, if any
     * @param binding when Actuator is served through Vitals, where the check hands every Spring
     *     health it gets, with its conversion
     * @return the check
     * @throws IllegalArgumentException on a bad setting, naming the check and the field
     */
    static Check check(Leaf leaf, Set<String> groups, VitalsProperties.CheckSettings defaults,
                       Optional<VitalsProperties.CheckSettings> own, Optional<ActuatorBridge.Binding> binding) {
        String name = Adoption.checkName(leaf.springName);
        Check.Builder b;
        if (leaf.blocking != null) {
            HealthIndicator indicator = leaf.blocking;
            HealthCheck check = binding.isEmpty() ? () -> convert(HealthApi.health(indicator, true)) : () -> {
                org.springframework.boot.health.contributor.Health spring = HealthApi.health(indicator, true);
                Health converted = convert(spring);
                binding.get().record(spring, converted);
                return converted;
            };
            b = Check.builder(name, check);
        } else {
            ReactiveHealthIndicator indicator = leaf.reactive;
            AsyncHealthCheck check = binding.isEmpty() ? () -> HealthApi.health(indicator, true).map(SpringIndicators::convert).toFuture()
                    : () -> HealthApi.health(indicator, true).map(spring -> {
                        Health converted = convert(spring);
                        binding.get().record(spring, converted);
                        return converted;
                    }).toFuture();
            b = Check.asyncBuilder(name, check);
        }
        b.dependency(Adoption.isKnownDependency(leaf.indicator().getClass()));
        return Adoption.build(b, name, groups, defaults, own);
    }

    /**
     * Converts a Spring health: UP to UP, DOWN and OUT_OF_SERVICE to DOWN, UNKNOWN to UNKNOWN,
     * any custom status code to DEGRADED ({@link Adoption#convert}). A null health stays null
     * (the engine then reports DOWN "check returned null").
     */
    static Health convert(org.springframework.boot.health.contributor.Health spring) {
        if (spring == null) {
            return null;
        }
        return Adoption.convert(spring.getStatus().getCode(), spring.getStatus().getDescription(), spring.getDetails());
    }
}
