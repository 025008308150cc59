package dev.vitals;

import java.time.Instant;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The immutable, aggregated result of one group: the overall status plus each check's health,
 * in registration order.
 *
 * <p>Aggregation (DESIGN.md section 5): the worst status among critical checks, then
 * {@link Status#DEGRADED} if any non-critical check is not {@link Status#UP}. An empty group
 * is {@code UP}. Once startup has completed, the startup group's report stays {@code UP},
 * as kubelet stops startup probing after the first success.
 *
 * <p>Instances are immutable and thread-safe.
 */
public final class Report {
    private final String group;
    private final Status status;
    private final Map<String, Health> checks;
    private final Set<String> nonCritical;
    private final boolean pinnedUp;
    private final Instant observedAt;

    Report(String group, Map<String, Health> checks, Set<String> nonCritical, boolean pinnedUp, Instant observedAt) {
        this.group = group;
        this.checks = Collections.unmodifiableMap(checks);
        this.nonCritical = nonCritical;
        this.pinnedUp = pinnedUp;
        this.observedAt = observedAt;
        this.status = pinnedUp ? Status.UP : aggregate(checks, nonCritical);
    }

    static Status aggregate(Map<String, Health> checks, Set<String> nonCritical) {
        Status worst = Status.UP;
        boolean degrade = false;
        for (Map.Entry<String, Health> e : checks.entrySet()) {
            Status s = e.getValue().status();
            if (nonCritical.contains(e.getKey())) {
                degrade |= s != Status.UP;
            } else {
                worst = worst.worst(s);
            }
        }
        return degrade ? worst.worst(Status.DEGRADED) : worst;
    }

    /** @return the group's name */
    public String group() {
        return group;
    }

    /** @return the aggregated status */
    public Status status() {
        return status;
    }

    /** @return each check's health by name, in registration order; unmodifiable */
    public Map<String, Health> checks() {
        return checks;
    }

    /**
     * @param check a check name of this report
     * @return whether that check is critical (its failure makes the group DOWN)
     * @throws java.util.NoSuchElementException if the report has no such check
     */
    public boolean isCritical(String check) {
        if (!checks.containsKey(check)) {
            throw new java.util.NoSuchElementException("report '" + group + "' has no check '" + check + "'");
        }
        return !nonCritical.contains(check);
    }

    /** @return wall-clock time at which this report was assembled */
    public Instant observedAt() {
        return observedAt;
    }

    /**
     * The same report without some checks, re-aggregated (for {@code ?exclude=}).
     *
     * @param excluded names to leave out; names that match no check are ignored
     * @return this report when nothing is left out, else a new report
     * @throws NullPointerException if {@code excluded} is null
     */
    public Report without(Collection<String> excluded) {
        Objects.requireNonNull(excluded, "excluded");
        if (excluded.isEmpty() || Collections.disjoint(excluded, checks.keySet())) {
            return this;
        }
        Map<String, Health> kept = new LinkedHashMap<>(checks);
        kept.keySet().removeAll(excluded);
        return new Report(group, kept, nonCritical, pinnedUp, observedAt);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(group).append(": ").append(status);
        checks.forEach((name, h) -> sb.append("\n  ").append(name).append(' ').append(h.status())
                .append(h.message().map(m -> " (" + m + ")").orElse(""))
                .append(" in ").append(h.duration().toMillis()).append(" ms"));
        return sb.toString();
    }
}
