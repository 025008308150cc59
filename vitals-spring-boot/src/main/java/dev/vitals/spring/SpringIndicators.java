package dev.vitals.spring;

import dev.vitals.AsyncHealthCheck;
import dev.vitals.Check;
import dev.vitals.Groups;
import dev.vitals.Health;
import dev.vitals.HealthCheck;
import dev.vitals.Mode;
import dev.vitals.Status;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroup;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroups;
import org.springframework.boot.health.application.AvailabilityStateHealthIndicator;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.CompositeReactiveHealthContributor;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.HealthContributors;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.ReactiveHealthContributor;
import org.springframework.boot.health.contributor.ReactiveHealthContributors;
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

    /** One adopted leaf: its Spring path and the Vitals check made from it. */
    static final class Adopted {
        final String springName;
        final Check check;

        Adopted(String springName, Check check) {
            this.springName = springName;
            this.check = check;
        }
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
            for (HealthContributors.Entry e : (CompositeHealthContributor) c) {
                addBlocking(out, name + "/" + e.name(), e.contributor());
            }
        }
    }

    private static void addReactive(List<Leaf> out, String name, ReactiveHealthContributor c) {
        if (c instanceof ReactiveHealthIndicator) {
            out.add(new Leaf(name, null, (ReactiveHealthIndicator) c));
        } else if (c instanceof CompositeReactiveHealthContributor) {
            for (ReactiveHealthContributors.Entry e : (CompositeReactiveHealthContributor) c) {
                addReactive(out, name + "/" + e.name(), e.contributor());
            }
        }
    }

    /**
     * @param springName a Spring contributor path such as {@code db/primary}
     * @return the Vitals check name: {@code /} becomes {@code .}, other characters outside
     *     letters, digits, {@code . _ -} become {@code _}
     */
    static String checkName(String springName) {
        StringBuilder b = new StringBuilder(springName.length());
        for (int i = 0; i < springName.length(); i++) {
            char c = springName.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '.' || c == '_' || c == '-';
            b.append(c == '/' ? '.' : ok ? c : '_');
        }
        return b.toString();
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
     * @return the check
     * @throws IllegalArgumentException on a bad setting, naming the check and the field
     */
    static Check check(Leaf leaf, Set<String> groups, VitalsProperties.CheckSettings defaults,
                       Optional<VitalsProperties.CheckSettings> own) {
        return check(leaf, groups, defaults, own, Optional.empty());
    }

    /**
     * As {@link #check(Leaf, Set, VitalsProperties.CheckSettings, Optional)}, the check also
     * handing every Spring health it gets, with its conversion, to {@code binding}.
     */
    static Check check(Leaf leaf, Set<String> groups, VitalsProperties.CheckSettings defaults,
                       Optional<VitalsProperties.CheckSettings> own, Optional<ActuatorBridge.Binding> binding) {
        String name = checkName(leaf.springName);
        Check.Builder b;
        if (leaf.blocking != null) {
            HealthIndicator indicator = leaf.blocking;
            HealthCheck check = binding.isEmpty() ? () -> convert(indicator.health(true)) : () -> {
                org.springframework.boot.health.contributor.Health spring = indicator.health(true);
                Health converted = convert(spring);
                binding.get().record(spring, converted);
                return converted;
            };
            b = Check.builder(name, check);
        } else {
            ReactiveHealthIndicator indicator = leaf.reactive;
            AsyncHealthCheck check = binding.isEmpty() ? () -> indicator.health(true).map(SpringIndicators::convert).toFuture()
                    : () -> indicator.health(true).map(spring -> {
                        Health converted = convert(spring);
                        binding.get().record(spring, converted);
                        return converted;
                    }).toFuture();
            b = Check.asyncBuilder(name, check);
        }
        List<String> g = new ArrayList<>(pick(own, defaults, VitalsProperties.CheckSettings::getGroups)
                .map(l -> (Set<String>) new LinkedHashSet<>(l)).orElse(groups));
        if (g.isEmpty()) {
            throw new IllegalArgumentException("check '" + name + "': groups must not be empty");
        }
        b.groups(g.get(0), g.subList(1, g.size()).toArray(new String[0]));
        pick(own, defaults, VitalsProperties.CheckSettings::getMode)
                .ifPresent(m -> b.mode(m == VitalsProperties.CheckMode.ON_DEMAND ? Mode.ON_DEMAND : Mode.SCHEDULED));
        pick(own, defaults, VitalsProperties.CheckSettings::getInterval).ifPresent(b::interval);
        pick(own, defaults, VitalsProperties.CheckSettings::getTimeout).ifPresent(b::timeout);
        pick(own, defaults, VitalsProperties.CheckSettings::getMaxAge).ifPresent(b::maxAge);
        pick(own, defaults, VitalsProperties.CheckSettings::getTtl).ifPresent(b::ttl);
        pick(own, defaults, VitalsProperties.CheckSettings::getFailureThreshold).ifPresent(b::failureThreshold);
        pick(own, defaults, VitalsProperties.CheckSettings::getSuccessThreshold).ifPresent(b::successThreshold);
        pick(own, defaults, VitalsProperties.CheckSettings::getCritical).ifPresent(b::critical);
        b.dependency(isKnownDependency(leaf.indicator().getClass()));
        return b.build();
    }

    /** Simple-name prefixes of Spring Boot's indicators of remote dependencies (issue 19, DESIGN.md P2). */
    private static final List<String> DEPENDENCY_INDICATORS = List.of("DataSource", "Redis", "Mongo", "Mail", "Jms",
            "Elasticsearch");

    /**
     * Whether an indicator is, or extends, one of Spring Boot's indicators of a remote dependency
     * (DataSource, Redis, Mongo, mail, JMS, Elasticsearch; blocking and reactive), matched by the
     * simple names of its class and superclasses so the Boot module that holds it need not be on
     * the classpath. Such a check is tagged {@link Check#dependency()}: in liveness it is warned
     * about at start and marked in the detailed report.
     */
    static boolean isKnownDependency(Class<?> type) {
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            String n = c.getSimpleName();
            if (c.getName().startsWith("org.springframework.boot.") && n.endsWith("HealthIndicator")) {
                for (String prefix : DEPENDENCY_INDICATORS) {
                    if (n.startsWith(prefix) || n.startsWith("Reactive" + prefix)) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    private static <T> Optional<T> pick(Optional<VitalsProperties.CheckSettings> own, VitalsProperties.CheckSettings defaults,
                                        Function<VitalsProperties.CheckSettings, T> field) {
        Optional<T> v = own.map(field);
        return v.isPresent() ? v : Optional.ofNullable(defaults == null ? null : field.apply(defaults));
    }

    /**
     * Converts a Spring health: UP to UP, DOWN and OUT_OF_SERVICE to DOWN, UNKNOWN to UNKNOWN,
     * any custom status code to DEGRADED (Spring answers 200 for custom codes by default).
     * Details are copied (null values left out); Spring's {@code error} detail
     * ("type: message") also gives the error type. A null health stays null (the engine then
     * reports DOWN "check returned null").
     */
    static Health convert(org.springframework.boot.health.contributor.Health spring) {
        if (spring == null) {
            return null;
        }
        String code = spring.getStatus().getCode();
        Status status;
        switch (code) {
            case "UP":
                status = Status.UP;
                break;
            case "DOWN":
            case "OUT_OF_SERVICE":
                status = Status.DOWN;
                break;
            case "UNKNOWN":
                status = Status.UNKNOWN;
                break;
            default:
                status = Status.DEGRADED;
                break;
        }
        Health.Builder b = Health.builder(status);
        String description = spring.getStatus().getDescription();
        if (description != null && !description.isEmpty()) {
            b.message(description);
        } else if (status != Status.UP && !code.equals(status.name())) {
            b.message("Spring status " + code);
        }
        Map<String, Object> details = spring.getDetails() == null ? Map.of() : spring.getDetails();
        for (Map.Entry<String, Object> e : details.entrySet()) {
            if (e.getKey() != null && !e.getKey().isBlank() && e.getValue() != null) {
                b.detail(e.getKey(), e.getValue());
            }
        }
        Object error = details.get("error");
        if (error instanceof String) {
            String s = (String) error;
            int colon = s.indexOf(':');
            b.errorType(colon > 0 ? s.substring(0, colon) : s);
        }
        return b.build();
    }

    /** @return the custom (non built-in) group names among {@code groups} */
    static Set<String> customGroups(Iterable<Check> checks) {
        Set<String> out = new LinkedHashSet<>();
        for (Check c : checks) {
            for (String g : c.groups()) {
                if (!Groups.LIVENESS.equals(g) && !Groups.READINESS.equals(g) && !Groups.STARTUP.equals(g)) {
                    out.add(g);
                }
            }
        }
        return Collections.unmodifiableSet(out);
    }

    /**
     * @param settings {@code vitals.checks}
     * @param springName the leaf's Spring name
     * @return the leaf's own settings, found by Spring name or Vitals check name
     */
    static Optional<VitalsProperties.CheckSettings> own(Map<String, VitalsProperties.CheckSettings> settings, String springName) {
        Objects.requireNonNull(settings, "settings");
        VitalsProperties.CheckSettings s = settings.get(springName);
        if (s == null) {
            s = settings.get(checkName(springName));
        }
        return Optional.ofNullable(s);
    }

    /** @return the adopted leaves as a map from Spring name to check name, in order */
    static Map<String, String> names(List<Adopted> adopted) {
        Map<String, String> m = new LinkedHashMap<>();
        for (Adopted a : adopted) {
            m.put(a.springName, a.check.name());
        }
        return m;
    }
}
