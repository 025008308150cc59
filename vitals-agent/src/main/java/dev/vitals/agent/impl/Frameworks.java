package dev.vitals.agent.impl;

import java.lang.instrument.Instrumentation;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;

/**
 * Which framework serves the application, found from what the JVM has loaded and from its
 * configuration, before the agent sends the application a single request (DESIGN.md section 7d,
 * detection). The classes come from {@link Instrumentation#getAllLoadedClasses()} (names only:
 * nothing is loaded or initialised); the configuration from system properties, the way each
 * framework lets a deployment override its defaults ({@code quarkus.http.root-path},
 * {@code management.server.port}, ...).
 *
 * <p>The result is an immutable {@link Framework}: its readiness candidates in order (at most
 * one request each), its started endpoint when it has one, and whether it serves gRPC. The
 * markers and paths are each framework's documented defaults:
 * <ul>
 *   <li>Spring Boot 3 and 4 (actuator; Boot 4 moved its health endpoint to another package):
 *       {@code /actuator/health/readiness}, then {@code /actuator/health};
 *       started = {@code /actuator/health/liveness} (the liveness state turns CORRECT at
 *       {@code ApplicationStartedEvent});</li>
 *   <li>Quarkus with SmallRye Health: {@code /q/health/ready}; started = {@code /q/health/started};
 *       without a health extension: no candidate (readiness and startup follow the listener);</li>
 *   <li>Micronaut management: {@code /health/readiness}; started = {@code /health/liveness};</li>
 *   <li>Helidon 4 health observer: {@code /observe/health/ready}; started = {@code /observe/health/started};</li>
 *   <li>Dropwizard: {@code /healthcheck} (admin connector); no started endpoint;</li>
 *   <li>grpc-java: {@code grpc.health.v1.Health/Check} over h2c, never HTTP/1;</li>
 *   <li>anything else: {@code /readyz}, {@code /healthz}, {@code /health}.</li>
 * </ul>
 */
final class Frameworks {
    static final String SPRING = "org.springframework.boot.SpringApplication";
    /** Actuator's health endpoint up to Spring Boot 3.5. */
    static final String SPRING_ACTUATOR = "org.springframework.boot.actuate.health.HealthEndpoint";
    /** The same from Spring Boot 4.0, where health moved to the spring-boot-health module. */
    static final String SPRING_ACTUATOR_4 = "org.springframework.boot.health.actuate.endpoint.HealthEndpoint";
    static final String QUARKUS = "io.quarkus.runtime.Application";
    static final String QUARKUS_HEALTH = "io.smallrye.health.SmallRyeHealthReporter";
    static final String MICRONAUT = "io.micronaut.runtime.Micronaut";
    static final String MICRONAUT_HEALTH = "io.micronaut.management.endpoint.health.HealthEndpoint";
    static final String HELIDON = "io.helidon.webserver.WebServer";
    static final String HELIDON_HEALTH = "io.helidon.webserver.observe.health.HealthObserver";
    static final String DROPWIZARD = "io.dropwizard.core.Application";
    static final String DROPWIZARD_OLD = "io.dropwizard.Application";
    static final String GRPC = "io.grpc.Server";
    static final String GRPC_SHADED_NETTY = "io.grpc.netty.shaded.io.grpc.netty.NettyServer";
    static final String GRPC_HEALTH = "io.grpc.health.v1.HealthGrpc";

    /** Every class name {@link #detect} looks at. */
    static final Set<String> MARKERS = Set.of(SPRING, SPRING_ACTUATOR, SPRING_ACTUATOR_4, QUARKUS, QUARKUS_HEALTH, MICRONAUT,
            MICRONAUT_HEALTH, HELIDON, HELIDON_HEALTH, DROPWIZARD, DROPWIZARD_OLD, GRPC, GRPC_SHADED_NETTY, GRPC_HEALTH);

    static final List<String> GENERIC = List.of("/readyz", "/healthz", "/health");

    /** The detected framework: immutable. */
    static final class Framework {
        final String name;
        /** Readiness paths to try in order on an HTTP port, one request each; empty: follow the listener. */
        final List<String> readiness;
        /** The framework's started endpoint, or null: startup follows the listener. */
        final String started;
        /** A port the configuration names for the health endpoints (management port), or -1. */
        final int healthPort;
        /** grpc-java is loaded: ports are asked over h2c, never HTTP/1. */
        final boolean grpc;
        /** a framework was recognised (the candidates are its own, not the generic ones) */
        final boolean known;

        Framework(String name, List<String> readiness, String started, int healthPort, boolean grpc, boolean known) {
            this.name = name;
            this.readiness = List.copyOf(readiness);
            this.started = started;
            this.healthPort = healthPort;
            this.grpc = grpc;
            this.known = known;
        }

        @Override
        public String toString() {
            return name;
        }
    }

    private Frameworks() {
    }

    /**
     * The marker classes the JVM has loaded. One pass over {@link Instrumentation#getAllLoadedClasses()}
     * (an array of every class: a few milliseconds for 20 000 classes, CPU only); the readiness check
     * calls it on the scheduler thread, once per run and only until a framework is known or start-up completes.
     *
     * @param inst the JVM's instrumentation, or null (nothing found)
     * @return the names of {@link #MARKERS} that are loaded
     */
    static Set<String> loadedMarkers(Instrumentation inst) {
        Set<String> out = new HashSet<>();
        if (inst == null) {
            return out;
        }
        for (Class<?> c : inst.getAllLoadedClasses()) {
            String n = c.getName();
            if (n.startsWith("io.") || n.startsWith("org.springframework.boot.")) {
                if (MARKERS.contains(n)) {
                    out.add(n);
                }
            }
        }
        return out;
    }

    /**
     * @param loaded the loaded marker classes ({@link #loadedMarkers})
     * @param config the JVM's system properties
     * @return the framework, {@code generic} when none is recognised
     */
    static Framework detect(Set<String> loaded, Properties config) {
        boolean grpc = loaded.contains(GRPC) || loaded.contains(GRPC_SHADED_NETTY);
        if (loaded.contains(SPRING)) {
            if (!loaded.contains(SPRING_ACTUATOR) && !loaded.contains(SPRING_ACTUATOR_4)) {
                return new Framework("spring-boot", List.of(), null, -1, grpc, true);
            }
            String base = path(config.getProperty("management.endpoints.web.base-path", "/actuator"));
            int mport = port(config.getProperty("management.server.port"));
            String prefix = mport > 0 ? path(config.getProperty("management.server.base-path", ""))
                    : path(config.getProperty("server.servlet.context-path", ""));
            return new Framework("spring-boot", List.of(prefix + base + "/health/readiness", prefix + base + "/health"),
                    prefix + base + "/health/liveness", mport, grpc, true);
        }
        if (loaded.contains(QUARKUS)) {
            if (!loaded.contains(QUARKUS_HEALTH)) {
                return new Framework("quarkus", List.of(), null, -1, grpc, true);
            }
            boolean management = Boolean.parseBoolean(config.getProperty("quarkus.management.enabled", "false"));
            String root = path(config.getProperty(management ? "quarkus.management.root-path" : "quarkus.http.root-path", "/"));
            String nonApp = config.getProperty("quarkus.http.non-application-root-path", "q");
            String base = nonApp.startsWith("/") ? path(nonApp) : root + path(nonApp);
            String health = config.getProperty("quarkus.smallrye-health.root-path", "health");
            String h = health.startsWith("/") ? path(health) : base + path(health);
            int mport = management ? portOr(config.getProperty("quarkus.management.port"), 9000) : -1;
            return new Framework("quarkus", List.of(h + "/ready"), h + "/started", mport, grpc, true);
        }
        if (loaded.contains(MICRONAUT)) {
            if (!loaded.contains(MICRONAUT_HEALTH)) {
                return new Framework("micronaut", List.of(), null, -1, grpc, true);
            }
            String base = path(config.getProperty("endpoints.all.path", "/"));
            int mport = port(config.getProperty("endpoints.all.port"));
            return new Framework("micronaut", List.of(base + "/health/readiness"), base + "/health/liveness", mport, grpc, true);
        }
        if (loaded.contains(HELIDON)) {
            if (!loaded.contains(HELIDON_HEALTH)) {
                return new Framework("helidon", List.of(), null, -1, grpc, true);
            }
            return new Framework("helidon", List.of("/observe/health/ready"), "/observe/health/started", -1, grpc, true);
        }
        if (loaded.contains(DROPWIZARD) || loaded.contains(DROPWIZARD_OLD)) {
            return new Framework("dropwizard", List.of("/healthcheck"), null, -1, grpc, true);
        }
        if (grpc) {
            return new Framework("grpc-java", List.of(), null, -1, true, true);
        }
        return new Framework("generic", GENERIC, null, -1, false, false);
    }

    /** "/x/" or "x" → "/x"; "/" or "" → "". */
    static String path(String p) {
        String s = p.trim();
        while (s.endsWith("/")) {
            s = s.substring(0, s.length() - 1);
        }
        if (s.isEmpty()) {
            return "";
        }
        return s.startsWith("/") ? s : "/" + s;
    }

    private static int port(String v) {
        return portOr(v, -1);
    }

    private static int portOr(String v, int otherwise) {
        if (v == null) {
            return otherwise;
        }
        try {
            int p = Integer.parseInt(v.trim());
            return p > 0 && p <= 65535 ? p : otherwise;
        } catch (NumberFormatException e) {
            return otherwise;
        }
    }

    /** @return the candidates, for messages */
    static List<String> describe(Framework f) {
        List<String> out = new ArrayList<>(f.readiness);
        if (f.grpc) {
            out.add("grpc.health.v1.Health/Check");
        }
        return out;
    }
}
