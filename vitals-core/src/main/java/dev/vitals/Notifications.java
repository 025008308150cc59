package dev.vitals;

import java.lang.System.Logger.Level;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Delivers recorded results to the listeners and the transition log line off the engine's
 * threads (issue 30): no user callback ever runs on the scheduler thread or a check thread, so a
 * listener that blocks can neither stop scheduled checks nor make liveness stale.
 *
 * <p>One lane per (receiver, check), where a receiver is a {@link HealthListener} or the
 * transition log: calls for one check to one receiver come in recording order, one at a time;
 * other lanes go on. Lanes are delivered by at most {@link #THREADS} {@code vitals-listener-N}
 * daemon threads, started on demand and ended after 30 s idle: a listener stuck in a call holds
 * one, the other delivers every other lane (a lane waiting behind two stuck calls is bounded by
 * {@link #MAX_QUEUED}, like any lane).
 *
 * <p>Bounded, never waited on: {@link #submit} only queues. A lane whose current call has run
 * longer than {@link #SLOW_AFTER_NANOS} is <em>stuck</em>: its new notices are skipped (counted,
 * and reported once per stuck episode with a WARNING naming the listener and the check), and
 * delivery resumes with the next notice after the call returns. A lane also holds at most
 * {@link #MAX_QUEUED} notices; more are skipped and counted the same way.
 *
 * <p>Thread-safe. {@link #submit} takes only the lane's own lock, briefly, and never calls out,
 * so the check runner may call it under its own lock (which keeps recording order).
 */
final class Notifications {
    private static final System.Logger LOG = System.getLogger("dev.vitals");
    /** A call running longer than this (1 s) makes its lane stuck: new notices are skipped. */
    static final long SLOW_AFTER_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** Notices one lane may hold; more are skipped. */
    static final int MAX_QUEUED = 1_000;
    /** Delivery threads at most: one for a stuck listener, one for everything else. */
    static final int THREADS = 2;

    private final Clock clock;
    private final List<HealthListener> listeners;
    private final ExecutorService executor;
    private final AtomicLong skipped = new AtomicLong();

    Notifications(Clock clock, List<HealthListener> listeners) {
        this.clock = clock;
        this.listeners = List.copyOf(listeners);
        AtomicInteger n = new AtomicInteger();
        // A lane has at most one task in the executor at a time; lanes beyond THREADS wait their turn.
        ThreadPoolExecutor pool = new ThreadPoolExecutor(THREADS, THREADS, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, "vitals-listener-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        pool.allowCoreThreadTimeOut(true);
        this.executor = pool;
    }

    /** @return the lanes of one check: the transition log first, then one per listener */
    List<Lane> lanesFor(Check check) {
        List<Lane> lanes = new ArrayList<>(listeners.size() + 1);
        lanes.add(new Lane(check, null));
        for (HealthListener l : listeners) {
            lanes.add(new Lane(check, l));
        }
        return List.copyOf(lanes);
    }

    boolean hasListeners() {
        return !listeners.isEmpty();
    }

    /** @return notices skipped so far, all lanes: calls to a stuck listener and overflow */
    long skipped() {
        return skipped.get();
    }

    /** Stops delivery: queued notices are dropped, calls in progress are interrupted. */
    void close() {
        executor.shutdownNow();
    }

    /** One recorded result for a receiver. */
    static final class Notice {
        final Health raw;
        final Health reported;
        final boolean timedOut;
        final boolean transition;

        Notice(Health raw, Health reported, boolean timedOut, boolean transition) {
            this.raw = raw;
            this.reported = reported;
            this.timedOut = timedOut;
            this.transition = transition;
        }
    }

    /** The notices of one check for one receiver (a listener, or the transition log when null). */
    final class Lane {
        private final Check check;
        private final HealthListener listener;
        // Guarded by this.
        private final ArrayDeque<Notice> queue = new ArrayDeque<>();
        private boolean running;
        private long callStart;
        private boolean inCall;
        private long skippedHere;
        private boolean reported;

        Lane(Check check, HealthListener listener) {
            this.check = check;
            this.listener = listener;
        }

        /** Queues a notice; never blocks, never calls out. */
        void submit(Notice n) {
            if (listener == null && !n.transition) {
                return;
            }
            boolean start;
            String report = null;
            synchronized (this) {
                boolean stuck = inCall && clock.monotonicTime() - callStart > SLOW_AFTER_NANOS;
                if (stuck || queue.size() >= MAX_QUEUED) {
                    skippedHere++;
                    skipped.incrementAndGet();
                    if (!reported) {
                        reported = true;
                        report = stuck ? "has been in one call for over " + TimeUnit.NANOSECONDS.toMillis(SLOW_AFTER_NANOS)
                                + " ms" : "has " + MAX_QUEUED + " notices waiting";
                    }
                    start = false;
                } else {
                    queue.add(n);
                    start = !running;
                    running |= start;
                }
            }
            if (report != null) {
                LOG.log(Level.WARNING, "{0} for check ''{1}'' {2}: its notices are skipped until it catches up"
                        + " (DESIGN.md section 5, listeners)", receiver(), check.name(), report);
            }
            if (start) {
                try {
                    executor.execute(this::drain);
                } catch (RejectedExecutionException e) {
                    synchronized (this) { // registry closed
                        running = false;
                        queue.clear();
                    }
                }
            }
        }

        private String receiver() {
            return listener == null ? "the transition log" : "health listener " + listener.getClass().getName();
        }

        private void drain() {
            while (true) {
                Notice n;
                long resumedAfter = 0;
                synchronized (this) {
                    n = queue.poll();
                    if (n == null) {
                        running = false;
                        return;
                    }
                    inCall = true;
                    callStart = clock.monotonicTime();
                    if (reported) {
                        resumedAfter = skippedHere;
                        reported = false;
                        skippedHere = 0;
                    }
                }
                if (resumedAfter > 0) {
                    LOG.log(Level.INFO, "{0} for check ''{1}'' caught up; {2} notices were skipped", receiver(),
                            check.name(), resumedAfter);
                }
                try {
                    deliver(n);
                } catch (RuntimeException e) {
                    LOG.log(Level.WARNING, "health listener failed for check ''" + check.name() + "''", e);
                } catch (Error e) {
                    synchronized (this) {
                        running = false;
                        inCall = false;
                    }
                    throw e;
                } finally {
                    synchronized (this) {
                        inCall = false;
                    }
                }
                if (Thread.currentThread().isInterrupted()) { // closing
                    synchronized (this) {
                        running = false;
                        queue.clear();
                    }
                    return;
                }
            }
        }

        private void deliver(Notice n) {
            if (listener == null) {
                // Transitions only; the reason goes to the log, never to a probe body (DESIGN.md P9).
                Level level = n.reported.status().isHealthy() ? Level.INFO : Level.WARNING;
                LOG.log(level, "check ''{0}'' is {1}{2}", check.name(), n.reported.status(),
                        n.reported.message().map(m -> ": " + m).orElse(""));
            } else {
                listener.onExecution(check, n.raw, n.timedOut);
            }
        }
    }
}
