package dev.vitals.spring;

import dev.vitals.Availability;
import dev.vitals.Check;
import dev.vitals.Groups;
import dev.vitals.Health;
import dev.vitals.HealthListener;
import dev.vitals.HealthRegistry;
import dev.vitals.Mode;
import dev.vitals.Report;
import dev.vitals.Scheduler;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.AvailabilityState;
import org.springframework.boot.availability.LivenessState;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.context.event.SmartApplicationListener;

/**
 * Keeps Spring's availability state and Vitals' in step, both ways, and drains on close.
 *
 * <ul>
 * <li>Spring to Vitals: {@code LivenessState.BROKEN}/{@code CORRECT} mark Vitals broken/correct;
 *     {@code ReadinessState.REFUSING_TRAFFIC}/{@code ACCEPTING_TRAFFIC} refuse/accept traffic; the
 *     first {@code ACCEPTING_TRAFFIC} (Spring publishes it once the application is ready) marks
 *     Vitals' startup complete.</li>
 * <li>Vitals to Spring: every {@code publishInterval} a task on Vitals' scheduler reads Vitals'
 *     liveness/readiness from memory ({@link HealthRegistry#report}, never runs a check) and
 *     compares it with Spring's {@link ApplicationAvailability}; when they differ, the
 *     {@link AvailabilityChangeEvent} is published through {@link HealthRegistry#callbacks}: on
 *     the thread that calls Vitals' application listeners ({@code vitals-listener-N}), under
 *     their rules, with no thread of its own (issue 37: a hung check costs its own thread only).
 *     Spring listeners never run on Vitals' scheduler; one that hangs holds that call only:
 *     probes, checks and the other listeners go on, and publications handed over while it hangs
 *     are skipped (counted in {@link HealthRegistry#skippedNotifications()}) and made again at
 *     the next comparison after it returns. Events this bridge publishes carry it as source and
 *     are ignored on the way back, so a failing check never latches Spring's refusal into Vitals.</li>
 * <li>On-demand means on demand (DESIGN.md P6): the bridge never evaluates a group. An on-demand
 *     check counts only with a result that someone asked for (a probe, Actuator, a person; seen
 *     through {@link Executions}) younger than its max-age; a group with on-demand checks is
 *     published only after such an execution. Scheduled checks count as they are.</li>
 * <li>On {@link ContextClosedEvent} of its own context: Vitals starts a drain (readiness DOWN
 *     "draining", liveness unchanged, probe server still answering) and the closing thread
 *     waits for the drain delay before the context goes on stopping beans and the web server
 *     (DESIGN.md P10).</li>
 * </ul>
 *
 * <p>Thread-safe: Spring calls it from its own threads; its comparison runs on the scheduler, its
 * publications on the listeners' delivery, one at a time.
 */
final class AvailabilityBridge implements SmartApplicationListener, SmartLifecycle {
    private static final System.Logger LOG = System.getLogger("dev.vitals.spring");

    private final HealthRegistry registry;
    private final Executions executions;
    private final ApplicationContext context;
    private final ApplicationEventPublisher publisher;
    private final ApplicationAvailability springAvailability;
    private final boolean mapStates;
    private final Duration publishInterval;
    private final Duration drainDelay;
    /** Runs Spring's listeners: the registry's delivery for application callbacks. */
    private final Executor publications;
    private final Object lifecycle = new Object();
    private Scheduler.Cancellable next; // guarded by lifecycle
    private volatile boolean running;
    private volatile boolean closing;
    private final Map<String, Long> publishedVersion = new ConcurrentHashMap<>();

    AvailabilityBridge(HealthRegistry registry, Executions executions, ApplicationContext context,
                       ApplicationAvailability springAvailability, boolean mapStates, Duration publishInterval,
                       Duration drainDelay) {
        this.registry = registry;
        this.executions = executions;
        this.context = context;
        this.publisher = context;
        this.springAvailability = springAvailability;
        this.mapStates = mapStates;
        this.publishInterval = publishInterval;
        this.drainDelay = drainDelay;
        if (publishInterval.compareTo(Duration.ofMillis(1)) < 0) {
            throw new IllegalArgumentException("vitals.availability.publish-interval must be at least 1 ms, was " + publishInterval);
        }
        if (drainDelay.isNegative()) {
            throw new IllegalArgumentException("vitals.shutdown.drain-delay must not be negative, was " + drainDelay);
        }
        publications = registry.callbacks("spring-availability");
    }

    /**
     * Sees every execution of an on-demand check, so that the bridge knows which on-demand
     * results someone asked for. Registered with the auto-configured registry as a
     * {@link HealthListener} bean; an application that builds its own {@code HealthRegistry}
     * bean registers it there too (else on-demand groups are never published to Spring).
     * Thread-safe.
     */
    static final class Executions implements HealthListener {
        private final Map<String, Instant> onDemand = new ConcurrentHashMap<>();
        private final AtomicLong version = new AtomicLong();

        @Override
        public void onExecution(Check check, Health health, boolean timedOut) {
            if (check.mode() == Mode.ON_DEMAND) {
                Instant at = health.observedAt();
                onDemand.put(check.name(), at != null ? at : Instant.now());
                version.incrementAndGet();
            }
        }

        /** @return a number that grows with every on-demand execution */
        long version() {
            return version.get();
        }

        /** @return when an on-demand check last returned, or null if it never ran */
        Instant lastExecution(String check) {
            return onDemand.get(check);
        }
    }

    @Override
    public boolean supportsEventType(Class<? extends ApplicationEvent> eventType) {
        return AvailabilityChangeEvent.class.isAssignableFrom(eventType) || ContextClosedEvent.class.isAssignableFrom(eventType);
    }

    @Override
    public void onApplicationEvent(ApplicationEvent event) {
        if (event instanceof ContextClosedEvent) {
            if (((ContextClosedEvent) event).getApplicationContext() == context) {
                drain();
            }
            return;
        }
        if (!mapStates || event.getSource() == this || closing) {
            return;
        }
        Object state = ((AvailabilityChangeEvent<?>) event).getState();
        Availability a = registry.availability();
        if (state == LivenessState.BROKEN) {
            a.markBroken("Spring LivenessState BROKEN");
        } else if (state == LivenessState.CORRECT) {
            a.markCorrect();
        } else if (state == ReadinessState.ACCEPTING_TRAFFIC) {
            a.acceptTraffic();
            a.markStartupComplete();
        } else if (state == ReadinessState.REFUSING_TRAFFIC) {
            a.refuseTraffic("Spring ReadinessState REFUSING_TRAFFIC");
        }
    }

    /** Starts comparing Vitals' state with Spring's every publish interval, on Vitals' scheduler. */
    @Override
    public void start() {
        synchronized (lifecycle) {
            running = true;
            if (mapStates && springAvailability != null && next == null) {
                scheduleNext();
            }
        }
    }

    private void scheduleNext() {
        synchronized (lifecycle) {
            if (!running || closing) {
                next = null;
                return;
            }
            try {
                next = registry.scheduler().schedule(publishInterval.toNanos(), this::tick);
            } catch (RuntimeException e) {
                next = null; // scheduler shut down: the registry is closing
            }
        }
    }

    private void tick() {
        try {
            publishVitalsState();
        } finally {
            scheduleNext();
        }
    }

    /** Stops publishing; idempotent. */
    @Override
    public void stop() {
        synchronized (lifecycle) {
            running = false;
            if (next != null) {
                next.cancel();
                next = null;
            }
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** Starts after {@link VitalsLifecycle} (the registry), stops before it. */
    @Override
    public int getPhase() {
        return VitalsLifecycle.PHASE + 1;
    }

    /**
     * Compares Vitals' liveness/readiness with Spring's and hands what differs to
     * {@link #publications}. Reads memory only: never runs or waits for a check.
     */
    void publishVitalsState() {
        try {
            if (closing || !registry.availability().isStartupComplete()) {
                return; // during start-up Spring's own events are the truth
            }
            Boolean live = healthy(Groups.LIVENESS);
            if (live != null) {
                publishIfDifferent(live ? LivenessState.CORRECT : LivenessState.BROKEN, springAvailability::getLivenessState);
            }
            Boolean ready = healthy(Groups.READINESS);
            if (ready != null) {
                publishIfDifferent(ready ? ReadinessState.ACCEPTING_TRAFFIC : ReadinessState.REFUSING_TRAFFIC,
                        springAvailability::getReadinessState);
            }
        } catch (IllegalStateException e) {
            // registry closed: nothing left to publish
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "publishing Vitals' availability to Spring failed", e);
        }
    }

    /**
     * @return whether the group is healthy; null when it has on-demand checks and nobody asked
     *     for one of them since the last publication (nothing new to tell Spring)
     */
    private Boolean healthy(String group) {
        Report report = registry.report(group);
        if (!registry.hasOnDemandChecks(group)) {
            return report.status().isHealthy();
        }
        long version = executions.version();
        Long published = publishedVersion.get(group);
        if (published != null && published == version) {
            return null;
        }
        publishedVersion.put(group, version);
        long now = registry.clock().wallTime();
        List<String> unasked = new ArrayList<>();
        for (Check c : registry.checks()) {
            if (c.mode() == Mode.ON_DEMAND && c.groups().contains(group)) {
                Instant at = executions.lastExecution(c.name());
                if (at == null || now - at.toEpochMilli() > c.maxAge().toMillis()) {
                    unasked.add(c.name());
                }
            }
        }
        return report.without(unasked).status().isHealthy();
    }

    /**
     * Hands the publication over when Spring's state differs; compared again when it runs, so
     * that publications queued behind a slow Spring listener do not repeat the event.
     */
    private void publishIfDifferent(AvailabilityState wanted, Supplier<AvailabilityState> current) {
        if (wanted == current.get()) {
            return;
        }
        publications.execute(() -> {
            if (closing || wanted == current.get()) {
                return;
            }
            try {
                AvailabilityChangeEvent.publish(publisher, this, wanted);
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "publishing Vitals' availability to Spring failed", e);
            }
        });
    }

    private void drain() {
        closing = true;
        stop();
        try {
            registry.availability().drain(drainDelay).get(drainDelay.toMillis() + 5_000, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (TimeoutException | java.util.concurrent.ExecutionException | IllegalStateException e) {
            LOG.log(Level.WARNING, "Vitals drain on context close did not complete: " + e);
        }
    }

    @Override
    public int getOrder() {
        return 0;
    }
}
