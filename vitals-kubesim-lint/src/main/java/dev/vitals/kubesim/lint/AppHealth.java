package dev.vitals.kubesim.lint;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which health group a probe's port and path reach in a Spring Boot application (Actuator,
 * and Vitals' probe server when {@code vitals.*} is configured), and what that group holds.
 * Built from one {@link AppConfig.View}. Immutable.
 *
 * <p>Sources (Spring Boot 2.3–4.0 reference, "Kubernetes Probes" and "Health Groups"):
 * Actuator answers on {@code management.server.port} when set, else on {@code server.port}
 * (default 8080) under {@code server.servlet.context-path}; the health endpoint is
 * {@code management.endpoints.web.base-path} (default {@code /actuator}) + {@code /health}
 * (or its {@code path-mapping}); {@code /health/<group>} is a group, {@code /health/<name>} one
 * indicator; on Kubernetes the {@code liveness} ({@code livenessState}) and {@code readiness}
 * ({@code readinessState}) groups exist unless {@code management.endpoint.health.probes.enabled}
 * is false; {@code probes.add-additional-paths} serves them at {@code /livez} and {@code /readyz}
 * on the main port; a group's {@code additional-path} is {@code server:/path} or
 * {@code management:/path}; a group configured without {@code include} holds every
 * indicator (case C17). Vitals: {@code vitals.server.port} (default 8081) serves
 * {@code /livez}, {@code /readyz}, {@code /startupz} from the Spring groups it adopts plus
 * {@code vitals.checks.<name>.groups}.
 */
final class AppHealth {
    /** Indicator names of remote dependencies (Spring Boot's auto-configured ones and common others). */
    static final Set<String> DEPENDENCIES = Set.of("db", "datasource", "r2dbc", "redis", "mongo", "mail",
            "elasticsearch", "elasticsearchrest", "elasticsearchreactive", "rabbit", "cassandra", "cassandrareactive",
            "couchbase", "couchbasereactive", "ldap", "neo4j", "solr", "influxdb", "hazelcast", "jms", "kafka",
            "discoverycomposite", "eureka", "configserver", "consul", "vault", "search", "opensearch", "postgres",
            "mysql", "cache", "memcached", "s3", "smtp", "sftp", "pulsar");
    private static final String GROUP = "management.endpoint.health.group.";

    private final AppConfig.View view;
    private final int serverPort;
    private final int managementPort;
    private final String serverPrefix;
    private final String managementPrefix;
    private final String healthPath;
    private final boolean healthExposed;
    private final boolean vitalsOn;
    private final int vitalsPort;
    private final String vitalsBase;
    private final Map<String, Group> groups = new LinkedHashMap<>();
    private final Set<String> indicators = new TreeSet<>();

    /**
     * A group as configured: members (or every indicator), and whether it widened by accident.
     *
     * @param name the group name
     * @param members the indicators it holds
     * @param every true when it holds every indicator
     * @param widenedBy the property that made it a user group without {@code include} (case C17)
     * @param includeProp where {@code include} was written, if it was
     */
    public record Group(String name, Set<String> members, boolean every, Optional<AppConfig.Prop> widenedBy,
            Optional<AppConfig.Prop> includeProp) {
    }

    /**
     * Where a probe lands.
     *
     * @param label e.g. {@code Actuator group 'readiness' (:8080/actuator/health/readiness)}
     * @param group the group's name; {@code "health"} for the whole endpoint; an indicator's name for one
     * @param members the indicators evaluated for this probe
     * @param every true when every indicator is evaluated
     * @param widenedBy set when the group widened by accident (case C17)
     * @param vitals true when served by Vitals' probe server
     * @param appPort true when served on the application's port (its worker pool)
     */
    public record Endpoint(String label, String group, Set<String> members, boolean every,
            Optional<AppConfig.Prop> widenedBy, boolean vitals, boolean appPort) {

        /** @return the members that are remote dependencies */
        public Set<String> dependencies() {
            Set<String> out = new TreeSet<>();
            for (String m : members) {
                if (isDependency(m)) {
                    out.add(m);
                }
            }
            return out;
        }
    }

    AppHealth(AppConfig.View view) {
        this.view = view;
        this.serverPort = intOr("server.port", 8080);
        String ctx = trimSlash(view.value("server.servlet.context-path").or(() -> view.value("spring.webflux.base-path"))
                .orElse(""));
        int mp = intOr("management.server.port", serverPort);
        this.managementPort = mp <= 0 ? serverPort : mp;
        String mBase = trimSlash(view.value("management.server.base-path")
                .or(() -> view.value("management.server.servlet.context-path")).orElse(""));
        this.serverPrefix = ctx;
        this.managementPrefix = managementPort == serverPort ? ctx : mBase;
        String webBase = view.value("management.endpoints.web.base-path").orElse("/actuator");
        String mapping = view.value("management.endpoints.web.path-mapping.health").orElse("health");
        this.healthPath = trimSlash(webBase) + "/" + trimSlash(mapping).replaceFirst("^/", "");
        String include = view.value("management.endpoints.web.exposure.include").orElse("health");
        String exclude = view.value("management.endpoints.web.exposure.exclude").orElse("");
        this.healthExposed = (include.contains("*") || List.of(include.split(",")).stream().anyMatch(s -> s.strip().equals("health")))
                && List.of(exclude.split(",")).stream().noneMatch(s -> s.strip().equals("health") || s.strip().equals("*"));
        this.vitalsOn = !view.keysUnder("vitals.").isEmpty() && !"false".equalsIgnoreCase(view.value("vitals.enabled").orElse(""))
                && !"false".equalsIgnoreCase(view.value("vitals.server.enabled").orElse(""));
        this.vitalsPort = intOr("vitals.server.port", 8081);
        this.vitalsBase = trimSlash(view.value("vitals.server.base-path").orElse(""));
        inferIndicators();
        buildGroups();
    }

    /** @return the application's port (where its worker pool answers) */
    public int serverPort() {
        return serverPort;
    }

    /** @return the port Actuator answers on */
    public int managementPort() {
        return managementPort;
    }

    /** @return Vitals' probe server port, when Vitals is configured */
    public OptionalInt vitalsPort() {
        return vitalsOn ? OptionalInt.of(vitalsPort) : OptionalInt.empty();
    }

    /** @return the configured groups by name */
    public Map<String, Group> groups() {
        return groups;
    }

    /** @return every indicator the configuration implies */
    public Set<String> indicators() {
        return indicators;
    }

    /**
     * The property behind one setting, to point a finding at its file and line.
     *
     * @param key the canonical key
     * @return the property that sets {@code key}, if any
     */
    public Optional<AppConfig.Prop> prop(String key) {
        return view.get(key);
    }

    /**
     * @param prefix a canonical key prefix, e.g. {@code spring.security.oauth2.resourceserver.}
     * @return the first property set under it, if any
     */
    Optional<AppConfig.Prop> firstUnder(String prefix) {
        for (String k : view.keysUnder(prefix)) {
            Optional<AppConfig.Prop> p = view.get(k);
            if (p.isPresent()) {
                return p;
            }
        }
        return Optional.empty();
    }

    /**
     * @param name an indicator or check name ({@code db}, {@code db.primary}, {@code db/primary})
     * @return true when it checks a remote dependency
     */
    public static boolean isDependency(String name) {
        String base = name.toLowerCase(Locale.ROOT).split("[./]")[0].replace("-", "");
        return DEPENDENCIES.contains(base) || base.endsWith("db") && !base.equals("db") && base.length() > 2
                || base.contains("redis") || base.contains("kafka") || base.contains("database");
    }

    /**
     * @param name a Vitals check name
     * @return false when {@code vitals.checks.<name>.critical=false} (or the default says so)
     */
    public boolean critical(String name) {
        Optional<String> c = view.value("vitals.checks." + name + ".critical").or(() -> view.value("vitals.checks[" + name + "].critical"))
                .or(() -> view.value("vitals.defaults.critical"));
        return !(vitalsOn && c.isPresent() && c.get().equalsIgnoreCase("false"));
    }

    /**
     * Finds what a probe reaches.
     *
     * @param port the probe's port number
     * @param rawPath the probe's path (query ignored)
     * @return the endpoint, or empty when the path is not a health path this configuration serves
     */
    public Optional<Endpoint> resolve(int port, String rawPath) {
        String path = trimSlash(rawPath.contains("?") ? rawPath.substring(0, rawPath.indexOf('?')) : rawPath);
        if (vitalsOn && port == vitalsPort) {
            for (String g : List.of("livez", "readyz", "startupz")) {
                String group = g.equals("livez") ? "liveness" : g.equals("readyz") ? "readiness" : "startup";
                if (path.equals(vitalsBase + "/" + g)) {
                    Group grp = vitalsGroup(group);
                    return Optional.of(new Endpoint("Vitals /" + g + " (:" + port + path + ")", group, grp.members(),
                            grp.every(), grp.widenedBy(), true, port == serverPort));
                }
            }
            return Optional.empty();
        }
        for (Map.Entry<String, Group> e : groups.entrySet()) {
            Optional<AppConfig.Prop> extra = view.get(GROUP + e.getKey() + ".additional-path");
            if (extra.isPresent()) {
                String v = extra.get().value();
                boolean onServer = v.startsWith("server:");
                String p = trimSlash(v.substring(v.indexOf(':') + 1));
                int onPort = onServer ? serverPort : managementPort;
                if (port == onPort && (path.equals(p) || path.equals((onServer ? serverPrefix : managementPrefix) + p))) {
                    return Optional.of(endpoint(e.getValue(), port, path, "additional path"));
                }
            }
        }
        if (port == serverPort && truthy("management.endpoint.health.probes.add-additional-paths", false)
                && probesEnabled()) {
            if (path.equals(serverPrefix + "/livez") || path.equals("/livez")) {
                return Optional.ofNullable(groups.get("liveness")).map(g -> endpoint(g, port, path, "additional path"));
            }
            if (path.equals(serverPrefix + "/readyz") || path.equals("/readyz")) {
                return Optional.ofNullable(groups.get("readiness")).map(g -> endpoint(g, port, path, "additional path"));
            }
        }
        if (port != managementPort || !healthExposed) {
            return Optional.empty();
        }
        String base = managementPrefix + healthPath;
        if (path.equals(base)) {
            return Optional.of(new Endpoint("Actuator " + healthPath + " (:" + port + path + ", every indicator)", "health",
                    indicators, true, Optional.empty(), false, port == serverPort));
        }
        if (path.startsWith(base + "/")) {
            String rest = path.substring(base.length() + 1);
            Group g = groups.get(AppConfig.canonical(rest));
            if (g != null) {
                return Optional.of(endpoint(g, port, path, null));
            }
            String first = rest.split("/")[0];
            return Optional.of(new Endpoint("Actuator indicator '" + first + "' (:" + port + path + ")", first,
                    Set.of(first), false, Optional.empty(), false, port == serverPort));
        }
        return Optional.empty();
    }

    private Endpoint endpoint(Group g, int port, String path, String how) {
        return new Endpoint("Actuator group '" + g.name() + "' (:" + port + path + (how == null ? "" : ", " + how) + ")",
                g.name(), g.members(), g.every(), g.widenedBy(), false, port == serverPort);
    }

    private Group vitalsGroup(String name) {
        Group spring = groups.get(name);
        Set<String> members = new TreeSet<>();
        boolean every = false;
        Optional<AppConfig.Prop> widened = Optional.empty();
        boolean adopt = !"false".equalsIgnoreCase(view.value("vitals.adopt-indicators").orElse(""));
        if (spring != null && adopt) {
            members.addAll(spring.members());
            every = spring.every();
            widened = spring.widenedBy();
        }
        members.remove("livenessState");
        members.remove("readinessState");
        for (String k : view.keysUnder("vitals.checks.")) {
            if (!k.endsWith(".groups")) {
                continue;
            }
            String check = k.substring("vitals.checks.".length(), k.length() - ".groups".length())
                    .replace("[", "").replace("]", "");
            Set<String> gs = new LinkedHashSet<>();
            for (String g : view.getCanonical(k).map(AppConfig.Prop::value).orElse("").split(",")) {
                gs.add(g.strip().toLowerCase(Locale.ROOT));
            }
            if (gs.contains(name)) {
                members.add(check);
            } else {
                members.remove(check);
            }
        }
        return new Group(name, members, every, widened, Optional.empty());
    }

    private boolean probesEnabled() {
        return truthy("management.endpoint.health.probes.enabled", true)
                && truthy("management.health.probes.enabled", true);
    }

    private void buildGroups() {
        Set<String> names = new LinkedHashSet<>();
        for (String k : view.keysUnder(GROUP)) {
            String rest = k.substring(GROUP.length());
            int dot = rest.indexOf('.');
            if (dot > 0) {
                names.add(rest.substring(0, dot));
            }
        }
        if (probesEnabled()) {
            if (!names.contains("liveness")) {
                groups.put("liveness", new Group("liveness", Set.of("livenessState"), false, Optional.empty(), Optional.empty()));
            }
            if (!names.contains("readiness")) {
                groups.put("readiness", new Group("readiness", Set.of("readinessState"), false, Optional.empty(), Optional.empty()));
            }
        }
        for (String n : names) {
            Optional<AppConfig.Prop> inc = view.get(GROUP + n + ".include");
            Set<String> exclude = new TreeSet<>();
            view.value(GROUP + n + ".exclude").ifPresent(x -> {
                for (String s : x.split(",")) {
                    exclude.add(s.strip());
                }
            });
            Set<String> members = new TreeSet<>();
            boolean every;
            Optional<AppConfig.Prop> widened = Optional.empty();
            if (inc.isPresent() && !inc.get().value().isBlank()) {
                every = false;
                for (String s : inc.get().value().split(",")) {
                    String m = s.strip();
                    if (m.equals("*")) {
                        every = true;
                    } else if (!m.isEmpty()) {
                        members.add(m);
                    }
                }
                if (every) {
                    members.addAll(indicators);
                }
            } else {
                every = true;
                members.addAll(indicators);
                widened = view.getCanonical(view.keysUnder(GROUP + n + ".").get(0));
            }
            members.removeAll(exclude);
            String original = n;
            for (String k : view.keysUnder(GROUP + n + ".")) {
                original = view.getCanonical(k).map(p -> p.key()).map(key -> groupName(key, n)).orElse(n);
                break;
            }
            groups.put(n, new Group(original, members, every, widened, inc));
        }
    }

    private static String groupName(String key, String canonical) {
        String lower = key.toLowerCase(Locale.ROOT);
        int i = lower.indexOf("group.");
        if (i < 0) {
            return canonical;
        }
        String rest = key.substring(i + "group.".length());
        int dot = rest.indexOf('.');
        return dot > 0 ? rest.substring(0, dot) : canonical;
    }

    private void inferIndicators() {
        indicators.add("diskSpace");
        indicators.add("ping");
        indicators.add("livenessState");
        indicators.add("readinessState");
        Map<String, List<String>> by = new LinkedHashMap<>();
        by.put("db", List.of("spring.datasource.", "spring.sql.init."));
        by.put("r2dbc", List.of("spring.r2dbc."));
        by.put("redis", List.of("spring.data.redis.", "spring.redis."));
        by.put("mongo", List.of("spring.data.mongodb.", "spring.mongodb."));
        by.put("mail", List.of("spring.mail.host"));
        by.put("elasticsearch", List.of("spring.elasticsearch."));
        by.put("rabbit", List.of("spring.rabbitmq."));
        by.put("cassandra", List.of("spring.cassandra.", "spring.data.cassandra."));
        by.put("couchbase", List.of("spring.couchbase."));
        by.put("ldap", List.of("spring.ldap.urls"));
        by.put("neo4j", List.of("spring.neo4j."));
        by.put("hazelcast", List.of("spring.hazelcast."));
        by.put("jms", List.of("spring.artemis.", "spring.activemq."));
        by.put("discoveryComposite", List.of("eureka.client.", "spring.cloud.consul.discovery", "spring.cloud.kubernetes.discovery"));
        by.put("configServer", List.of("spring.cloud.config.uri"));
        for (Map.Entry<String, List<String>> e : by.entrySet()) {
            for (String prefix : e.getValue()) {
                if (!view.keysUnder(prefix).isEmpty()) {
                    indicators.add(e.getKey());
                }
            }
        }
        if (view.value("spring.config.import").orElse("").contains("configserver:")) {
            indicators.add("configServer");
        }
        for (String k : view.keysUnder("management.health.")) {
            if (k.endsWith(".enabled")) {
                String n = k.substring("management.health.".length(), k.length() - ".enabled".length());
                String orig = view.getCanonical(k).map(AppConfig.Prop::key).orElse(n);
                String[] parts = orig.split("\\.");
                String name = parts.length >= 3 ? parts[parts.length - 2] : n;
                if ("false".equalsIgnoreCase(view.getCanonical(k).map(AppConfig.Prop::value).orElse(""))) {
                    indicators.removeIf(x -> x.equalsIgnoreCase(name) || AppConfig.canonical(x).equals(n));
                } else if (!n.equals("defaults") && !n.equals("probes")) {
                    indicators.add(name);
                }
            }
        }
        if ("false".equalsIgnoreCase(view.value("management.health.defaults.enabled").orElse(""))) {
            indicators.retainAll(Set.of("livenessState", "readinessState"));
        }
        for (String k : view.keysUnder("vitals.checks.")) {
            String rest = k.substring("vitals.checks.".length());
            int dot = rest.lastIndexOf('.');
            if (dot > 0) {
                indicators.add(rest.substring(0, dot).replace("[", "").replace("]", ""));
            }
        }
    }

    private boolean truthy(String key, boolean def) {
        return view.value(key).map(v -> v.strip().equalsIgnoreCase("true")).orElse(def);
    }

    private int intOr(String key, int def) {
        Optional<String> v = view.value(key);
        if (v.isEmpty()) {
            return def;
        }
        try {
            return Integer.parseInt(v.get().strip());
        } catch (NumberFormatException e) {
            return def;
        }
    }

    private static String trimSlash(String p) {
        String s = p.strip();
        if (s.isEmpty() || s.equals("/")) {
            return "";
        }
        if (!s.startsWith("/")) {
            s = "/" + s;
        }
        while (s.endsWith("/") && s.length() > 1) {
            s = s.substring(0, s.length() - 1);
        }
        return s;
    }

    /** @return names joined for messages */
    static String names(Set<String> s) {
        return String.join(", ", new ArrayList<>(s));
    }
}
