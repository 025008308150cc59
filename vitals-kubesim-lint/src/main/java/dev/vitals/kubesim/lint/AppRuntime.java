package dev.vitals.kubesim.lint;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * What runs in a container, as far as its manifest tells: a JVM (from the image, the command
 * and args, the JVM's option variables {@code JAVA_TOOL_OPTIONS}, {@code JAVA_OPTS},
 * {@code JDK_JAVA_OPTIONS}, framework variables and probe paths), a known other runtime (nginx,
 * Redis, Go, Node, PostgreSQL …), or unknown. Rules word their messages and fixes by it: JVM,
 * Spring Boot and Vitals advice only for a JVM. Immutable.
 *
 * @param kind JVM, another runtime, or unknown
 * @param what what was recognised ("eclipse-temurin image", "nginx"), or empty when unknown
 * @param spring true when Spring Boot is recognised (actuator probe paths, {@code SPRING_*} variables)
 */
record AppRuntime(Kind kind, String what, boolean spring) {
    /** What a container runs. */
    enum Kind {
        /** a Java virtual machine */
        JVM,
        /** a known runtime that is not a JVM */
        OTHER,
        /** nothing in the manifest tells */
        UNKNOWN
    }

    /** Image names (last path segments, without tag) of JVMs and of products that run on one. */
    private static final Pattern JVM_IMAGE = Pattern.compile("(^|[/_.-])(openjdk\\d*|jdk\\d*|jre\\d*|java\\d*|temurin|eclipse-temurin|corretto"
            + "|amazoncorretto|adoptopenjdk|semeru|ibm-semeru-runtimes|zulu|liberica|graalvm|maven|gradle|tomcat|jetty|wildfly"
            + "|jboss|keycloak|cassandra|elasticsearch|opensearch|logstash|kafka|cp-kafka|cp-server|cp-schema-registry|zookeeper"
            + "|solr|jenkins|nexus3?|neo4j|flink|spark|hazelcast|ignite|coherence|activemq|artemis|sonarqube|spring|quarkus"
            + "|micronaut|springcommunity|payara|open-liberty|websphere-liberty|selenium"
            + "|trino|presto|hive|hbase|hadoop|druid|pulsar|bookkeeper|nifi|wiremock|jib)($|[/_.:-])");
    /** Images of runtimes that are not JVMs. */
    private static final Pattern OTHER_IMAGE = Pattern.compile("(^|[/_.-])(nginx|nginx-unprivileged|ingress-nginx|redis|valkey"
            + "|grafana|haproxy|golang|go|node|nodejs|deno|bun|postgres|postgresql|mysql|mariadb|mongo|mongodb|memcached"
            + "|busybox|alpine|python|ruby|php|httpd|apache2|envoy|traefik|prometheus|alertmanager|etcd|consul|vault"
            + "|rabbitmq|caddy|registry|coredns|dotnet|aspnet|rust|static|pause|fluent-bit|fluentd"
            + "|loki|tempo|mimir|minio|influxdb|telegraf|jaeger|otel|opentelemetry-collector|istio|proxyv2|pilot|kiali"
            + "|memcache|cockroach|cockroachdb|nats|etcd|metrics-server|kube-state-metrics|node-exporter|pgpool|pgbouncer)($|[/_.:-])");
    private static final List<String> JVM_ENV = List.of("JAVA_TOOL_OPTIONS", "JAVA_OPTS", "JDK_JAVA_OPTIONS", "JAVA_OPTIONS",
            "JAVA_HOME", "CATALINA_OPTS", "JVM_OPTS", "MAVEN_OPTS");
    private static final List<String> OTHER_COMMANDS = List.of("node", "nodejs", "python", "python3", "gunicorn", "uvicorn",
            "nginx", "redis-server", "postgres", "mysqld", "mongod", "dotnet", "ruby", "php", "php-fpm", "haproxy", "envoy",
            "grafana-server", "memcached", "npm", "yarn");

    /** @return a runtime nothing is known about */
    static AppRuntime unknown() {
        return new AppRuntime(Kind.UNKNOWN, "", false);
    }

    /**
     * @return the application as a message names it: "Spring Boot application", "JVM application
     *         (JAVA_TOOL_OPTIONS in env)", or what was recognised
     */
    String application() {
        if (spring) {
            return "Spring Boot application";
        }
        if (kind == Kind.JVM) {
            return "JVM application (" + what + ")";
        }
        return what.isEmpty() ? "application" : what + " application";
    }

    /** @return true for a JVM */
    boolean jvm() {
        return kind == Kind.JVM;
    }

    /**
     * Detects the runtime of one container.
     *
     * @param container the container's raw YAML
     * @return what its manifest tells
     */
    static AppRuntime of(JsonNode container) {
        boolean spring = false;
        List<String> words = new ArrayList<>();
        container.path("command").forEach(n -> words.add(n.asText("")));
        container.path("args").forEach(n -> words.add(n.asText("")));
        for (JsonNode e : container.path("env")) {
            String name = e.path("name").asText("");
            if (name.startsWith("SPRING_") || name.startsWith("MANAGEMENT_")) {
                spring = true;
            }
        }
        for (String type : new String[] {"livenessProbe", "readinessProbe", "startupProbe"}) {
            String path = container.path(type).path("httpGet").path("path").asText("");
            if (path.startsWith("/actuator")) {
                spring = true;
            }
        }
        if (spring) {
            return new AppRuntime(Kind.JVM, "Spring Boot", true);
        }
        for (JsonNode e : container.path("env")) {
            String name = e.path("name").asText("");
            if (JVM_ENV.contains(name) || name.startsWith("QUARKUS_") || name.startsWith("MICRONAUT_")) {
                return new AppRuntime(Kind.JVM, name + " in env", false);
            }
        }
        for (String w : words) {
            for (String token : w.split("\\s+")) {
                String base = token.substring(token.lastIndexOf('/') + 1);
                if (base.equals("java") || base.endsWith(".jar") || token.startsWith("-Xmx") || token.startsWith("-XX:")
                        || token.equals("-jar")) {
                    return new AppRuntime(Kind.JVM, "java in the command", false);
                }
            }
        }
        for (String type : new String[] {"livenessProbe", "readinessProbe", "startupProbe"}) {
            String path = container.path(type).path("httpGet").path("path").asText("");
            if (path.startsWith("/q/health") || path.startsWith("/health/live") && container.path("image").asText("")
                    .contains("keycloak")) {
                return new AppRuntime(Kind.JVM, "Quarkus health path", false);
            }
        }
        String image = imageName(container.path("image").asText(""));
        if (!image.isEmpty() && JVM_IMAGE.matcher(image).find()) {
            return new AppRuntime(Kind.JVM, image + " image", false);
        }
        if (!words.isEmpty()) {
            String first = words.get(0).strip();
            String base = first.substring(first.lastIndexOf('/') + 1);
            if (OTHER_COMMANDS.contains(base)) {
                return new AppRuntime(Kind.OTHER, base, false);
            }
        }
        if (!image.isEmpty() && OTHER_IMAGE.matcher(image).find()) {
            return new AppRuntime(Kind.OTHER, image, false);
        }
        return unknown();
    }

    /** @return the image's repository path without registry host, tag or digest, lower case */
    static String imageName(String image) {
        String s = image.toLowerCase(Locale.ROOT).strip();
        int at = s.indexOf('@');
        s = at < 0 ? s : s.substring(0, at);
        int slash = s.lastIndexOf('/');
        int colon = s.lastIndexOf(':');
        if (colon > slash) {
            s = s.substring(0, colon);
        }
        int first = s.indexOf('/');
        if (first > 0 && (s.substring(0, first).contains(".") || s.substring(0, first).contains(":")
                || s.substring(0, first).equals("localhost"))) {
            s = s.substring(first + 1); // registry host
        }
        return s;
    }

    /** @return "a JVM" / "the process" wording for messages */
    String process() {
        return kind == Kind.JVM ? "JVM" : "process";
    }

    /** @return a note for messages when the runtime is unknown, else empty */
    Optional<String> unknownNote() {
        return kind == Kind.UNKNOWN ? Optional.of("unknown runtime") : Optional.empty();
    }
}
