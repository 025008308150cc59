package dev.vitals.agent.impl;

import dev.vitals.Health;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Whether each application port still listens, read from the kernel's socket tables
 * ({@code /proc/self/net/tcp*}, state LISTEN) instead of connecting to it (issue 37): a connection
 * every few seconds per port made the application's pools grow to accept it (Dropwizard's admin
 * pool 1 → 7 threads). On loopback a connection is refused exactly when no socket listens on the
 * port, so the verdict is the one core's {@code ListenerMonitor} gives from refused connects (case
 * C06): DOWN once a watched port has not listened for {@code grace}; a full accept backlog (which
 * times a connect out rather than refusing it) is not a lost listener for either. A port is
 * matched by number in this network namespace (a container's own, in a pod). Linux only: elsewhere
 * the agent keeps {@code ListenerMonitor}.
 *
 * <p>Thread-safety: {@link #watch} from any thread; {@link #health} from one thread at a time (the
 * scheduler, where the {@code jvm} check runs inline).
 */
final class ListenerWatch {
    private static final long NEVER = Long.MIN_VALUE;
    private final long graceNanos;
    /** Port → when it was first seen not listening (nanoTime), 0 while it listens, {@link #NEVER} before it first listened. */
    private final Map<Integer, Long> lostSince = new ConcurrentHashMap<>();

    /** @param grace how long a watched port may not listen before it is DOWN */
    ListenerWatch(Duration grace) {
        this.graceNanos = grace.toNanos();
    }

    /**
     * Watches {@code port} from now on; it counts as lost only after it has been seen listening
     * (a configured {@code app-port} before the application binds it is not a lost listener).
     */
    void watch(int port) {
        lostSince.putIfAbsent(port, NEVER);
    }

    /** @return the watched ports */
    Set<Integer> ports() {
        return Set.copyOf(lostSince.keySet());
    }

    /**
     * @param port a watched port
     * @param listening the ports listening now ({@link AppPorts#listeningInTable()})
     * @param now {@link System#nanoTime()}
     * @return UP while it listens or within the grace; DOWN "listener on port P lost: not listening
     *     for N ms" after it
     */
    Health health(int port, Set<Integer> listening, long now) {
        Long since = lostSince.get(port);
        if (since == null) {
            throw new IllegalArgumentException("port " + port + " is not watched");
        }
        if (listening.contains(port)) {
            lostSince.put(port, 0L);
            return Health.builder(dev.vitals.Status.UP).detail("listening", true).build();
        }
        if (since == NEVER) {
            return Health.builder(dev.vitals.Status.UP).detail("listening", false).message("not listening yet").build();
        }
        if (since == 0L) {
            since = now == 0L ? 1L : now;
            lostSince.put(port, since);
        }
        long lostMs = (now - since) / 1_000_000L;
        Health.Builder b = Health.builder(now - since >= graceNanos ? dev.vitals.Status.DOWN : dev.vitals.Status.UP)
                .detail("listening", false).detail("lostForMs", lostMs).detail("graceMs", graceNanos / 1_000_000L);
        if (now - since >= graceNanos) {
            b.message("listener on port " + port + " lost: not listening for " + lostMs + " ms");
        }
        return b.build();
    }
}
