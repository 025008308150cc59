package dev.vitals.demo;

import dev.vitals.HealthCheck;
import java.io.PrintStream;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The running demo service: database, worker pool, application listener and the chosen probe
 * wiring. {@link #start(DemoOptions, PrintStream)} returns once the service is ready and has
 * printed its ready line (format in {@link #readyLine()}).
 *
 * <p>Order: H2 TCP server and pool; the probe listener (vitals wiring), so probes answer during
 * initialization; the starting line ({@code vitals-demo starting: wiring=… probe-port=…|none
 * db-port=…}); initialization (migrations through the JDBC URL, retried until they succeed, then
 * warm-up until {@code --startup-delay-ms} has passed since it began); the application listener;
 * startup complete; the ready line.
 *
 * <p>Thread-safe.
 */
public final class DemoApp implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger("dev.vitals.demo");

    private final DemoOptions options;
    private final PrintStream out;
    private final ThreadPoolExecutor workers;
    private final ScheduledThreadPoolExecutor scheduler;
    private final Chaos chaos = new Chaos();
    private final CountDownLatch closing = new CountDownLatch(1);
    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile Database db;
    private volatile AppServer app;
    private volatile ProbeWiring wiring = new ProbeWiring.Naive();
    private volatile int port = -1;
    private volatile long startupMs = -1;
    private final Object lifecycle = new Object();
    private boolean closed;

    private DemoApp(DemoOptions options, PrintStream out) {
        this.options = options;
        this.out = out;
        this.workers = WorkerPool.create(options.workers());
        this.scheduler = new ScheduledThreadPoolExecutor(1, WorkerPool.named("demo-scheduler-"));
        this.scheduler.setRemoveOnCancelPolicy(true);
    }

    /**
     * Starts the demo and returns when it is ready.
     *
     * @param options parsed flags
     * @param out where the starting and ready lines go (standard output in the jar)
     * @return the ready service
     * @throws Exception if a listener or the H2 server cannot bind, or startup was interrupted;
     *     whatever was started is closed
     */
    public static DemoApp start(DemoOptions options, PrintStream out) throws Exception {
        DemoApp d = new DemoApp(Objects.requireNonNull(options, "options"), Objects.requireNonNull(out, "out"));
        try {
            d.doStart();
            return d;
        } catch (Exception | Error e) {
            d.close();
            throw e;
        }
    }

    private void doStart() throws Exception {
        long t0 = System.nanoTime();
        db = Database.start(options);
        Map<String, HealthCheck> synthetic = SyntheticChecks.of(options);
        app = new AppServer(options, db, workers, chaos, synthetic);
        if (options.wiring() == Wiring.VITALS) {
            wiring = VitalsWiring.create(options, db, workers, scheduler, app, synthetic);
        }
        // A little application housekeeping on the demo's own scheduler (its lag is watched by
        // the Vitals wiring): a worker-pool snapshot every second.
        scheduler.scheduleAtFixedRate(this::snapshot, 1, 1, TimeUnit.SECONDS);
        wiring.beforeInit();
        OptionalInt pp = wiring.probePort();
        out.println("vitals-demo starting: wiring=" + options.wiring().flag() + " probe-port="
                + (pp.isPresent() ? Integer.toString(pp.getAsInt()) : "none") + " db-port=" + db.serverPort());
        out.flush();
        initialize();
        port = app.start();
        wiring.startupComplete();
        startupMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        out.println(readyLine());
        out.flush();
    }

    /**
     * Migrations (retried until the database answers), then warm-up until {@code --startup-delay-ms}
     * has passed since initialization began (the probe listener is up by then).
     */
    private void initialize() throws InterruptedException {
        long t0 = System.nanoTime();
        long backoffMs = 200;
        while (true) {
            try {
                db.migrate();
                break;
            } catch (SQLException e) {
                LOG.log(System.Logger.Level.WARNING, "migration failed, retrying in " + backoffMs + " ms: " + e.getMessage());
                if (closing.await(backoffMs, TimeUnit.MILLISECONDS)) {
                    throw new InterruptedException("closed during startup");
                }
                backoffMs = Math.min(2_000, backoffMs * 2);
            }
        }
        long remainingMs = options.startupDelay().toMillis() - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        if (remainingMs > 0 && closing.await(remainingMs, TimeUnit.MILLISECONDS)) {
            throw new InterruptedException("closed during startup");
        }
        // --startup-gate: a start-up whose end someone else decides (a test, a demo by hand)
        if (options.startupGate().isPresent()) {
            java.nio.file.Path gate = options.startupGate().get();
            while (!java.nio.file.Files.exists(gate)) {
                if (closing.await(50, TimeUnit.MILLISECONDS)) {
                    throw new InterruptedException("closed during startup");
                }
            }
        }
    }

    private void snapshot() {
        long busy = workers.getActiveCount();
        long queued = workers.getQueue().size();
        if (busy == workers.getMaximumPoolSize() && queued > 0) {
            LOG.log(System.Logger.Level.DEBUG, "worker pool saturated: " + busy + " busy, " + queued + " queued");
        }
    }

    /**
     * The line printed once the service is ready, e.g.
     * {@code vitals-demo ready: wiring=vitals port=8080 probe-port=8081 db-port=9092 workers=40 startup-ms=212}
     * ({@code probe-port=none} in the naive wiring), followed by {@code grpc-port=N} when
     * {@code --grpc-port} was given and {@code metrics-port=N} when {@code --metrics-port} was.
     *
     * @return the ready line
     */
    public String readyLine() {
        OptionalInt pp = wiring.probePort();
        return "vitals-demo ready: wiring=" + options.wiring().flag() + " port=" + port + " probe-port="
                + (pp.isPresent() ? Integer.toString(pp.getAsInt()) : "none") + " db-port=" + db.serverPort()
                + " workers=" + options.workers() + " startup-ms=" + startupMs
                + (wiring.grpcPort().isPresent() ? " grpc-port=" + wiring.grpcPort().getAsInt() : "")
                + (wiring.metricsPort().isPresent() ? " metrics-port=" + wiring.metricsPort().getAsInt() : "");
    }

    /** @return the bound application port */
    public int port() {
        return port;
    }

    /** @return the bound gRPC health port (vitals wiring with {@code --grpc-port}) */
    public OptionalInt grpcPort() {
        return wiring.grpcPort();
    }

    /** @return the bound probe port (vitals wiring) */
    public OptionalInt probePort() {
        return wiring.probePort();
    }

    /** The application worker pool, for tests. */
    ThreadPoolExecutor workers() {
        return workers;
    }

    /** @return exports completed with 200 so far */
    public long exportsDone() {
        AppServer a = app;
        return a == null ? 0 : a.exportsDone();
    }

    /** @return the bound port of the embedded H2 TCP server */
    public int dbPort() {
        return db.serverPort();
    }

    /**
     * SIGTERM (DESIGN.md P10). Vitals wiring: readiness fails at once while the service keeps
     * serving for {@code --drain-ms}; then the listener closes, in-flight requests finish (up to
     * the longest export plus a second), and everything stops. Naive wiring: everything stops
     * at once, in-flight requests are cut.
     */
    public void shutdownGracefully() {
        if (options.wiring() == Wiring.VITALS && port > 0) {
            out.println("vitals-demo draining: readiness 503 for " + options.drain().toMillis() + " ms");
            out.flush();
            try {
                wiring.drain(options.drain());
                app.stop(options.exportMax().plusSeconds(1));
                workers.shutdown();
                workers.awaitTermination(options.exportMax().toMillis() + 1_000, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        close();
        out.println("vitals-demo stopped");
        out.flush();
    }

    /** Blocks until {@link #close()} has completed. */
    public void awaitStopped() throws InterruptedException {
        stopped.await();
    }

    /** Stops everything at once: listener, workers (interrupted), probes, database. Idempotent. */
    @Override
    public void close() {
        synchronized (lifecycle) {
            if (closed) {
                return;
            }
            closed = true;
        }
        closing.countDown();
        try {
            if (app != null) {
                app.stop(Duration.ZERO);
            }
            workers.shutdownNow();
            scheduler.shutdownNow();
            wiring.close();
            if (db != null) {
                db.close();
            }
        } finally {
            stopped.countDown();
        }
    }
}
