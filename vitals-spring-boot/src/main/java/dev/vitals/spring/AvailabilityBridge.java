package dev.vitals.spring;

import dev.vitals.Availability;
import dev.vitals.Groups;
import dev.vitals.HealthRegistry;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.LivenessState;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.ApplicationEventPublisher;
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
 * <li>Vitals to Spring: every {@code publishInterval} (on a {@code vitals-availability}
 *     daemon thread, so that Spring listeners never run on Vitals' scheduler), Vitals'
 *     liveness/readiness status is compared with Spring's {@link ApplicationAvailability} and
 *     published as an {@link AvailabilityChangeEvent} when they differ. Events this bridge
 *     publishes carry it as source and are ignored on the way back, so a failing check never
 *     latches Spring's refusal into Vitals.</li>
 * <li>On {@link ContextClosedEvent} of its own context: Vitals starts a drain (readiness DOWN
 *     "draining", liveness unchanged, probe server still answering) and the closing thread
 *     waits for the drain delay before the context goes on stopping beans and the web server
 *     (DESIGN.md P10).</li>
 * </ul>
 */
final class AvailabilityBridge implements SmartApplicationListener {
    private static final System.Logger LOG = System.getLogger("dev.vitals.spring");

    private final HealthRegistry registry;
    private final ApplicationContext context;
    private final ApplicationEventPublisher publisher;
    private final ApplicationAvailability springAvailability;
    private final boolean mapStates;
    private final Duration publishInterval;
    private final Duration drainDelay;
    private volatile ScheduledExecutorService publisherThread;
    private volatile boolean closing;
    private final AtomicBoolean livenessInFlight = new AtomicBoolean();
    private final AtomicBoolean readinessInFlight = new AtomicBoolean();

    AvailabilityBridge(HealthRegistry registry, ApplicationContext context, ApplicationAvailability springAvailability,
                       boolean mapStates, Duration publishInterval, Duration drainDelay) {
        this.registry = registry;
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

    /** Starts publishing Vitals' state to Spring. */
    synchronized void start() {
        if (!mapStates || springAvailability == null || publisherThread != null) {
            return;
        }
        ScheduledThreadPoolExecutor t = new ScheduledThreadPoolExecutor(1, r -> {
            Thread th = new Thread(r, "vitals-availability");
            th.setDaemon(true);
            return th;
        });
        t.setRemoveOnCancelPolicy(true);
        long nanos = publishInterval.toNanos();
        t.scheduleWithFixedDelay(this::publishVitalsState, nanos, nanos, TimeUnit.NANOSECONDS);
        publisherThread = t;
    }

    /** Stops publishing; idempotent. */
    synchronized void stop() {
        ScheduledExecutorService t = publisherThread;
        publisherThread = null;
        if (t != null) {
            t.shutdownNow();
        }
    }

    /**
     * Compares Vitals' liveness/readiness with Spring's and publishes what differs. A group with
     * on-demand checks is evaluated (asynchronously, at most one evaluation per group at a time,
     * results reused within their TTL), since its in-memory report holds no result until someone
     * evaluates it; the answer is published from the publisher thread, never from a Vitals thread.
     */
    void publishVitalsState() {
        try {
            if (closing || !registry.availability().isStartupComplete()) {
                return; // during start-up Spring's own events are the truth
            }
            withStatus(Groups.LIVENESS, livenessInFlight, healthy -> {
                LivenessState live = healthy ? LivenessState.CORRECT : LivenessState.BROKEN;
                if (springAvailability.getLivenessState() != live) {
                    AvailabilityChangeEvent.publish(publisher, this, live);
                }
            });
            withStatus(Groups.READINESS, readinessInFlight, healthy -> {
                ReadinessState ready = healthy ? ReadinessState.ACCEPTING_TRAFFIC : ReadinessState.REFUSING_TRAFFIC;
                if (springAvailability.getReadinessState() != ready) {
                    AvailabilityChangeEvent.publish(publisher, this, ready);
                }
            });
        } catch (IllegalStateException e) {
            // registry closed: nothing left to publish
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "publishing Vitals' availability to Spring failed", e);
        }
    }

    private void withStatus(String group, AtomicBoolean inFlight, Consumer<Boolean> publish) {
        if (!registry.hasOnDemandChecks(group)) {
            publish.accept(registry.report(group).status().isHealthy());
            return;
        }
        ScheduledExecutorService t = publisherThread;
        if (t == null || !inFlight.compareAndSet(false, true)) {
            return;
        }
        try {
            registry.evaluate(group).whenCompleteAsync((report, error) -> {
                inFlight.set(false);
                if (report != null && !closing) {
                    try {
                        publish.accept(report.status().isHealthy());
                    } catch (RuntimeException e) {
                        LOG.log(Level.WARNING, "publishing Vitals' availability to Spring failed", e);
                    }
                }
            }, t);
        } catch (RuntimeException e) {
            inFlight.set(false);
            throw e;
        }
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
