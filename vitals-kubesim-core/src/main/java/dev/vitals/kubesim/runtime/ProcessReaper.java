package dev.vitals.kubesim.runtime;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Every container instance the simulator started and has not seen end, with the processes it
 * holds (issues 30, 40): no process outlives its container, nor the tool.
 *
 * <ul>
 *   <li><b>When an instance's main process ends</b> (a crash, a kill, a restart, the end of the
 *       run) every process left in its {@link Enclosure} — its cgroup, else its process group,
 *       else its descendants as last seen — is SIGKILLed at once, as the kernel does to a PID
 *       namespace whose init ends ({@link #ended}); they are counted.</li>
 *   <li><b>On an interrupted run</b> ({@code vitals simulate}, {@code fleet}, {@code replay} given
 *       SIGINT, SIGTERM or SIGHUP) the CLI reaps them all ({@link #reapAll}): SIGTERM to every
 *       process of every enclosure, a grace period, then SIGKILL to what is left.</li>
 * </ul>
 *
 * <p>The descendants of each tracked process are also noted every {@value #WATCH_MS} ms by a
 * {@code vitals-reaper} daemon thread (and before each signal), for hosts with neither cgroups
 * nor {@code setsid(1)}. Kept apart from the launch code: a launcher only calls
 * {@link #track}. Thread-safe.
 */
public final class ProcessReaper {
    /** How often the descendants of the tracked processes are noted, ms. */
    static final long WATCH_MS = 500;
    /** How long SIGKILL is repeated while processes are still found (a fork racing the kill). */
    private static final long KILL_NANOS = TimeUnit.SECONDS.toNanos(2);
    /** Tracked main process → its enclosure and the descendants seen so far; guarded by itself. */
    private static final Map<ProcessHandle, Tracked> LIVE = new LinkedHashMap<>();
    private static ScheduledExecutorService watcher; // guarded by LIVE

    private ProcessReaper() {
    }

    private static final class Tracked {
        final Enclosure enclosure;
        final Set<ProcessHandle> noted = new LinkedHashSet<>(); // guarded by LIVE

        Tracked(Enclosure enclosure) {
            this.enclosure = enclosure;
        }
    }

    /**
     * Tracks a started container instance until {@link #ended} is called for it.
     *
     * @param p the instance's main process, just started
     * @param enclosure where its processes are found
     */
    static void track(Process p, Enclosure enclosure) {
        synchronized (LIVE) {
            LIVE.put(p.toHandle(), new Tracked(enclosure));
            if (watcher == null) {
                watcher = Executors.newSingleThreadScheduledExecutor(r -> {
                    Thread t = new Thread(r, "vitals-reaper");
                    t.setDaemon(true);
                    return t;
                });
                watcher.scheduleWithFixedDelay(ProcessReaper::watch, WATCH_MS, WATCH_MS, TimeUnit.MILLISECONDS);
            }
        }
    }

    /**
     * The main process of a tracked instance has ended: SIGKILLs every process left in its
     * enclosure (and every descendant noted before), until none is found, and stops tracking it.
     *
     * @param main the instance's main process, ended
     * @return the processes that were left and killed
     */
    static Set<ProcessHandle> ended(ProcessHandle main) {
        Tracked t;
        synchronized (LIVE) {
            t = LIVE.get(main);
        }
        if (t == null) {
            return Set.of();
        }
        Set<ProcessHandle> left = end(() -> find(main, t), Duration.ZERO);
        left.remove(main);
        synchronized (LIVE) { // only once they are killed, so reapAll never misses them
            LIVE.remove(main);
        }
        return left;
    }

    /**
     * Ends one tracked instance for good: SIGTERM to every process of its enclosure, the main
     * one included, up to {@code grace} for them to end, then SIGKILL to what is left.
     *
     * @param main the instance's main process
     * @param grace how long to wait after SIGTERM
     * @return the processes other than {@code main} that were signalled
     */
    static Set<ProcessHandle> shutdown(ProcessHandle main, Duration grace) {
        Tracked t;
        synchronized (LIVE) {
            t = LIVE.get(main);
        }
        Set<ProcessHandle> ended = t != null ? end(() -> find(main, t), grace)
                : end(() -> main.isAlive() ? List.of(main) : List.of(), grace);
        ended.remove(main);
        return ended;
    }

    /**
     * SIGKILLs every process of a tracked instance now (the kubelet's last step, R44).
     *
     * @param main the instance's main process
     * @return the processes other than {@code main} that were killed
     */
    static Set<ProcessHandle> kill(ProcessHandle main) {
        Tracked t;
        synchronized (LIVE) {
            t = LIVE.get(main);
        }
        if (t == null) {
            main.destroyForcibly();
            return Set.of();
        }
        Set<ProcessHandle> ended = end(() -> find(main, t), Duration.ZERO);
        ended.remove(main);
        return ended;
    }

    private static List<ProcessHandle> find(ProcessHandle main, Tracked t) {
        Set<ProcessHandle> all = new LinkedHashSet<>();
        if (main.isAlive()) {
            all.add(main);
            try {
                main.descendants().forEach(all::add); // before it ends and they are re-parented
            } catch (RuntimeException e) {
                // ended meanwhile
            }
        }
        all.addAll(t.enclosure.members());
        synchronized (LIVE) {
            all.addAll(t.noted);
        }
        all.removeIf(h -> !h.isAlive() || h.pid() == ProcessHandle.current().pid());
        return new ArrayList<>(all);
    }

    /**
     * SIGTERM to what {@code find} finds (unless {@code grace} is zero), up to {@code grace} for it
     * all to end (newcomers get SIGTERM too), then SIGKILL, repeated while processes are found.
     *
     * @return every process found on the way
     */
    private static Set<ProcessHandle> end(Supplier<Collection<ProcessHandle>> find, Duration grace) {
        Set<ProcessHandle> seen = new LinkedHashSet<>();
        if (!grace.isZero() && !grace.isNegative()) {
            long deadline = System.nanoTime() + grace.toNanos();
            while (true) {
                Collection<ProcessHandle> now = find.get();
                if (now.isEmpty()) {
                    return seen;
                }
                for (ProcessHandle h : now) {
                    if (seen.add(h)) {
                        h.destroy();
                    }
                }
                if (System.nanoTime() - deadline >= 0 || !pause(20)) {
                    break;
                }
            }
        }
        long until = System.nanoTime() + KILL_NANOS;
        while (true) {
            Collection<ProcessHandle> now = find.get();
            if (now.isEmpty()) {
                return seen;
            }
            for (ProcessHandle h : now) {
                seen.add(h);
                h.destroyForcibly();
            }
            if (System.nanoTime() - until >= 0 || !pause(10)) {
                return seen;
            }
        }
    }

    private static boolean pause(long ms) {
        try {
            Thread.sleep(ms);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
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
                Tracked t = LIVE.get(r);
                if (t != null) {
                    t.noted.removeIf(x -> !x.isAlive());
                    t.noted.addAll(seen);
                }
            }
        }
    }

    /** @return the tracked main processes still alive (a copy) */
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
     * Ends every tracked instance with every process of its enclosure (and the descendants noted
     * before), SIGTERM first, then SIGKILL after {@code grace}.
     *
     * @param grace how long to wait after SIGTERM
     * @return how many processes were still alive and signalled
     */
    public static int reapAll(Duration grace) {
        Map<ProcessHandle, Tracked> all;
        synchronized (LIVE) {
            all = new LinkedHashMap<>(LIVE);
        }
        Set<ProcessHandle> ended = end(() -> {
            Set<ProcessHandle> found = new LinkedHashSet<>();
            all.forEach((main, t) -> found.addAll(find(main, t)));
            return found;
        }, grace);
        return ended.size();
    }
}
