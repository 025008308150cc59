package dev.vitals;

import dev.vitals.internal.Logs;
import java.lang.System.Logger.Level;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Delivers recorded results to the listeners and the transition log line after the recording
 * lock is released (issues 30 and 40): no user callback ever runs on the scheduler thread or a
 * check thread, and no listener can starve another.
 *
 * <p><b>One receiver per listener</b> (and one for the transition log), each with its own queue:
 * notices reach a receiver in recording order (per check, and overall), one call at a time. A
 * queue holds at most {@link #MAX_QUEUED} notices; when it is full the <em>oldest</em> is dropped
 * and counted ({@link #dropped()}), reported once per episode. A call running longer than
 * {@link #DEADLINE_NANOS} makes its receiver <em>slow</em>: notices that arrive meanwhile are
 * skipped and counted ({@link #skipped()}), reported once per episode (WARNING, naming the
 * listener's class), and delivery resumes with the next notice once the call returns. A call that
 * throws is logged once per transition (WARNING with the listener's class and the exception, the
 * first time; INFO when calls return normally again), and every failure is counted
 * ({@link #failed()}): no stack trace per notification.
 *
 * <p><b>The transition log on the scheduler</b> (issue 37). The transition log line is written by
 * a task on the registry's {@link Scheduler}, in recording order, a turn of at most {@link #TURN}
 * lines per task: no thread of its own, so a check that hangs costs its own check thread and
 * nothing more. The engine already logs there (monitors' sampling, refused schedules); a logging
 * back end that blocks holds the scheduler as it holds every thread that logs.
 *
 * <p><b>Two kinds of listeners, shared bounded threads</b> ({@code vitals-listener-N}, daemons, made
 * on demand, ended after 2 s idle while another is idle too, the last after 30 s). The listeners that say {@link HealthListener#nonBlocking()}
 * (the Micrometer binder) are one kind: one call in progress, plus one more for each of them
 * stuck in a call past the deadline (at most 1 + those listeners), served first, and never
 * behind an application call (a thread is added when every thread is in one). The application's
 * listeners are the other: {@link #APPLICATION_THREADS} call in progress, plus one replacement per
 * listener stuck past the deadline, at most {@link #APPLICATION_MAX_THREADS} in all: a hanging
 * listener leaves the others a thread of their own after the deadline. The threads are shared:
 * a turn goes to the thread that went idle last, so when calls do not overlap one thread serves
 * both kinds (the Spring starter: the metrics and the availability events on one thread). A slow listener (calls under the
 * deadline) delays the other application listeners by its turn, never Vitals' own receivers. Receivers take turns: one turn delivers at most
 * {@link #TURN} notices. A stuck thread is replaced lazily, at the next notice of its delivery.
 *
 * <p><b>Callbacks</b> ({@link #callbacks}, issue 37): application code that an integration hands
 * over (the Spring starter's availability events) is a receiver of its own on the application
 * listeners' delivery, a task per notice, under the same rules: no thread of its own, and a task
 * that hangs is one more stuck application listener.
 *
 * <p>Thread-safe. {@link Lane#submit} takes the receiver's lock, then its delivery's, briefly and
 * one after the other, and never calls out, so the check runner may call it under its own lock
 * (which keeps recording order).
 */
final class Notifications {
    private static final System.Logger LOG = Logs.get("dev.vitals");
    /** A call running longer than this (1 s) makes its receiver slow: new notices are skipped. */
    static final long DEADLINE_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** Notices one receiver may hold; beyond it the oldest is dropped. */
    static final int MAX_QUEUED = 1_000;
    /**
     * Delivery threads for application listeners that are not stuck: one, taking turns; a
     * listener stuck past the deadline gets its thread replaced (issue 37: a hung check costs
     * its own thread, not a pool).
     */
    static final int APPLICATION_THREADS = 1;
    /** Delivery threads for application listeners in all, stuck ones included. */
    static final int APPLICATION_MAX_THREADS = 4;
    /** Notices one receiver is given per turn before the next ready receiver's turn. */
    static final int TURN = 16;
    private static final long IDLE_NANOS = TimeUnit.SECONDS.toNanos(30);
    /** A listener thread idle this long (2 s) ends when another one is idle too. */
    private static final long SURPLUS_IDLE_NANOS = TimeUnit.SECONDS.toNanos(2);
    private static final long NOT_CALLING = Long.MIN_VALUE;
    /** Characters of a check's message kept in the transition log line (issue 40). */
    static final int LOG_MESSAGE_CHARS = 1024;

    private final Clock clock;
    private final List<Receiver> receivers;
    private final boolean hasListeners;
    private final OnScheduler log;
    private final Delivery delivery;
    private final AtomicInteger threadNumber = new AtomicInteger();
    private final AtomicLong skipped = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private volatile boolean closed;

    /**
     * @param clock the registry's clock (deadlines)
     * @param scheduler the registry's scheduler: the transition log line is written by its tasks
     * @param listeners the registered listeners, in registration order
     */
    Notifications(Clock clock, Scheduler scheduler, List<HealthListener> listeners) {
        this.clock = clock;
        this.hasListeners = !listeners.isEmpty();
        int nonBlocking = (int) listeners.stream().filter(HealthListener::nonBlocking).count();
        this.log = new OnScheduler(scheduler);
        this.delivery = new Delivery(1 + nonBlocking, APPLICATION_MAX_THREADS);
        List<Receiver> rs = new ArrayList<>(listeners.size() + 1);
        rs.add(new Receiver(null, null, log));
        // Vitals' own listeners first: a result's notices ready them first, so the application's
        // wait for that turn (microseconds) instead of taking a second thread (issue 37).
        for (HealthListener l : listeners) {
            if (l.nonBlocking()) {
                rs.add(new Receiver(l, null, delivery.own));
            }
        }
        for (HealthListener l : listeners) {
            if (!l.nonBlocking()) {
                rs.add(new Receiver(l, null, delivery.application));
            }
        }
        this.receivers = List.copyOf(rs);
    }

    /** @return the lanes of one check: the transition log first, then one per listener */
    List<Lane> lanesFor(Check check) {
        List<Lane> lanes = new ArrayList<>(receivers.size());
        for (Receiver r : receivers) {
            lanes.add(new Lane(check, r));
        }
        return List.copyOf(lanes);
    }

    /**
     * A receiver of its own for application callbacks on the application listeners' delivery:
     * each task is a notice, run one at a time in submission order under the listeners' rules
     * (class comment). After {@link #close()} tasks are dropped.
     *
     * @param name names the callbacks in log lines
     * @return an executor that never blocks and never runs a task on the calling thread
     */
    Executor callbacks(String name) {
        Receiver r = new Receiver(null, name, delivery.application);
        return task -> r.submit(null, new Notice(Objects.requireNonNull(task, "task")));
    }

    boolean hasListeners() {
        return hasListeners;
    }

    /** @return notices skipped so far because their receiver was in a call past the deadline */
    long skipped() {
        return skipped.get();
    }

    /** @return notices dropped so far (the oldest) because their receiver's queue was full */
    long dropped() {
        return dropped.get();
    }

    /** @return listener calls that threw so far */
    long failed() {
        return failed.get();
    }

    /** @return delivery threads alive now, both listener deliveries (for tests and the docs' figures) */
    int threads() {
        return delivery.threadCount();
    }

    /** Stops delivery: queued notices are dropped, calls in progress are interrupted. */
    void close() {
        closed = true;
        for (Receiver r : receivers) {
            r.clear();
        }
        delivery.close();
    }

    /** One recorded result, for every receiver; or a callback's task. */
    static final class Notice {
        final Health raw;
        final Health reported;
        final boolean timedOut;
        final boolean transition;
        /** A callback's task, or null for a recorded result. */
        final Runnable task;

        Notice(Health raw, Health reported, boolean timedOut, boolean transition) {
            this.raw = raw;
            this.reported = reported;
            this.timedOut = timedOut;
            this.transition = transition;
            this.task = null;
        }

        private Notice(Runnable task) {
            this.raw = null;
            this.reported = null;
            this.timedOut = false;
            this.transition = false;
            this.task = task;
        }
    }

    /** Where one check's notices enter one receiver. */
    static final class Lane {
        private final Check check;
        private final Receiver receiver;

        Lane(Check check, Receiver receiver) {
            this.check = check;
            this.receiver = receiver;
        }

        /** Queues a notice; never blocks, never calls out. */
        void submit(Notice n) {
            receiver.submit(check, n);
        }
    }

    /** Where a receiver stands with its delivery. */
    private enum Turn {
        /** Nothing queued, not waiting for a thread. */
        IDLE,
        /** In its delivery's ready queue. */
        READY,
        /** A delivery thread is giving it its turn. */
        DELIVERING
    }

    /**
     * A listener, a callback ({@code callback} names it), or the transition log when both are
     * null, with its queue. A callback's notices have no check (null; {@code checks} stays empty).
     */
    private final class Receiver {
        private final HealthListener listener;
        private final String callback;
        private final Turns delivery;
        // Guarded by this. Two queues in step (but a callback's): no allocation per notice.
        private final ArrayDeque<Check> checks = new ArrayDeque<>();
        private final ArrayDeque<Notice> notices = new ArrayDeque<>();
        private Turn turn = Turn.IDLE;
        private long skippedInEpisode;
        private boolean slowReported;
        private long droppedInEpisode;
        private boolean fullReported;
        private boolean failing;
        private long failedInEpisode;
        /** Monotonic start of the call in progress, or NOT_CALLING. */
        private volatile long callStarted = NOT_CALLING;

        Receiver(HealthListener listener, String callback, Turns delivery) {
            this.listener = listener;
            this.callback = callback;
            this.delivery = delivery;
        }

        void submit(Check check, Notice n) {
            if (listener == null && callback == null && !n.transition) {
                return;
            }
            boolean schedule = false;
            String warning = null;
            synchronized (this) {
                if (closed) {
                    return;
                }
                long started = callStarted;
                if (started != NOT_CALLING && clock.monotonicTime() - started > DEADLINE_NANOS) {
                    skipped.incrementAndGet();
                    skippedInEpisode++;
                    if (!slowReported) {
                        slowReported = true;
                        warning = name() + " has been in one call for over " + TimeUnit.NANOSECONDS.toMillis(DEADLINE_NANOS)
                                + " ms (" + (check == null ? "a task" : "a notice for check '" + check.name() + "'")
                                + " arrived): its notices are skipped"
                                + " until the call returns (DESIGN.md section 5, listeners)";
                    }
                } else {
                    if (notices.size() >= MAX_QUEUED) {
                        checks.poll();
                        notices.poll();
                        dropped.incrementAndGet();
                        droppedInEpisode++;
                        if (!fullReported) {
                            fullReported = true;
                            warning = name() + " has " + MAX_QUEUED + " notices waiting: the oldest are dropped"
                                    + " until it catches up (DESIGN.md section 5, listeners)";
                        }
                    }
                    if (check != null) {
                        checks.add(check);
                    }
                    notices.add(n);
                    if (turn == Turn.IDLE) {
                        turn = Turn.READY;
                        schedule = true;
                    }
                }
            }
            if (warning != null) {
                LOG.log(Level.WARNING, warning);
            }
            if (schedule) {
                delivery.ready(this);
            } else {
                delivery.replaceStuckWorkers();
            }
        }

        /** One turn on a delivery thread: up to {@link #TURN} notices, then the next receiver's turn. */
        void deliverTurn(Worker worker) {
            for (int i = 0; i < TURN; i++) {
                Check check;
                Notice n;
                synchronized (this) {
                    check = checks.poll();
                    n = notices.poll();
                    if (n == null) {
                        endTurnIdle();
                        return;
                    }
                    turn = Turn.DELIVERING;
                    long now = clock.monotonicTime();
                    callStarted = now;
                    worker.callStarted = now;
                }
                Throwable thrown = null;
                try {
                    deliver(check, n);
                } catch (VirtualMachineError e) {
                    synchronized (this) {
                        callStarted = NOT_CALLING;
                        turn = Turn.IDLE; // the next notice schedules it again
                    }
                    worker.callStarted = NOT_CALLING;
                    throw e;
                } catch (Throwable t) {
                    thrown = t;
                }
                worker.callStarted = NOT_CALLING;
                afterCall(check, thrown);
                if (closed) {
                    return;
                }
                Thread.interrupted(); // a listener's stray interrupt must not end the delivery thread
            }
            boolean more;
            synchronized (this) {
                more = !notices.isEmpty();
                if (more) {
                    turn = Turn.READY;
                } else {
                    endTurnIdle();
                }
            }
            if (more) {
                delivery.ready(this);
            }
        }

        // Guarded by this.
        private void endTurnIdle() {
            turn = Turn.IDLE;
            if (fullReported) {
                long n = droppedInEpisode;
                fullReported = false;
                droppedInEpisode = 0;
                LOG.log(Level.INFO, "{0} caught up; {1} notices were dropped", name(), n);
            }
        }

        private void afterCall(Check check, Throwable thrown) {
            long resumedAfter = -1;
            boolean firstFailure = false;
            long recoveredAfter = -1;
            synchronized (this) {
                callStarted = NOT_CALLING;
                if (slowReported) {
                    resumedAfter = skippedInEpisode;
                    slowReported = false;
                    skippedInEpisode = 0;
                }
                if (thrown != null) {
                    failed.incrementAndGet();
                    failedInEpisode++;
                    if (!failing) {
                        failing = true;
                        firstFailure = true;
                    }
                } else if (failing) {
                    failing = false;
                    recoveredAfter = failedInEpisode;
                    failedInEpisode = 0;
                }
            }
            if (resumedAfter >= 0) {
                LOG.log(Level.INFO, "{0} returned; {1} notices were skipped while it was slow", name(), resumedAfter);
            }
            if (firstFailure) {
                // Once per transition, with the stack trace this once; later failures are counted.
                String message = thrown.getMessage() == null ? "" : ": " + LogText.escape(thrown.getMessage(), LogText.CLIENT_CHARS);
                LOG.log(Level.WARNING, name() + " threw " + thrown.getClass().getName() + message
                        + (check == null ? "" : " (check '" + check.name() + "')")
                        + "; further failures are counted (HealthRegistry.failedNotifications())"
                        + " and not logged until it returns normally", thrown);
            }
            if (recoveredAfter >= 0) {
                LOG.log(Level.INFO, "{0} returns normally again after {1} failed calls", name(), recoveredAfter);
            }
        }

        private void deliver(Check check, Notice n) {
            if (n.task != null) {
                n.task.run();
            } else if (listener == null) {
                // Transitions only; the reason goes to the log, never to a probe body (DESIGN.md P9),
                // escaped and cut: a check's output has no size and may hold line ends (issue 40).
                Level level = n.reported.status().isHealthy() ? Level.INFO : Level.WARNING;
                LOG.log(level, "check ''{0}'' is {1}{2}", check.name(), n.reported.status(),
                        n.reported.message().map(m -> ": " + LogText.escape(m, LOG_MESSAGE_CHARS)).orElse(""));
            } else {
                listener.onExecution(check, n.raw, n.timedOut);
            }
        }

        synchronized void clear() {
            checks.clear();
            notices.clear();
        }

        /** Its turn could not be given (the scheduler is shut down): drops what waits. */
        synchronized void clearIdle() {
            checks.clear();
            notices.clear();
            turn = Turn.IDLE;
        }

        private String name() {
            if (callback != null) {
                return "callback '" + callback + "'";
            }
            return listener == null ? "the transition log" : "health listener " + listener.getClass().getName();
        }
    }

    /** A delivery thread (or the scheduler's turns) and the start of the call it is in. */
    private static final class Worker {
        volatile long callStarted = NOT_CALLING;
        Thread thread;
        /** Signalled when a turn is assigned to this idle thread (Delivery's lock). */
        Condition wake;
        /** The kind and receiver of the turn assigned or in progress, null when idle (Delivery's lock). */
        Delivery.Kind kind;
        Receiver receiver;
    }

    /** Where receivers get their turns: {@link Delivery}'s threads or {@link OnScheduler}'s tasks. */
    private interface Turns {
        /** {@code r} has notices and no turn yet: give it one. Never blocks, never calls out. */
        void ready(Receiver r);

        /** Called at every notice that did not make its receiver ready. */
        void replaceStuckWorkers();
    }

    /**
     * Turns given by tasks on the registry's scheduler, one task per turn (the transition log,
     * issue 37: no thread of its own). A scheduler that refuses the task is shut down (the
     * registry is closing): the notices are dropped, as {@link #close()} drops them.
     */
    private final class OnScheduler implements Turns {
        private final Scheduler scheduler;
        private final Worker turns = new Worker();

        OnScheduler(Scheduler scheduler) {
            this.scheduler = scheduler;
        }

        @Override
        public void ready(Receiver r) {
            if (closed) {
                return;
            }
            try {
                scheduler.schedule(0, () -> r.deliverTurn(turns));
            } catch (java.util.concurrent.RejectedExecutionException e) {
                r.clearIdle();
            }
        }

        @Override
        public void replaceStuckWorkers() {
            // the scheduler is not replaced: nothing to do
        }
    }

    /**
     * The listeners' threads, shared by two kinds of receivers with bounds of their own (issue 40
     * and issue 37): Vitals' own (the non-blocking listeners) and the application's (its listeners
     * and callbacks). A kind may start a turn when fewer than one of its calls is in progress that
     * is not stuck past the deadline, and fewer than its maximum in all (own: 1 + the non-blocking
     * listeners; application: {@link #APPLICATION_MAX_THREADS}). Own receivers are served first.
     * A turn that may start goes to the thread that went idle last (so threads beyond the need of
     * the moment stay idle and end after 2 s), else to a new thread: own notices never wait behind
     * an application call, and in steady state one thread serves both kinds. Threads in all: at
     * most both maximums, as with two separate deliveries.
     */
    private final class Delivery {
        private final Kind own;
        private final Kind application;
        private final ReentrantLock lock = new ReentrantLock();
        // Guarded by lock.
        private final List<Worker> workers = new ArrayList<>();
        /** Idle threads, the last one to go idle on top. Guarded by lock. */
        private final ArrayDeque<Worker> idle = new ArrayDeque<>();

        Delivery(int ownMax, int applicationMax) {
            this.own = new Kind(1, ownMax);
            this.application = new Kind(APPLICATION_THREADS, applicationMax);
        }

        int threadCount() {
            lock.lock();
            try {
                return workers.size();
            } finally {
                lock.unlock();
            }
        }

        void close() {
            lock.lock();
            try {
                own.ready.clear();
                application.ready.clear();
                for (Worker w : workers) {
                    w.thread.interrupt();
                    w.wake.signal();
                }
            } finally {
                lock.unlock();
            }
        }

        /** Starts every turn that may start now. Guarded by lock. */
        private void dispatch() {
            if (closed) {
                return;
            }
            for (Kind k = next(); k != null; k = next()) {
                Worker w = idle.pollFirst();
                if (w == null && k == application && inOwnTurn()) {
                    return; // that thread takes it next, within microseconds: no thread for it
                }
                Receiver r = k.ready.poll();
                if (w == null) {
                    w = new Worker();
                    w.wake = lock.newCondition();
                    Worker started = w;
                    w.thread = new Thread(() -> run(started), "vitals-listener-" + threadNumber.incrementAndGet());
                    w.thread.setDaemon(true);
                    workers.add(w);
                    assign(w, k, r);
                    w.thread.start();
                } else {
                    assign(w, k, r);
                    w.wake.signal();
                }
            }
        }

        // Guarded by lock.
        private void assign(Worker w, Kind k, Receiver r) {
            w.kind = k;
            w.receiver = r;
        }

        /** @return the kind whose next ready receiver may start a turn now, own first. Guarded by lock. */
        private Kind next() {
            if (!own.ready.isEmpty() && mayStart(own)) {
                return own;
            }
            if (!application.ready.isEmpty() && mayStart(application)) {
                return application;
            }
            return null;
        }

        /** @return whether a thread is in a turn of Vitals' own listeners, not stuck. Guarded by lock. */
        private boolean inOwnTurn() {
            return inTurns(own, false) > 0;
        }

        // Guarded by lock.
        private boolean mayStart(Kind k) {
            return inTurns(k, false) < k.live && inTurns(k, true) < k.max;
        }

        /** @return threads in a turn of {@code k}, those stuck past the deadline only when {@code stuckToo}. Guarded by lock. */
        private int inTurns(Kind k, boolean stuckToo) {
            long now = clock.monotonicTime();
            int n = 0;
            for (Worker w : workers) {
                if (w.kind == k) {
                    long started = w.callStarted;
                    if (stuckToo || started == NOT_CALLING || now - started <= DEADLINE_NANOS) {
                        n++;
                    }
                }
            }
            return n;
        }

        private void run(Worker w) {
            try {
                Receiver r;
                lock.lock();
                try {
                    r = w.receiver; // the turn this thread was made for
                } finally {
                    lock.unlock();
                }
                while (true) {
                    r.deliverTurn(w);
                    if (closed) {
                        return;
                    }
                    lock.lock();
                    try {
                        w.kind = null;
                        w.receiver = null;
                        idle.push(w); // on top: what waited for this thread's kind is its own next turn
                        dispatch();
                        // Idle: 2 s when another thread is idle too (one made for an overlap of the
                        // two kinds), else 30 s.
                        long deadline = System.nanoTime() + SURPLUS_IDLE_NANOS;
                        boolean extended = false;
                        while (w.receiver == null) {
                            long left = deadline - System.nanoTime();
                            if (left <= 0 && !extended && idle.size() == 1) {
                                extended = true;
                                deadline += IDLE_NANOS - SURPLUS_IDLE_NANOS;
                                continue;
                            }
                            if (closed || left <= 0) {
                                idle.remove(w);
                                return;
                            }
                            try {
                                w.wake.awaitNanos(left);
                            } catch (InterruptedException e) {
                                // close() interrupts (closed is checked above); a stray
                                // interrupt must not lose a turn assigned meanwhile
                            }
                        }
                        r = w.receiver;
                    } finally {
                        lock.unlock();
                    }
                }
            } finally {
                lock.lock();
                try {
                    workers.remove(w);
                    idle.remove(w);
                    w.kind = null;
                    dispatch(); // what waited for this thread's kind to end its turn goes to another
                } finally {
                    lock.unlock();
                }
            }
        }

        /** Vitals' own receivers, or the application's: a ready queue and a bound. */
        private final class Kind implements Turns {
            private final int live;
            private final int max;
            // Guarded by lock.
            private final ArrayDeque<Receiver> ready = new ArrayDeque<>();

            Kind(int live, int max) {
                this.live = live;
                this.max = max;
            }

            @Override
            public void ready(Receiver r) {
                lock.lock();
                try {
                    if (closed) {
                        return;
                    }
                    ready.add(r);
                    dispatch();
                } finally {
                    lock.unlock();
                }
            }

            /** Called at every notice: a receiver waiting behind stuck threads gets a new one. */
            @Override
            public void replaceStuckWorkers() {
                lock.lock();
                try {
                    dispatch();
                } finally {
                    lock.unlock();
                }
            }
        }
    }
}
