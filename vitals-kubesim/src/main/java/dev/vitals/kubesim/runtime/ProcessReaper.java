package dev.vitals.kubesim.runtime;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Every process the simulator started and has not seen end (issue 30): on an interrupted run
 * ({@code vitals simulate}, {@code fleet}, {@code replay} given SIGINT or SIGTERM) the CLI
 * reaps them all, with their descendants, so no target or replica outlives the tool with its
 * ports. Reaping sends SIGTERM to each process tree (children first seen through
 * {@link ProcessHandle#descendants()}, taken before the parent ends and its children are
 * re-parented), waits up to a grace period, then SIGKILLs what is left. Kept apart from the
 * launch code: a launcher only calls {@link #track(Process)}. Thread-safe.
 *
 * <p>A container's processes end with it (the kubelet kills the container's cgroup): the
 * descendants of each tracked process are noted every {@value #WATCH_MS} ms by a
 * {@code vitals-reaper} daemon thread, and those still alive when it ends are killed (SIGKILL),
 * so a {@code sh -c 'server & …'} target leaves no orphan holding its port. (A descendant started
 * and orphaned between two looks can escape; a process group or cgroup would close that gap.)
 */
public final class ProcessReaper {
    /** How often the descendants of the tracked processes are noted, ms. */
    static final long WATCH_MS = 500;
    /** Tracked process → descendants seen so far; guarded by itself. */
    private static final Map<ProcessHandle, Set<ProcessHandle>> LIVE = new LinkedHashMap<>();
    private static ScheduledExecutorService watcher; // guarded by LIVE

    private ProcessReaper() {
    }

    /**
     * Tracks a started process until it ends.
     *
     * @param p a process just started
     */
    public static void track(Process p) {
        ProcessHandle h = p.toHandle();
        synchronized (LIVE) {
            LIVE.put(h, new LinkedHashSet<>());
            if (watcher == null) {
                watcher = Executors.newSingleThreadScheduledExecutor(r -> {
                    Thread t = new Thread(r, "vitals-reaper");
                    t.setDaemon(true);
                    return t;
                });
                watcher.scheduleWithFixedDelay(ProcessReaper::watch, WATCH_MS, WATCH_MS, TimeUnit.MILLISECONDS);
            }
        }
        h.onExit().thenRun(() -> {
            Set<ProcessHandle> orphans;
            synchronized (LIVE) {
                Set<ProcessHandle> s = LIVE.get(h);
                orphans = s == null ? Set.of() : new LinkedHashSet<>(s);
            }
            for (ProcessHandle o : orphans) {
                if (o.isAlive()) { // ProcessHandle equality includes the start time: never a reused pid
                    o.destroyForcibly();
                }
            }
            synchronized (LIVE) { // only once its orphans are killed, so reapAll never misses them
                LIVE.remove(h);
            }
        });
    }

    /**
     * Notes the descendants of every tracked process now: call it before signalling a process
     * (its children are re-parented once it ends) and when a signal arrives.
     */
    public static void noteDescendants() {
        watch();
    }

    private static void watch() {
        List<ProcessHandle> roots;
        synchronized (LIVE) {
            roots = new ArrayList<>(LIVE.keySet());
        }
        for (ProcessHandle r : roots) {
            List<ProcessHandle> seen = new ArrayList<>();
            try {
                r.descendants().forEach(seen::add);
            } catch (RuntimeException e) {
                continue;
            }
            synchronized (LIVE) {
                Set<ProcessHandle> s = LIVE.get(r);
                if (s != null) {
                    s.removeIf(x -> !x.isAlive());
                    s.addAll(seen);
                }
            }
        }
    }

    /** @return the tracked processes still alive (a copy) */
    public static List<ProcessHandle> live() {
        synchronized (LIVE) {
            List<ProcessHandle> l = new ArrayList<>();
            for (ProcessHandle h : LIVE.keySet()) {
                if (h.isAlive()) {
                    l.add(h);
                }
            }
            return l;
        }
    }

    /**
     * Ends every tracked process and its descendants (those alive now and those noted before),
     * SIGTERM first, then SIGKILL after {@code grace}.
     *
     * @param grace how long to wait after SIGTERM
     * @return how many processes (trees' members included) were still alive and signalled
     */
    public static int reapAll(Duration grace) {
        Set<ProcessHandle> all = new LinkedHashSet<>();
        synchronized (LIVE) {
            for (Map.Entry<ProcessHandle, Set<ProcessHandle>> e : LIVE.entrySet()) {
                all.addAll(e.getValue());
                all.add(e.getKey());
            }
        }
        for (ProcessHandle root : new ArrayList<>(all)) {
            if (root.isAlive()) {
                root.descendants().forEach(all::add); // before the root ends and they are re-parented
            }
        }
        all.removeIf(h -> !h.isAlive());
        for (ProcessHandle h : all) {
            h.destroy();
        }
        long deadline = System.nanoTime() + grace.toNanos();
        for (ProcessHandle h : all) {
            long left = deadline - System.nanoTime();
            try {
                if (left > 0) {
                    h.onExit().get(left, TimeUnit.NANOSECONDS);
                }
            } catch (Exception e) {
                // timed out or interrupted: killed below
            }
        }
        for (ProcessHandle h : all) {
            if (h.isAlive()) {
                h.destroyForcibly();
            }
        }
        return all.size();
    }
}
