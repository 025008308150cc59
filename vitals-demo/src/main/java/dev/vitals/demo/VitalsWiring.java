package dev.vitals.demo;

import dev.vitals.Check;
import dev.vitals.Groups;
import dev.vitals.Health;
import dev.vitals.HealthCheck;
import dev.vitals.HealthRegistry;
import dev.vitals.StartupCompletion;
import dev.vitals.monitor.LagMonitor;
import dev.vitals.monitor.ListenerMonitor;
import dev.vitals.monitor.LivenessSet;
import dev.vitals.monitor.ProgressSource;
import dev.vitals.monitor.ProgressWatchdog;
import dev.vitals.monitor.SaturationMonitor;
import dev.vitals.monitor.SaturationSource;
import dev.vitals.grpc.GrpcHealthServer;
import dev.vitals.micrometer.VitalsMetrics;
import dev.vitals.server.DetailsPolicy;
import dev.vitals.server.ProbeServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The Vitals wiring: a {@link ProbeServer} on {@code --probe-port} over one registry, and with
 * {@code --grpc-port} a {@link GrpcHealthServer} over the same registry (its own port and event
 * loop; services {@code liveness}, {@code readiness}, {@code startup}, {@code ""} = readiness).
 *
 * <ul>
 *   <li><b>liveness</b> (only what a restart cures, DESIGN.md P2): {@code deadlock} (JVM
 *       deadlocks), {@code workers-progress} (the worker pool had work but completed none for
 *       {@code --stall-after-ms}), {@code scheduler-lag} (the demo's scheduler ran nothing for
 *       {@code --stall-after-ms}), {@code app-listener} (the application port refused
 *       connections for {@code --stall-after-ms}; UP while starting and while draining, when
 *       the listener is not open on purpose), plus the availability state;</li>
 *   <li><b>readiness</b>: {@code database} (scheduled ping through the JDBC URL), the
 *       synthetic and hung checks, {@code workers} saturation (non-critical, DEGRADED at 90 %:
 *       information, never a failure), and availability (DOWN while starting and draining);</li>
 *   <li><b>startup</b>: availability only, marked complete when initialization is done.</li>
 * </ul>
 *
 * <p>No {@code /healthz} on the application port: a probe there would queue behind the exports
 * again (DESIGN.md P1), so in this wiring every probe goes to the probe port.
 */
final class VitalsWiring implements ProbeWiring {
    static final String LISTENER = "app-listener";

    private final DemoOptions options;
    private final AppServer app;
    private final HealthRegistry registry;
    private final LivenessSet liveness;
    private final SaturationMonitor saturation;
    private final ProbeServer probes;
    private final GrpcHealthServer grpc;
    private final MetricsEndpoint metrics;
    private volatile ListenerMonitor listener;
    private volatile boolean draining;

    private VitalsWiring(DemoOptions o, Database db, ThreadPoolExecutor workers, ScheduledExecutorService scheduler,
            AppServer app, Map<String, HealthCheck> synthetic) throws Exception {
        this.options = o;
        this.app = app;
        Duration every = o.livenessInterval();
        ProgressWatchdog progress = ProgressWatchdog.builder("workers-progress", ProgressSource.of(workers))
                .interval(every).stallAfter(o.stallAfter()).build();
        LagMonitor lag = LagMonitor.forScheduler("scheduler-lag", scheduler).interval(every).stallAfter(o.stallAfter()).build();
        this.liveness = LivenessSet.builder().deadlockInterval(every).watchdog(progress).lag(lag).build();
        this.saturation = SaturationMonitor.builder("workers", SaturationSource.of(workers)).interval(every).warnAt(0.9).build();

        VitalsMetrics meters = o.metricsPort().isPresent() ? VitalsMetrics.create() : null;
        HealthRegistry.Builder b = HealthRegistry.builder().startupCompletion(StartupCompletion.MANUAL);
        if (meters != null) {
            b.listener(meters);
        }
        liveness.registerAll(b);
        b.register(Check.builder(LISTENER, this::listenerHealth).groups(Groups.LIVENESS)
                .interval(max(every, Duration.ofSeconds(1))).timeout(Duration.ofSeconds(1))
                .maxAge(Duration.ofSeconds(30)).build());
        b.register(Check.builder("database", () -> Health.up().withDetail("roundTripMs", db.ping().toMillis()))
                .groups(Groups.READINESS).interval(o.checkInterval()).timeout(o.checkTimeout())
                .maxAge(max(o.checkInterval().multipliedBy(3), o.checkTimeout().multipliedBy(2))).build());
        b.register(saturation.check().critical(false).build());
        for (Map.Entry<String, HealthCheck> c : synthetic.entrySet()) {
            b.register(Check.builder(c.getKey(), c.getValue()).groups(Groups.READINESS).mode(o.checkMode())
                    .interval(o.checkInterval()).timeout(o.checkTimeout())
                    .maxAge(max(o.checkInterval().multipliedBy(3), o.checkTimeout().multipliedBy(2))).build());
        }
        this.registry = b.build();
        if (meters != null) {
            this.metrics = new MetricsEndpoint(new InetSocketAddress(InetAddress.getByName(o.host()), o.metricsPort().getAsInt()));
            meters.monitor(registry).saturation(saturation).progress(progress).lag(lag).bindTo(metrics.registry());
        } else {
            this.metrics = null;
        }
        this.probes = ProbeServer.builder(registry).port(o.probePort()).bindAddress(InetAddress.getByName(o.host()))
                .detailsPolicy(o.probeDetails() ? DetailsPolicy.always() : DetailsPolicy.never()).build();
        this.grpc = o.grpcPort().isPresent()
                ? GrpcHealthServer.builder(registry).port(o.grpcPort().getAsInt()).bindAddress(InetAddress.getByName(o.host())).build()
                : null;
    }

    static ProbeWiring create(DemoOptions o, Database db, ThreadPoolExecutor workers, ScheduledExecutorService scheduler,
            AppServer app, Map<String, HealthCheck> synthetic) throws Exception {
        return new VitalsWiring(o, db, workers, scheduler, app, synthetic);
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    /** Lost-listener check, but only while the listener should be open (not while starting or draining). */
    private Health listenerHealth() throws Exception {
        ListenerMonitor m = listener;
        if (draining) {
            return Health.up().withDetail("state", "closed for shutdown");
        }
        if (m == null) {
            return Health.up().withDetail("state", "not open yet (starting)");
        }
        return m.healthCheck().check();
    }

    @Override
    public void beforeInit() {
        liveness.start(registry);
        saturation.start(registry);
        registry.start();
        probes.start();
        if (grpc != null) {
            grpc.start();
        }
        if (metrics != null) {
            metrics.start();
        }
    }

    @Override
    public void startupComplete() {
        InetSocketAddress bound = app.address().orElseThrow(() -> new IllegalStateException("application listener is not open"));
        InetAddress target = bound.getAddress().isAnyLocalAddress() ? InetAddress.getLoopbackAddress() : bound.getAddress();
        Duration every = max(options.livenessInterval(), Duration.ofMillis(100));
        ListenerMonitor m = ListenerMonitor.builder(LISTENER, new InetSocketAddress(target, bound.getPort()))
                .interval(every).connectTimeout(every.compareTo(Duration.ofSeconds(1)) < 0 ? every : Duration.ofSeconds(1))
                .grace(options.stallAfter()).build();
        m.start(registry);
        listener = m;
        registry.availability().markStartupComplete();
    }

    @Override
    public OptionalInt probePort() {
        return probes.isRunning() ? OptionalInt.of(probes.port()) : OptionalInt.empty();
    }

    @Override
    public OptionalInt grpcPort() {
        return grpc == null || !grpc.isRunning() ? OptionalInt.empty() : OptionalInt.of(grpc.port());
    }

    @Override
    public OptionalInt metricsPort() {
        return metrics == null ? OptionalInt.empty() : OptionalInt.of(metrics.port());
    }

    @Override
    public void drain(Duration delay) throws InterruptedException {
        draining = true;
        try {
            registry.availability().drain(delay).get(delay.toMillis() + 5_000, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            // the drain's delay elapsed (or the scheduler is gone): go on stopping
        }
    }

    @Override
    public void close() {
        probes.stop(Duration.ZERO);
        if (grpc != null) {
            grpc.stop(Duration.ZERO);
        }
        if (metrics != null) {
            metrics.close();
        }
        ListenerMonitor m = listener;
        if (m != null) {
            m.close();
        }
        liveness.close();
        saturation.close();
        registry.close();
    }
}
