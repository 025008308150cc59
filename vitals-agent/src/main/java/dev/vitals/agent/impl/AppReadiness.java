package dev.vitals.agent.impl;

import dev.vitals.Availability;
import dev.vitals.Health;
import dev.vitals.HealthCheck;
import dev.vitals.Status;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The readiness check {@code app}: the application's own health endpoint, called in the
 * background on loopback (DESIGN.md section 7d).
 *
 * <ul>
 *   <li>Detection ({@code readiness=auto}): on each HTTP port of the application, the first of
 *       {@link #CANDIDATES} that answers anything but 404/405/401/403 is taken and kept; a port
 *       that does not speak HTTP is skipped. With no endpoint found, readiness follows "the
 *       application answers HTTP". A run has one {@code readiness-timeout} for detection; the
 *       candidates a port ruled out stay ruled out, so a slow application is searched over
 *       several runs rather than from the first candidate each time.</li>
 *   <li>Answers 200–399 are UP; any other status is DOWN "answered 503"; a refused connection
 *       is DOWN "not listening".</li>
 *   <li>One call in flight: a call that has not answered within {@code readiness-timeout} is DOWN
 *       "timed out", and its connection is kept; later runs wait on that same connection rather
 *       than opening another, so a hung framework check costs the application one connection
 *       and one thread, not one per poll. After {@link #ABANDON_AFTER_TIMEOUTS} timeouts' worth of
 *       waiting it is closed and a new call starts.</li>
 *   <li>The first UP marks startup complete.</li>
 * </ul>
 * Runs as a scheduled blocking check (single flight by the engine), so it is never called
 * concurrently with itself.
 */
final class AppReadiness implements HealthCheck {
    static final List<String> CANDIDATES = List.of(
            "/actuator/health/readiness", // Spring Boot (probes group)
            "/q/health/ready",            // Quarkus (SmallRye Health)
            "/health/readiness",          // Micronaut
            "/observe/health/ready",      // Helidon 4
            "/healthcheck",               // Dropwizard admin port
            "/actuator/health",           // Spring Boot without the probes group
            "/readyz",
            "/healthz",
            "/health");
    static final int ABANDON_AFTER_TIMEOUTS = 30;

    private final AgentOptions options;
    private final Supplier<List<Integer>> ports;
    private final Supplier<Availability> availability;
    private final Consumer<List<Integer>> onPorts;
    private final long timeoutMillis;
    private LoopbackGet pending;
    private int port = -1;      // detected or configured endpoint
    private String path;        // null: follow the listener only
    private boolean detected;
    private List<Integer> searched = List.of();
    private final List<Integer> nonHttp = new ArrayList<>();
    private final List<Integer> http = new ArrayList<>();
    /** Port → how many candidates, in order, it answered 404/405/401/403 to: a later run goes on from there. */
    private final java.util.Map<Integer, Integer> ruledOut = new java.util.HashMap<>();
    private static final String HTTP_TEST_PATH = "/.vitals-agent-http-test";

    AppReadiness(AgentOptions options, Supplier<List<Integer>> ports, Supplier<Availability> availability, Consumer<List<Integer>> onPorts) {
        this.options = options;
        this.ports = ports;
        this.availability = availability;
        this.onPorts = onPorts;
        this.timeoutMillis = options.readinessTimeout.toMillis();
        if (options.readiness.kind == AgentOptions.Readiness.Kind.URL) {
            port = options.readiness.port;
            path = options.readiness.path;
            detected = true;
        }
    }

    /** The engine's timeout for this check: above the run's own bound (one readiness-timeout), which reports first. */
    Duration engineTimeout() {
        return options.readinessTimeout.plusSeconds(1);
    }

    @Override
    public Health check() {
        Health h = evaluate();
        if (h.status() == Status.UP && !availability.get().isStartupComplete()) {
            availability.get().markStartupComplete();
        }
        return h;
    }

    private Health evaluate() {
        if (pending != null) {
            return awaitPending(true);
        }
        List<Integer> app = ports.get();
        onPorts.accept(app);
        AgentOptions.Readiness.Kind kind = options.readiness.kind;
        if (kind == AgentOptions.Readiness.Kind.URL) {
            return call(port, path);
        }
        if (app.isEmpty()) {
            return Health.builder(Status.DOWN).message(AppPorts.supported() || !options.appPorts.isEmpty()
                    ? "waiting for the application to listen" : "no app-port configured and no /proc to find it").build();
        }
        if (kind == AgentOptions.Readiness.Kind.NONE) {
            return listenerOnly(app, "readiness not taken from the application (readiness=none)");
        }
        if (detected && path == null && !app.equals(searched)) {
            detected = false; // a new port appeared since nothing was found: look again
        }
        if (!detected) {
            Health h = detect(app);
            if (h != null) {
                return h;
            }
        }
        if (path == null) {
            if (http.isEmpty()) {
                return Health.builder(Status.DOWN).message("waiting for the application's HTTP port (ports " + app
                        + " do not speak HTTP)").build();
            }
            return listenerOnly(http, "no health endpoint found on ports " + http + "; readiness follows the listener");
        }
        return call(port, path);
    }

    /** Tries the candidates within one timeout's worth of time; null once decided (path set or none). */
    private Health detect(List<Integer> app) {
        long end = System.nanoTime() + timeoutMillis * 1_000_000L;
        List<String> candidates = options.readiness.kind == AgentOptions.Readiness.Kind.PATH
                ? List.of(options.readiness.path) : CANDIDATES;
        boolean undecided = false;
        for (int p : app) {
            if (nonHttp.contains(p)) {
                continue;
            }
            if (!http.contains(p)) {
                // First learn whether the port speaks HTTP, with a path no framework serves.
                long left = (end - System.nanoTime()) / 1_000_000L;
                if (left <= 0) {
                    return Health.builder(Status.DOWN).message("looking for the application's health endpoint").build();
                }
                LoopbackGet g = LoopbackGet.start(p, HTTP_TEST_PATH, left);
                LoopbackGet.Answer a = g.await(Math.max(1, (end - System.nanoTime()) / 1_000_000L));
                g.close();
                if (a == null) {
                    undecided = true;
                    continue;
                }
                if (a.refused) {
                    return Health.builder(Status.DOWN).message("port " + p + " refused a connection").build();
                }
                if (!a.http()) {
                    nonHttp.add(p);
                    continue;
                }
                http.add(p);
            }
            // Go on where an earlier run stopped: under load one run's time may not reach the
            // 8th candidate, and starting over each run would never get there.
            for (int i = ruledOut.getOrDefault(p, 0); i < candidates.size(); i++) {
                String candidate = candidates.get(i);
                long left = (end - System.nanoTime()) / 1_000_000L;
                if (left <= 0) {
                    return Health.builder(Status.DOWN).message("looking for the application's health endpoint").build();
                }
                LoopbackGet g = LoopbackGet.start(p, candidate, left);
                LoopbackGet.Answer a = g.await(Math.max(1, (end - System.nanoTime()) / 1_000_000L));
                if (a == null && (left < timeoutMillis / 2 || !answersFast(p))) {
                    // Ran out of this run's time, or the whole application is not answering (a
                    // saturated pool): undecided, try again next run.
                    g.close();
                    undecided = true;
                    break;
                }
                if (a == null || (a.http() && a.status != 404 && a.status != 405 && a.status != 401 && a.status != 403)) {
                    // An HTTP port whose candidate answers, or hangs (a hung framework check): this is it.
                    port = p;
                    path = candidate;
                    detected = true;
                    System.getLogger("dev.vitals.agent").log(System.Logger.Level.INFO,
                            "readiness from " + AppPorts.origin(p) + candidate);
                    if (a == null) {
                        pending = g; // this run's time is spent: report, and wait on it next run
                        return timedOut(g, false);
                    }
                    return answer(a);
                }
                if (a.refused) {
                    return Health.builder(Status.DOWN).message("port " + p + " refused a connection").build();
                }
                ruledOut.put(p, i + 1);
            }
        }
        if (undecided) {
            return Health.builder(Status.DOWN).message("looking for the application's health endpoint: no answer within "
                    + timeoutMillis + " ms on a port of " + app).build();
        }
        if (options.readiness.kind == AgentOptions.Readiness.Kind.PATH) {
            return Health.builder(Status.DOWN).message("no port of " + app + " serves " + options.readiness.path).build();
        }
        if (http.isEmpty()) {
            // Only non-HTTP ports so far (an embedded database, say): the application is not up yet.
            searched = List.copyOf(app);
            detected = true;
            return Health.builder(Status.DOWN).message("waiting for the application's HTTP port (ports " + app
                    + " do not speak HTTP)").build();
        }
        detected = true; // nothing found: follow the listener (until the ports change)
        searched = List.copyOf(app);
        return null;
    }

    /** Whether the port answers a path no framework serves within a quarter of the timeout. */
    private boolean answersFast(int p) {
        long wait = Math.max(50, timeoutMillis / 4);
        try (LoopbackGet g = LoopbackGet.start(p, HTTP_TEST_PATH, wait)) {
            LoopbackGet.Answer a = g.await(wait);
            return a != null && a.http();
        }
    }

    private Health listenerOnly(List<Integer> app, String note) {
        LoopbackGet g = LoopbackGet.start(app.get(0), "/", timeoutMillis);
        LoopbackGet.Answer a = g.await(1);
        g.close();
        if (a != null && a.refused) {
            return Health.builder(Status.DOWN).message("port " + app.get(0) + " refused a connection").build();
        }
        return Health.builder(Status.UP).message(note).build();
    }

    private Health call(int p, String pth) {
        pending = LoopbackGet.start(p, pth, timeoutMillis);
        return awaitPending(false);
    }

    private Health awaitPending(boolean earlier) {
        LoopbackGet g = pending;
        LoopbackGet.Answer a = g.await(timeoutMillis);
        if (a == null) {
            return timedOut(g, earlier);
        }
        pending = null;
        return answer(a);
    }

    private Health timedOut(LoopbackGet g, boolean earlier) {
        long age = g.ageMillis();
        if (age >= timeoutMillis * ABANDON_AFTER_TIMEOUTS) {
            g.close();
            pending = null;
        }
        return Health.builder(Status.DOWN)
                .message("timed out after " + timeoutMillis + " ms: GET " + g.path + " on port " + g.port
                        + (earlier ? " unanswered for " + age + " ms (one call in flight: no new call until it answers)" : ""))
                .detail("endpoint", AppPorts.origin(g.port) + g.path)
                .build();
    }

    private Health answer(LoopbackGet.Answer a) {
        String endpoint = (port > 0 ? AppPorts.origin(port) : "http://127.0.0.1:?") + (path != null ? path : "");
        if (a.http() && a.status >= 200 && a.status < 400) {
            return Health.builder(Status.UP).detail("endpoint", endpoint).detail("httpStatus", a.status).build();
        }
        Health.Builder b = Health.builder(Status.DOWN).detail("endpoint", endpoint);
        if (a.http()) {
            b.message("answered " + a.status).detail("httpStatus", a.status);
        } else {
            b.message(a.refused ? "not listening (connection refused)" : a.failure);
        }
        return b.build();
    }
}
