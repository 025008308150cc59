package dev.vitals.bench.suite;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A started server under test: its JVM and ports. The factories start the suite's three kinds of
 * target, each from the jar the reactor built: the Spring Boot example service
 * ({@code examples/spring-boot}, with or without Vitals), the demo service ({@code vitals-demo},
 * naive or Vitals wiring), and the fixed-200 Netty ceiling ({@link Fixed200Server} in this module's jar).
 *
 * @param child          the JVM
 * @param appPort        the application port
 * @param probePort      the Vitals probe port, or -1 without Vitals
 * @param managementPort the Actuator management port, or -1 when Actuator is on the main port
 * @param startupMs      from process start to the application's first good answer (Spring:
 *                       Actuator liveness 200; demo and fixed 200: the ready line), ms
 */
record Target(ChildJvm child, int appPort, int probePort, int managementPort, double startupMs) implements AutoCloseable {
    /**
     * A bound for a broken target, not a figure: a Spring target starts in seconds on a quiet
     * machine, but took about 2 minutes at load average 27 (bench/run --smoke beside other builds).
     */
    static final Duration START_TIMEOUT = Duration.ofMinutes(5);

    /** Where the jars and the logs are. */
    record Paths(Path root, Path logs) {
        Path springJar() {
            return require(root.resolve("examples/spring-boot/target/vitals-example-spring-boot.jar"));
        }

        Path demoJar() {
            return require(root.resolve("vitals-demo/target/vitals-demo.jar"));
        }

        Path benchJar() {
            return require(root.resolve("vitals-bench/target/benchmarks.jar"));
        }

        private static Path require(Path jar) {
            if (!Files.isRegularFile(jar)) {
                throw new IllegalStateException(jar + " is missing: build first (bench/run does: mvn -B -q -DskipTests package"
                        + " -pl vitals-bench,vitals-demo,examples/spring-boot -am)");
            }
            return jar;
        }
    }

    /**
     * The Spring Boot example service (Tomcat capped at 40 threads by its application.properties).
     *
     * @param vitals         whether Vitals is on ({@code vitals.enabled}); its probe server then gets a port
     * @param managementPort whether Actuator gets its own {@code management.server.port}
     * @param properties     more {@code --name=value} properties, such as {@code example.indicators.count}
     */
    static Target spring(Paths paths, String name, boolean vitals, boolean managementPort, Map<String, String> properties)
            throws IOException, InterruptedException {
        return spring(paths, name, vitals, managementPort, properties, List.of());
    }

    /**
     * The Spring Boot example service with more JVM flags, after {@link ChildJvm#JVM_OPTIONS}
     * (the footprint scenario's fixed heap, the same on both sides).
     *
     * @param jvmFlags flags put before {@code -jar}, such as {@code -Xms256m}
     */
    static Target spring(Paths paths, String name, boolean vitals, boolean managementPort, Map<String, String> properties,
                         List<String> jvmFlags) throws IOException, InterruptedException {
        int app = ChildJvm.freePort();
        int probe = vitals ? ChildJvm.freePort() : -1;
        int mgmt = managementPort ? ChildJvm.freePort() : -1;
        Map<String, String> p = new LinkedHashMap<>();
        p.put("server.address", "127.0.0.1");
        p.put("server.port", Integer.toString(app));
        p.put("vitals.enabled", Boolean.toString(vitals));
        if (vitals) {
            p.put("vitals.server.port", Integer.toString(probe));
            p.put("vitals.server.address", "127.0.0.1");
        }
        if (managementPort) {
            p.put("management.server.port", Integer.toString(mgmt));
            p.put("management.server.address", "127.0.0.1");
        }
        p.put("logging.level.root", "WARN");
        p.putAll(properties);
        List<String> cmd = new ArrayList<>(jvmFlags);
        cmd.add("-jar");
        cmd.add(paths.springJar().toString());
        p.forEach((k, v) -> cmd.add("--" + k + "=" + v));
        ChildJvm child = ChildJvm.start(name, paths.logs(), cmd);
        try {
            HttpProbe.awaitOk(child, managementPort ? mgmt : app, "/actuator/health/liveness", START_TIMEOUT);
            double startupMs = child.sinceStartMs();
            if (vitals) {
                HttpProbe.awaitOk(child, probe, "/livez", START_TIMEOUT);
            }
            return new Target(child, app, probe, mgmt, startupMs);
        } catch (RuntimeException | InterruptedException e) {
            child.close();
            throw e;
        }
    }

    private static final Pattern DEMO_READY = Pattern.compile("vitals-demo ready: .*\\bport=(\\d+) probe-port=(\\d+|none)");

    /** The demo service with {@code --port 0 --probe-port 0 --db-port 0} and the given flags. */
    static Target demo(Paths paths, String name, List<String> flags) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("-jar", paths.demoJar().toString(), "--port=0", "--probe-port=0", "--db-port=0"));
        cmd.addAll(flags);
        ChildJvm child = ChildJvm.start(name, paths.logs(), cmd);
        try {
            Matcher m = child.awaitLine(DEMO_READY, START_TIMEOUT);
            int probe = m.group(2).equals("none") ? -1 : Integer.parseInt(m.group(2));
            return new Target(child, Integer.parseInt(m.group(1)), probe, -1, child.sinceStartMs());
        } catch (RuntimeException | InterruptedException e) {
            child.close();
            throw e;
        }
    }

    /** The fixed-200 Netty handler, the machine's ceiling, in its own JVM. */
    static Target fixed200(Paths paths, String name) throws IOException, InterruptedException {
        ChildJvm child = ChildJvm.start(name, paths.logs(),
                List.of("-cp", paths.benchJar().toString(), Fixed200Server.class.getName()));
        try {
            Matcher m = child.awaitLine(Pattern.compile(Fixed200Server.READY + "(\\d+)"), START_TIMEOUT);
            return new Target(child, Integer.parseInt(m.group(1)), -1, -1, child.sinceStartMs());
        } catch (RuntimeException | InterruptedException e) {
            child.close();
            throw e;
        }
    }

    @Override
    public void close() {
        child.close();
    }
}
