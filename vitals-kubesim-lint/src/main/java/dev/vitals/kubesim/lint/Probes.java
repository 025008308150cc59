package dev.vitals.kubesim.lint;

import dev.vitals.kubesim.model.ProbeHandler;
import dev.vitals.kubesim.model.ProbeSpec;
import dev.vitals.kubesim.model.ProbeType;
import java.util.Optional;
import java.util.OptionalInt;

/** Handler helpers shared by the rules: same endpoint, same server, field paths, fix texts. */
final class Probes {
    private Probes() {
    }

    /** @return the port a handler connects to (names resolved), if it has one */
    static OptionalInt port(Target t, ProbeHandler h) {
        return h.match(g -> t.portNumber(g.port()), s -> t.portNumber(s.port()), g -> OptionalInt.of(g.port()),
                e -> OptionalInt.empty());
    }

    /**
     * Same endpoint: one answer serves both probes, so whatever fails one fails the other.
     * httpGet: same port (names resolved), host, scheme, path and query ({@code /healthz?full=true}
     * and {@code /healthz} are different checks); grpc: same
     * port and {@code service}; exec: the same command. tcpSocket probes are never "the same
     * endpoint" in this sense: a connect fails only when nothing accepts, for both alike.
     */
    static boolean sameEndpoint(Target t, ProbeHandler a, ProbeHandler b) {
        return a.match(x -> b.match(y -> port(t, x).equals(port(t, y)) && x.host().equals(y.host())
                && x.scheme().equals(y.scheme()) && pathAndQuery(x).equals(pathAndQuery(y)), s -> false, g -> false, e -> false),
                tcp -> false, grpc -> grpc.equals(b), exec -> exec.equals(b));
    }

    /** @return true for an httpGet or grpc probe: an overloaded or throttled server answers it late */
    static boolean asksOverNetwork(ProbeHandler h) {
        return h.match(g -> true, s -> false, g -> true, e -> false);
    }

    /** Same server: both network probes reach one port of one host, so load queues both alike. */
    static boolean sameServer(Target t, ProbeHandler a, ProbeHandler b) {
        OptionalInt pa = port(t, a);
        OptionalInt pb = port(t, b);
        return pa.isPresent() && pa.equals(pb) && a.host().equals(b.host());
    }

    /** @return an httpGet path with its query, never empty */
    static String pathAndQuery(ProbeHandler.HttpGet h) {
        return h.path().isEmpty() ? "/" : h.path().startsWith("?") ? "/" + h.path() : h.path();
    }

    /** @return an httpGet path without its query, never empty */
    static String path(ProbeHandler.HttpGet h) {
        String p = h.path();
        int q = p.indexOf('?');
        p = q < 0 ? p : p.substring(0, q);
        return p.isEmpty() ? "/" : p;
    }

    /** @return the field below the container that names the endpoint, e.g. {@code livenessProbe.httpGet.path} */
    static String endpointField(ProbeType type, ProbeHandler h) {
        return type.fieldName() + "." + h.match(g -> "httpGet.path", s -> "tcpSocket.port", g -> "grpc", e -> "exec.command");
    }

    /** @return a fix that separates liveness from readiness, in the handler's and the runtime's own terms */
    static String separateFix(ProbeHandler h, AppRuntime rt) {
        String network = rt.spring() ? "point livenessProbe at /actuator/health/liveness (livenessState only) and"
                + " readinessProbe at /actuator/health/readiness, or at Vitals /livez and /readyz on the probe server's own port"
                : rt.jvm() ? "point livenessProbe at an endpoint that checks only the JVM's own state (Vitals /livez on its own"
                + " port, or your framework's liveness endpoint) and readinessProbe at one that checks what requests need"
                : "point livenessProbe at an endpoint that checks only the process itself and readinessProbe at one that"
                + " checks what requests need";
        return h.match(g -> network, s -> network,
                g -> "give each probe its own grpc.service name (livenessProbe grpc {port: " + g.port()
                        + ", service: liveness}, readinessProbe grpc {port: " + g.port() + ", service: readiness}) and have the"
                        + " grpc.health.v1 server answer 'liveness' from process health only",
                e -> "run a different command for each probe (liveness: process health only), or better, probe an HTTP"
                        + " endpoint of the application's probe server");
    }

    /** @return {@code failureThreshold × periodSeconds}: seconds of failures before the probe acts */
    static int budgetSeconds(ProbeSpec p) {
        return p.failureThreshold() * p.periodSeconds();
    }

    /**
     * Seconds from the moment a server stops answering to the probe's verdict when every attempt
     * <em>times out</em>: the first failing tick comes up to {@code periodSeconds} later, each
     * attempt lasts {@code timeoutSeconds} and is a counted failure (spec R22), and an attempt
     * longer than the period delays the next tick to its end (R18: at most one tick queued), so
     * {@code P + (FT - 1) × max(P, T) + T}. {@link #budgetSeconds} is the same count for failures
     * that come back at once ({@code FT × P}); a fix must hold for both.
     */
    static int timeoutBudgetSeconds(ProbeSpec p) {
        return timeoutBudgetSeconds(p, p.failureThreshold());
    }

    /** @return {@link #timeoutBudgetSeconds(ProbeSpec)} with another failureThreshold (a fix's) */
    static int timeoutBudgetSeconds(ProbeSpec p, int failureThreshold) {
        return p.periodSeconds() + (failureThreshold - 1) * Math.max(p.periodSeconds(), p.timeoutSeconds()) + p.timeoutSeconds();
    }

    /** @return "P + (FT - 1) × max(P, T) + T = Ns", the timing-out count of {@link #timeoutBudgetSeconds} */
    static String timeoutBudget(ProbeSpec p) {
        return "periodSeconds " + p.periodSeconds() + " + " + (p.failureThreshold() - 1) + " × " + Math.max(p.periodSeconds(), p.timeoutSeconds())
                + "s + timeoutSeconds " + p.timeoutSeconds() + " = " + timeoutBudgetSeconds(p) + "s";
    }

    /** @return "FT × P = Ns" */
    static String budget(ProbeSpec p) {
        return p.failureThreshold() + " × periodSeconds " + p.periodSeconds() + " = "
                + (p.failureThreshold() * p.periodSeconds()) + "s";
    }

    /**
     * Liveness giving up no later than readiness sheds the pod (L4, L16): the seconds each needs
     * ({@code failureThreshold × periodSeconds}, spec R25/R26).
     *
     * @param killAfter seconds of failures before liveness kills
     * @param shedAfter seconds of failures before readiness takes the pod out of service
     */
    record KillBeforeShed(int killAfter, int shedAfter) {
        /** @return the ordering when liveness gives up first (or at the same time), else empty */
        static Optional<KillBeforeShed> of(ProbeSpec live, ProbeSpec ready) {
            int killAfter = live.failureThreshold() * live.periodSeconds();
            int shedAfter = ready.failureThreshold() * ready.periodSeconds();
            return killAfter > shedAfter ? Optional.empty() : Optional.of(new KillBeforeShed(killAfter, shedAfter));
        }
    }

    /**
     * The one fix that puts shedding before the kill by raising liveness' failureThreshold (L4, L16,
     * L21): the smallest threshold with which liveness gives up strictly after readiness both when
     * failures come back at once ({@link #budgetSeconds}) and when every attempt times out
     * ({@link #timeoutBudgetSeconds}, liveness' own {@code timeoutSeconds} counted), never below the
     * current one.
     *
     * @param failureThreshold the threshold to set
     * @param text "raise livenessProbe.failureThreshold to N (N × Ps = Xs > Ys; timing out after Ts, As > Bs)"
     */
    record LivenessFix(int failureThreshold, String text) {
        static LivenessFix of(ProbeSpec live, ProbeSpec ready) {
            int shed = budgetSeconds(ready);
            int shedTimingOut = timeoutBudgetSeconds(ready);
            int ft = Math.max(live.failureThreshold(), shed / live.periodSeconds() + 1);
            while (timeoutBudgetSeconds(live, ft) <= shedTimingOut) {
                ft++;
            }
            return new LivenessFix(ft, "raise livenessProbe.failureThreshold to " + ft + " (" + ft + " × " + live.periodSeconds()
                    + "s = " + ft * live.periodSeconds() + "s > " + shed + "s; timing out after " + live.timeoutSeconds() + "s, "
                    + timeoutBudgetSeconds(live, ft) + "s > " + shedTimingOut + "s)");
        }
    }
}
