package dev.vitals.spring;

import dev.vitals.Check;
import dev.vitals.Groups;
import dev.vitals.Health;
import dev.vitals.Status;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * The Boot-neutral half of adopting Spring health indicators: names, exclusions, settings and
 * the status mapping. The typed half (walking Spring's contributor types, which Boot 4 moved to
 * {@code org.springframework.boot.health.*}) is each module's {@code SpringIndicators}.
 */
final class Adoption {
    private Adoption() {
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
     * @param excluded {@code vitals.exclude}: Spring names or check names
     * @param springName a leaf's Spring path
     * @return whether the leaf or one of its parents is excluded
     */
    static boolean isExcluded(Set<String> excluded, String springName) {
        for (String name = springName; ; name = name.substring(0, name.lastIndexOf('/'))) {
            if (excluded.contains(name) || excluded.contains(checkName(name))) {
                return true;
            }
            if (name.indexOf('/') < 0) {
                return false;
            }
        }
    }

    /** @return the custom (non built-in) group names of {@code checks} */
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

    /**
     * Applies groups and evaluation settings: the check's own ({@code vitals.checks.<name>}),
     * else {@code vitals.defaults}, else Vitals' defaults.
     *
     * @param b the check's builder
     * @param groups its groups from Spring's membership (replaced by a {@code groups} setting)
     * @return the built check
     * @throws IllegalArgumentException on a bad setting, naming the check and the field
     */
    static Check build(Check.Builder b, String name, Set<String> groups, VitalsProperties.CheckSettings defaults,
                       Optional<VitalsProperties.CheckSettings> own) {
        List<String> g = new ArrayList<>(pick(own, defaults, VitalsProperties.CheckSettings::getGroups)
                .map(l -> (Set<String>) new LinkedHashSet<>(l)).orElse(groups));
        if (g.isEmpty()) {
            throw new IllegalArgumentException("check '" + name + "': groups must not be empty");
        }
        b.groups(g.get(0), g.subList(1, g.size()).toArray(new String[0]));
        pick(own, defaults, VitalsProperties.CheckSettings::getMode).ifPresent(b::mode);
        pick(own, defaults, VitalsProperties.CheckSettings::getInterval).ifPresent(b::interval);
        pick(own, defaults, VitalsProperties.CheckSettings::getTimeout).ifPresent(b::timeout);
        pick(own, defaults, VitalsProperties.CheckSettings::getMaxAge).ifPresent(b::maxAge);
        pick(own, defaults, VitalsProperties.CheckSettings::getTtl).ifPresent(b::ttl);
        pick(own, defaults, VitalsProperties.CheckSettings::getFailureThreshold).ifPresent(b::failureThreshold);
        pick(own, defaults, VitalsProperties.CheckSettings::getSuccessThreshold).ifPresent(b::successThreshold);
        pick(own, defaults, VitalsProperties.CheckSettings::getCritical).ifPresent(b::critical);
        return b.build();
    }

    /** Simple-name prefixes of Spring Boot's indicators of remote dependencies (issue 19, DESIGN.md P2). */
    private static final List<String> DEPENDENCY_INDICATORS = List.of("DataSource", "Redis", "Mongo", "Mail", "Jms",
            "Elasticsearch");

    /**
     * Whether an indicator is, or extends, one of Spring Boot's indicators of a remote dependency
     * (DataSource, Redis, Mongo, mail, JMS, Elasticsearch; blocking and reactive; Boot 3 and 4
     * package names alike), matched by the simple names of its class and superclasses so the Boot
     * module that holds it need not be on the classpath. Such a check is tagged
     * {@link Check#dependency()}: in liveness it is warned about at start and marked in the
     * detailed report.
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
     * Converts a Spring health, given as its parts: UP to UP, DOWN and OUT_OF_SERVICE to DOWN,
     * UNKNOWN to UNKNOWN, any custom status code to DEGRADED (Spring answers 200 for custom
     * codes by default). Details are copied (null values left out); Spring's {@code error}
     * detail ("type: message") also gives the error type.
     */
    static Health convert(String code, String description, Map<String, Object> details) {
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
        if (description != null && !description.isEmpty()) {
            b.message(description);
        } else if (status != Status.UP && !code.equals(status.name())) {
            b.message("Spring status " + code);
        }
        Map<String, Object> d = details == null ? Map.of() : details;
        for (Map.Entry<String, Object> e : d.entrySet()) {
            if (e.getKey() != null && !e.getKey().isBlank() && e.getValue() != null) {
                b.detail(e.getKey(), e.getValue());
            }
        }
        Object error = d.get("error");
        if (error instanceof String) {
            String s = (String) error;
            int colon = s.indexOf(':');
            b.errorType(colon > 0 ? s.substring(0, colon) : s);
        }
        return b.build();
    }

    /**
     * The Spring status code and description for a Vitals health: UP, DOWN, UNKNOWN as such,
     * DEGRADED as the custom code {@code DEGRADED}; the message as description.
     */
    static String springCode(Health v) {
        switch (v.status()) {
            case UP:
                return "UP";
            case DOWN:
                return "DOWN";
            case DEGRADED:
                return "DEGRADED";
            default:
                return "UNKNOWN";
        }
    }

    /** The details Spring gets for a Vitals health: its details, and a failure's error type as {@code error}. */
    static Map<String, Object> springDetails(Health v) {
        if (v.errorType().isEmpty() || v.details().containsKey("error")) {
            return v.details();
        }
        Map<String, Object> m = new java.util.LinkedHashMap<>(v.details());
        m.put("error", v.errorType().get() + v.message().map(s -> ": " + s).orElse(""));
        return m;
    }

    /**
     * The monitor's own registration ({@link dev.vitals.monitor.Monitor#check()}) under another
     * name: its interval, timeout, maxAge (max(3 × interval, 30 s)), first result (UP "starting:
     * no sample yet", issue 13), inline run (issue 19) and every other setting, so the Spring path
     * can never disagree with the core one (a fixed 30 s maxAge here made a monitor interval over
     * 30 s throw at start-up).
     *
     * @param name the check's name
     * @param monitor the monitor whose snapshot the check reads
     * @return a builder the caller may still give groups
     */
    static Check.Builder monitorCheck(String name, dev.vitals.monitor.Monitor monitor) {
        Check own = monitor.check().build();
        String[] groups = own.groups().toArray(new String[0]);
        return Check.builder(name, monitor.healthCheck())
                .groups(groups[0], java.util.Arrays.copyOfRange(groups, 1, groups.length))
                .critical(own.critical())
                .mode(own.mode())
                .interval(own.interval())
                .timeout(own.timeout())
                .maxAge(own.maxAge())
                .ttl(own.ttl())
                .failureThreshold(own.failureThreshold())
                .successThreshold(own.successThreshold())
                .beforeFirstResult(own.beforeFirstResult())
                .dependency(own.dependency())
                .inline(own.inline());
    }
}
