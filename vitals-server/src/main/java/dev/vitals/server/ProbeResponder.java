package dev.vitals.server;

import dev.vitals.HealthRegistry;
import dev.vitals.Report;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * Binds a {@link ProbeRouter} to a live {@link HealthRegistry}, still independent of any server:
 * answers from the registry's in-memory reports when no on-demand check is involved
 * ({@link #answerNow(Route)}, never blocks), else evaluates on Vitals' check executor
 * ({@link #evaluate(Route)}, a future that completes by the group deadline).
 *
 * <p>A Servlet or Spring adapter can drive this class the same way the transports do. Thread-safe.
 */
final class ProbeResponder {
    private final HealthRegistry registry;
    private final ProbeRouter router;
    private final Duration budget;

    ProbeResponder(HealthRegistry registry, ProbeRouter router) {
        this(registry, router, ProbeServer.Builder.DEFAULT_PROBE_BUDGET);
    }

    ProbeResponder(HealthRegistry registry, ProbeRouter router, Duration budget) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.router = Objects.requireNonNull(router, "router");
        this.budget = Objects.requireNonNull(budget, "budget");
    }

    /** @return the longest time {@link #evaluate(Route)} waits for on-demand checks on a probe route */
    Duration budget() {
        return budget;
    }

    /**
     * @return whether the route is a kubelet probe ({@code /livez}, {@code /readyz},
     *     {@code /startupz} and their per-check paths), answered within the budget; the JSON
     *     reports are for people and dashboards and wait for the group deadline
     */
    static boolean isProbe(Route route) {
        return route.kind() == Route.Kind.PROBE || route.kind() == Route.Kind.CHECK;
    }

    /** @return the longest time {@link #evaluate(Route)} may take for this route */
    Duration wait(Route route) {
        Duration d = deadline(route);
        return isProbe(route) && budget.compareTo(d) < 0 ? budget : d;
    }

    ProbeRouter router() {
        return router;
    }

    /**
     * @return whether answering the route runs on-demand checks, so the caller must use
     *     {@link #evaluate(Route)} and wait (without blocking) for the future
     */
    boolean needsEvaluation(Route route) {
        if (route.kind() == Route.Kind.FIXED) {
            return false;
        }
        for (String g : route.groups()) {
            if (router.catalog().onDemandDeadline(g).isPresent()) {
                return true;
            }
        }
        return false;
    }

    /** @return the longest time {@link #evaluate(Route)} may take: the longest group deadline of the route */
    Duration deadline(Route route) {
        Duration max = Duration.ZERO;
        for (String g : route.groups()) {
            Duration d = router.catalog().onDemandDeadline(g).orElse(Duration.ZERO);
            if (d.compareTo(max) > 0) {
                max = d;
            }
        }
        return max;
    }

    /**
     * Answers from the registry's current in-memory state; never blocks and never runs a check.
     * Used for every route without on-demand checks, and as the fallback when an evaluation
     * misses its safety deadline (on-demand checks then read as their latest result).
     *
     * @return the response; 503 "unavailable" if the registry is closed
     */
    ProbeResponse answerNow(Route route) {
        if (route.kind() == Route.Kind.FIXED) {
            return route.fixed();
        }
        try {
            if (route.kind() == Route.Kind.HEALTH_ALL) {
                List<Report> reports = new ArrayList<>(route.groups().size());
                for (String g : route.groups()) {
                    reports.add(registry.report(g));
                }
                return router.renderAll(route, reports);
            }
            return router.render(route, registry.report(route.groups().get(0)));
        } catch (IllegalStateException e) {
            return ProbeRouter.unavailable("health registry is closed");
        }
    }

    /**
     * Evaluates the route's groups (on-demand checks run on Vitals' executor, honouring their
     * TTL and single flight) and formats the result. Never completes exceptionally.
     *
     * @return a future completing, by the registry's contract, within {@link #wait(Route)}: for a
     *     probe route the shorter of {@link #deadline(Route)} and {@link #budget()} (checks still
     *     running at the budget read as their last result, marked "still running", or UNKNOWN);
     *     for a JSON report the deadline
     */
    CompletableFuture<ProbeResponse> evaluate(Route route) {
        Set<String> excluded = route.kind() == Route.Kind.CHECK ? Set.of() : route.excluded();
        List<CompletableFuture<Report>> futures = new ArrayList<>(route.groups().size());
        try {
            for (String g : route.groups()) {
                futures.add(isProbe(route) ? registry.evaluate(g, excluded, budget) : registry.evaluate(g, excluded));
            }
        } catch (IllegalStateException e) {
            return CompletableFuture.completedFuture(ProbeRouter.unavailable("health registry is closed"));
        }
        return CompletableFuture.allOf(futures.toArray(new CompletableFuture<?>[0])).handle((v, e) -> {
            if (e != null) {
                return answerNow(route);
            }
            if (route.kind() == Route.Kind.HEALTH_ALL) {
                List<Report> reports = new ArrayList<>(futures.size());
                for (CompletableFuture<Report> f : futures) {
                    reports.add(f.getNow(null)); // done: allOf completed
                }
                return router.renderAll(route, reports);
            }
            return router.render(route, futures.get(0).getNow(null));
        });
    }
}
