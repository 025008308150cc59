package dev.vitals.demo;

import dev.vitals.Mode;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * The demo's command-line flags. {@link #parse(String...)} parses and validates without any
 * I/O, so every flag and every bad value is unit-tested.
 *
 * <p>Not thread-safe while parsing; read-only afterwards.
 */
@Command(name = "vitals-demo", sortOptions = false, usageHelpWidth = 110,
        versionProvider = DemoOptions.Version.class,
        description = {
            "A small service that reproduces the probe failures of DESIGN.md section 1 when wired",
            "naively and avoids them when wired with Vitals. Application routes:",
            "  GET|POST /reports/export?costCenter=<code>  (holds a worker --export-min-ms..--export-max-ms)",
            "  GET /orders/<id>                             (a fast database read)",
            "  POST /chaos/deadlock-workers, POST /chaos/close-listener  (only with --chaos)",
            "naive:  GET /healthz on the application port and worker pool (pings the database).",
            "vitals: /livez, /readyz, /startupz, /health[/<group>] on --probe-port;",
            "        grpc.health.v1.Health (Check, List, Watch) on --grpc-port when given.",
            ""})
public final class DemoOptions {
    static final int MAX_PORT = 65_535;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    boolean help;

    @Option(names = {"-V", "--version"}, versionHelp = true, description = "Print the version and exit.")
    boolean version;

    @Option(names = "--port", paramLabel = "PORT", description = "Application port; 0 picks a free one (default: ${DEFAULT-VALUE}).")
    int port = 8080;

    @Option(names = "--probe-port", paramLabel = "PORT",
            description = "Vitals probe port (vitals wiring only); 0 picks a free one (default: ${DEFAULT-VALUE}).")
    int probePort = 8081;

    @Option(names = "--grpc-port", paramLabel = "PORT",
            description = "Also serve grpc.health.v1.Health on this port (vitals wiring only; services liveness, "
                    + "readiness, startup; \"\" = readiness); 0 picks a free one (default: none).")
    Integer grpcPort;

    @Option(names = "--metrics-port", paramLabel = "PORT",
            description = "Also serve Vitals' meters (vitals_*) in Prometheus' text format at GET /metrics on this port "
                    + "(vitals wiring only; its own thread); 0 picks a free one (default: none).")
    Integer metricsPort;

    @Option(names = "--host", paramLabel = "ADDRESS",
            description = "Address the application and probe listeners bind to (default: ${DEFAULT-VALUE}).")
    String host = "127.0.0.1";

    @Option(names = "--wiring", paramLabel = "naive|vitals", converter = WiringConverter.class,
            description = "Probe wiring: naive or vitals (default: vitals).")
    Wiring wiring = Wiring.VITALS;

    @Option(names = "--workers", paramLabel = "N", description = "Application worker threads (default: ${DEFAULT-VALUE}).")
    int workers = 40;

    @Option(names = "--export-min-ms", paramLabel = "MS", description = "Shortest export hold time (default: ${DEFAULT-VALUE}).")
    long exportMinMs = 4_000;

    @Option(names = "--export-max-ms", paramLabel = "MS", description = "Longest export hold time (default: ${DEFAULT-VALUE}).")
    long exportMaxMs = 12_000;

    @Option(names = "--seed", paramLabel = "N", description = "Seed of the export hold times (default: ${DEFAULT-VALUE}).")
    long seed = 42;

    @Option(names = "--startup-delay-ms", paramLabel = "MS",
            description = "Initialization time before the service is ready (default: ${DEFAULT-VALUE}).")
    long startupDelayMs = 0;

    @Option(names = "--startup-gate", paramLabel = "FILE",
            description = "Initialization also waits until FILE exists: a start-up of unknown length, ended from outside"
                    + " (default: none).")
    java.nio.file.Path startupGate;

    @Option(names = "--db-url", paramLabel = "JDBC-URL",
            description = "JDBC URL the application uses for every database access (default: the embedded H2 TCP server, "
                    + "jdbc:h2:tcp://127.0.0.1:<db-port>/mem:<db-name>).")
    String dbUrl;

    @Option(names = "--db-port", paramLabel = "PORT",
            description = "Port of the embedded H2 TCP server on 127.0.0.1; 0 picks a free one (default: ${DEFAULT-VALUE}).")
    int dbPort = 0;

    @Option(names = "--db-name", paramLabel = "NAME",
            description = "Name of the in-memory database the embedded H2 server hosts, as in .../mem:NAME "
                    + "(default: ${DEFAULT-VALUE}).")
    String dbName = "demo";

    @Option(names = "--db-user", paramLabel = "USER", description = "Database user (default: ${DEFAULT-VALUE}).")
    String dbUser = "sa";

    @Option(names = "--db-password", paramLabel = "PASSWORD", description = "Database password (default: empty).")
    String dbPassword = "";

    @Option(names = "--db-pool-size", paramLabel = "N", description = "HikariCP maximum pool size (default: ${DEFAULT-VALUE}).")
    int dbPoolSize = 8;

    @Option(names = "--db-timeout-ms", paramLabel = "MS",
            description = "Bound on getting a connection and on each network read of the database (default: ${DEFAULT-VALUE}).")
    long dbTimeoutMs = 1_000;

    @Option(names = "--check-interval-ms", paramLabel = "MS",
            description = "Interval of the scheduled readiness checks (database, synthetic, hung), vitals wiring "
                    + "(default: ${DEFAULT-VALUE}).")
    long checkIntervalMs = 2_000;

    @Option(names = "--synthetic-checks", paramLabel = "N",
            description = "Synthetic readiness checks to register (default: ${DEFAULT-VALUE}).")
    int syntheticChecks = 0;

    @Option(names = "--synthetic-latency-ms", paramLabel = "MS",
            description = "How long each synthetic check takes (default: ${DEFAULT-VALUE}).")
    long syntheticLatencyMs = 0;

    @Option(names = "--hung-check", description = "Register one readiness check that never returns.")
    boolean hungCheck;

    @Option(names = "--check-mode", paramLabel = "scheduled|on-demand", converter = ModeConverter.class,
            description = "Mode of the synthetic and hung checks (default: scheduled).")
    Mode checkMode = Mode.SCHEDULED;

    @Option(names = "--check-timeout-ms", paramLabel = "MS",
            description = "Timeout of the database, synthetic and hung checks (default: ${DEFAULT-VALUE}).")
    long checkTimeoutMs = 2_000;

    @Option(names = "--chaos", description = "Enable the /chaos/* routes (off by default: the routes do not exist).")
    boolean chaos;

    @Option(names = "--stall-after-ms", paramLabel = "MS",
            description = "Vitals liveness: how long the worker pool may have work but complete none, the "
                    + "scheduler may run nothing, or the application listener may refuse connections before "
                    + "liveness fails; keep it above --export-max-ms (default: ${DEFAULT-VALUE}).")
    long stallAfterMs = 30_000;

    @Option(names = "--probe-details", paramLabel = "never|always", converter = DetailsConverter.class,
            description = "Whether probe bodies show check details (figures, error types): never or always "
                    + "(default: never; always is for local demos only).")
    Details probeDetails = Details.NEVER;

    /** Values of {@code --probe-details}. */
    enum Details { NEVER, ALWAYS }

    @Option(names = "--liveness-interval-ms", paramLabel = "MS",
            description = "Interval of the scheduled liveness checks, vitals wiring (default: ${DEFAULT-VALUE}).")
    long livenessIntervalMs = 1_000;

    @Option(names = "--drain-ms", paramLabel = "MS",
            description = "On SIGTERM (vitals wiring): time readiness is 503 while the service keeps serving, "
                    + "before the listener closes and in-flight requests finish (default: ${DEFAULT-VALUE}).")
    long drainMs = 5_000;

    private DemoOptions() {
    }

    /**
     * Parses and validates flags; no I/O.
     *
     * @param args command-line arguments
     * @return the options
     * @throws ParameterException on an unknown flag, a malformed value or a value out of range;
     *     the message names the flag and the bound
     */
    public static DemoOptions parse(String... args) {
        DemoOptions o = new DemoOptions();
        CommandLine cl = commandLine(o);
        cl.parseArgs(args);
        if (!o.help && !o.version) {
            o.validate(cl);
        }
        return o;
    }

    static CommandLine commandLine(DemoOptions o) {
        return new CommandLine(o).setCaseInsensitiveEnumValuesAllowed(true);
    }

    void validate(CommandLine cl) {
        port(cl, "--port", port);
        port(cl, "--probe-port", probePort);
        if (grpcPort != null) {
            port(cl, "--grpc-port", grpcPort);
            if (wiring != Wiring.VITALS) {
                throw new ParameterException(cl, "--grpc-port needs --wiring vitals (the naive wiring has no probe listener)");
            }
            if (grpcPort != 0 && (grpcPort == port || grpcPort == probePort)) {
                throw new ParameterException(cl, "--grpc-port must differ from --port and --probe-port (" + grpcPort + ")");
            }
        }
        if (metricsPort != null) {
            port(cl, "--metrics-port", metricsPort);
            if (wiring != Wiring.VITALS) {
                throw new ParameterException(cl, "--metrics-port needs --wiring vitals (the naive wiring has no Vitals meters)");
            }
            if (metricsPort != 0 && (metricsPort == port || metricsPort == probePort
                    || (grpcPort != null && metricsPort.intValue() == grpcPort))) {
                throw new ParameterException(cl, "--metrics-port must differ from --port, --probe-port and --grpc-port ("
                        + metricsPort + ")");
            }
        }
        port(cl, "--db-port", dbPort);
        range(cl, "--workers", workers, 1, 2_000);
        range(cl, "--export-min-ms", exportMinMs, 0, 3_600_000);
        range(cl, "--export-max-ms", exportMaxMs, 0, 3_600_000);
        if (exportMinMs > exportMaxMs) {
            throw new ParameterException(cl, "--export-min-ms (" + exportMinMs + ") must not exceed --export-max-ms ("
                    + exportMaxMs + ")");
        }
        range(cl, "--startup-delay-ms", startupDelayMs, 0, 3_600_000);
        range(cl, "--db-pool-size", dbPoolSize, 1, 200);
        range(cl, "--db-timeout-ms", dbTimeoutMs, 250, 600_000);
        range(cl, "--check-interval-ms", checkIntervalMs, 10, 3_600_000);
        range(cl, "--synthetic-checks", syntheticChecks, 0, 1_000);
        range(cl, "--synthetic-latency-ms", syntheticLatencyMs, 0, 3_600_000);
        range(cl, "--check-timeout-ms", checkTimeoutMs, 1, 3_600_000);
        range(cl, "--stall-after-ms", stallAfterMs, 100, 3_600_000);
        range(cl, "--liveness-interval-ms", livenessIntervalMs, 10, 3_600_000);
        range(cl, "--drain-ms", drainMs, 0, 3_600_000);
        if (!dbName.matches("[A-Za-z0-9_]{1,64}")) {
            throw new ParameterException(cl, "--db-name must be 1-64 letters, digits or '_', was '" + dbName + "'");
        }
        if (host.isBlank()) {
            throw new ParameterException(cl, "--host must not be blank");
        }
        if (dbUrl != null && !dbUrl.startsWith("jdbc:")) {
            throw new ParameterException(cl, "--db-url must be a JDBC URL starting with 'jdbc:', was '" + dbUrl + "'");
        }
        if (wiring == Wiring.VITALS && probePort != 0 && probePort == port) {
            throw new ParameterException(cl, "--probe-port must differ from --port (both " + port + ")");
        }
    }

    private static void port(CommandLine cl, String flag, int value) {
        range(cl, flag, value, 0, MAX_PORT);
    }

    private static void range(CommandLine cl, String flag, long value, long min, long max) {
        if (value < min || value > max) {
            throw new ParameterException(cl, flag + " must be between " + min + " and " + max + ", was " + value);
        }
    }

    /** @return whether {@code --help} was given (the other values are then not validated) */
    public boolean helpRequested() {
        return help;
    }

    /** @return whether {@code --version} was given (the other values are then not validated) */
    public boolean versionRequested() {
        return version;
    }

    /** @return application port; 0 means any free port */
    public int port() {
        return port;
    }

    /** @return probe port (vitals wiring); 0 means any free port */
    public int probePort() {
        return probePort;
    }

    /** @return the Prometheus metrics port (vitals wiring), if {@code --metrics-port} was given; 0 means any free port */
    public java.util.OptionalInt metricsPort() {
        return metricsPort == null ? java.util.OptionalInt.empty() : java.util.OptionalInt.of(metricsPort);
    }

    /** @return the gRPC health port (vitals wiring), if {@code --grpc-port} was given; 0 means any free port */
    public java.util.OptionalInt grpcPort() {
        return grpcPort == null ? java.util.OptionalInt.empty() : java.util.OptionalInt.of(grpcPort);
    }

    /** @return bind address of the application and probe listeners */
    public String host() {
        return host;
    }

    /** @return the probe wiring */
    public Wiring wiring() {
        return wiring;
    }

    /** @return application worker threads, 1–2000 */
    public int workers() {
        return workers;
    }

    /** @return shortest export hold */
    public Duration exportMin() {
        return Duration.ofMillis(exportMinMs);
    }

    /** @return longest export hold, at least {@link #exportMin()} */
    public Duration exportMax() {
        return Duration.ofMillis(exportMaxMs);
    }

    /** @return seed of the export hold times */
    public long seed() {
        return seed;
    }

    /** @return initialization time before the service is ready */
    public Duration startupDelay() {
        return Duration.ofMillis(startupDelayMs);
    }

    /** @return the file whose creation ends initialization ({@code --startup-gate}), if any */
    public Optional<java.nio.file.Path> startupGate() {
        return Optional.ofNullable(startupGate);
    }

    /** @return the JDBC URL given with {@code --db-url}, if any */
    public Optional<String> dbUrl() {
        return Optional.ofNullable(dbUrl);
    }

    /** @return port of the embedded H2 TCP server; 0 means any free port */
    public int dbPort() {
        return dbPort;
    }

    /** @return name of the hosted in-memory database */
    public String dbName() {
        return dbName;
    }

    /** @return database user */
    public String dbUser() {
        return dbUser;
    }

    /** @return database password */
    public String dbPassword() {
        return dbPassword;
    }

    /** @return HikariCP maximum pool size */
    public int dbPoolSize() {
        return dbPoolSize;
    }

    /** @return bound on getting a pooled connection and on each network read */
    public Duration dbTimeout() {
        return Duration.ofMillis(dbTimeoutMs);
    }

    /** @return interval of the scheduled readiness checks */
    public Duration checkInterval() {
        return Duration.ofMillis(checkIntervalMs);
    }

    /** @return number of synthetic readiness checks */
    public int syntheticChecks() {
        return syntheticChecks;
    }

    /** @return latency of each synthetic check */
    public Duration syntheticLatency() {
        return Duration.ofMillis(syntheticLatencyMs);
    }

    /** @return whether one readiness check never returns */
    public boolean hungCheck() {
        return hungCheck;
    }

    /** @return mode of the synthetic and hung checks */
    public Mode checkMode() {
        return checkMode;
    }

    /** @return timeout of the database, synthetic and hung checks */
    public Duration checkTimeout() {
        return Duration.ofMillis(checkTimeoutMs);
    }

    /** @return whether the chaos routes exist */
    public boolean chaos() {
        return chaos;
    }

    /** @return the progress watchdog's stall bound */
    public Duration stallAfter() {
        return Duration.ofMillis(stallAfterMs);
    }

    /** @return whether probe bodies show check details */
    public boolean probeDetails() {
        return probeDetails == Details.ALWAYS;
    }

    /** @return interval of the scheduled liveness checks */
    public Duration livenessInterval() {
        return Duration.ofMillis(livenessIntervalMs);
    }

    /** @return drain time on SIGTERM */
    public Duration drain() {
        return Duration.ofMillis(drainMs);
    }

    static final class WiringConverter implements CommandLine.ITypeConverter<Wiring> {
        @Override
        public Wiring convert(String value) {
            try {
                return Wiring.fromFlag(value);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }

    static final class ModeConverter implements CommandLine.ITypeConverter<Mode> {
        @Override
        public Mode convert(String value) {
            switch (value.trim().toLowerCase(Locale.ROOT)) {
                case "scheduled":
                    return Mode.SCHEDULED;
                case "on-demand":
                case "on_demand":
                case "ondemand":
                    return Mode.ON_DEMAND;
                default:
                    throw new CommandLine.TypeConversionException("expected 'scheduled' or 'on-demand', was '" + value + "'");
            }
        }
    }

    static final class DetailsConverter implements CommandLine.ITypeConverter<Details> {
        @Override
        public Details convert(String value) {
            switch (value.trim().toLowerCase(Locale.ROOT)) {
                case "never":
                    return Details.NEVER;
                case "always":
                    return Details.ALWAYS;
                default:
                    throw new CommandLine.TypeConversionException("expected 'never' or 'always', was '" + value + "'");
            }
        }
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = DemoOptions.class.getPackage().getImplementationVersion();
            return new String[] {"vitals-demo " + (v == null ? "(development build)" : v)};
        }
    }
}
