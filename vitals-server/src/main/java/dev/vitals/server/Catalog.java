package dev.vitals.server;

import dev.vitals.Check;
import dev.vitals.HealthRegistry;
import dev.vitals.Mode;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.HashSet;
import java.util.Set;

/**
 * What routing needs to know of a registry, fixed once the registry is built: each group's
 * check names in report order (the built-in groups include the {@code availability}
 * pseudo-check) and, for groups with on-demand checks, the group deadline (the longest timeout
 * of its on-demand checks). Immutable.
 */
final class Catalog {
    private final Map<String, List<String>> checksByGroup;
    private final Map<String, Duration> onDemandDeadlines;
    private final Set<String> dependencies;

    Catalog(Map<String, List<String>> checksByGroup, Map<String, Duration> onDemandDeadlines) {
        this(checksByGroup, onDemandDeadlines, Set.of());
    }

    Catalog(Map<String, List<String>> checksByGroup, Map<String, Duration> onDemandDeadlines, Set<String> dependencies) {
        this.dependencies = Set.copyOf(dependencies);
        Map<String, List<String>> copy = new LinkedHashMap<>();
        checksByGroup.forEach((g, names) -> copy.put(g, List.copyOf(names)));
        this.checksByGroup = java.util.Collections.unmodifiableMap(copy);
        this.onDemandDeadlines = Map.copyOf(onDemandDeadlines);
    }

    /**
     * Reads a registry's groups and checks; reads reports, which never blocks nor runs a check.
     *
     * @throws IllegalStateException if the registry is closed
     */
    static Catalog of(HealthRegistry registry) {
        Map<String, List<String>> names = new LinkedHashMap<>();
        Map<String, Duration> deadlines = new LinkedHashMap<>();
        Set<String> dependencies = new HashSet<>();
        for (Check c : registry.checks()) {
            if (c.dependency()) {
                dependencies.add(c.name());
            }
        }
        for (String g : registry.groups()) {
            names.put(g, List.copyOf(registry.report(g).checks().keySet()));
        }
        for (Check c : registry.checks()) {
            if (c.mode() != Mode.ON_DEMAND) {
                continue;
            }
            for (String g : c.groups()) {
                deadlines.merge(g, c.timeout(), (a, b) -> a.compareTo(b) >= 0 ? a : b);
            }
        }
        return new Catalog(names, deadlines, dependencies);
    }

    /** @return whether the check of that name is tagged as reaching a remote dependency */
    boolean isDependency(String check) {
        return dependencies.contains(check);
    }

    boolean hasGroup(String group) {
        return checksByGroup.containsKey(group);
    }

    List<String> groups() {
        return List.copyOf(checksByGroup.keySet());
    }

    /** @return the group's check names in report order; empty for an unknown group */
    List<String> checks(String group) {
        return checksByGroup.getOrDefault(group, List.of());
    }

    /** @return the longest timeout of the group's on-demand checks, when it has any */
    Optional<Duration> onDemandDeadline(String group) {
        return Optional.ofNullable(onDemandDeadlines.get(group));
    }
}
