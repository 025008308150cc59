package dev.vitals.spring;

import dev.vitals.Check;
import dev.vitals.Health;
import dev.vitals.HealthRegistry;
import dev.vitals.Mode;
import dev.vitals.Report;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroup;
import org.springframework.boot.health.application.AvailabilityStateHealthIndicator;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.CompositeReactiveHealthContributor;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.ReactiveHealthContributor;
import org.springframework.boot.health.contributor.ReactiveHealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.health.registry.HealthContributorRegistry;
import org.springframework.boot.health.registry.ReactiveHealthContributorRegistry;
import org.springframework.util.ClassUtils;
import reactor.core.publisher.Mono;

/**
 * Serves Spring's own health endpoint ({@code /actuator/health}, its groups and components)
 * through Vitals' evaluation ({@code vitals.actuator.serve-through-vitals=true}).
 *
 * <p>How: as a {@link BeanPostProcessor} it wraps Spring's {@link HealthContributorRegistry}
 * and {@link ReactiveHealthContributorRegistry} beans (the indicator beans themselves keep their
 * types), so that every contributor the endpoint reaches through them is a wrapper. When the
 * endpoint calls a wrapped indicator that Vitals adopted, the wrapper answers with Vitals'
 * result for that check, converted back to a Spring {@code Health}: the latest scheduled result
 * (never blocks), or for an on-demand check the result of a Vitals evaluation (single flight,
 * bounded by the check's timeout: a hung indicator reads DOWN "timed out" and costs one Vitals
 * thread, not one web-server worker per request). An indicator Vitals did not adopt (excluded,
 * in no group, Spring's availability indicators) is called directly, as without this bridge.
 *
 * <p>Spring's endpoint calls a group's indicators one after another. For on-demand checks the
 * bridge makes them run concurrently: {@link PrefetchingGroups} starts the evaluation of every
 * adopted member of the group as soon as the endpoint asks the group whether to show components
 * (once per request, before any indicator is called), so that each indicator call then joins an
 * execution in flight or reuses its result. Without that call (Actuator's {@code showAll} paths,
 * such as JMX) the indicators still run under Vitals' timeouts, one after another.
 *
 * <p>When the Vitals result is the indicator's own (no timeout, staleness or threshold applied)
 * the endpoint gets the indicator's original Spring {@code Health}: custom status codes and
 * details unchanged. Otherwise it gets the Vitals result converted: UP, DOWN, UNKNOWN (DEGRADED
 * as the custom code {@code DEGRADED}), the Vitals message as the status description and, for
 * a failure with an error type, Spring's {@code error} detail ("type: message").
 *
 * <p>Thread-safe: bindings are made once, before the context is refreshed completely.
 */
final class ActuatorBridge implements BeanPostProcessor {
    private static final boolean REACTOR = ClassUtils.isPresent("reactor.core.publisher.Mono", ActuatorBridge.class.getClassLoader());
    /** Slack added to a check's timeout when waiting for a Vitals evaluation, which itself completes by the timeout. */
    static final Duration WAIT_SLACK = Duration.ofSeconds(2);

    private final Map<Object, Binding> bindings = Collections.synchronizedMap(new IdentityHashMap<>());
    private volatile List<Binding> attached = List.of();

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof HealthContributorRegistry && !(bean instanceof HealthApi.Registry)) {
            return new HealthApi.Registry((HealthContributorRegistry) bean, this::wrap);
        }
        if (REACTOR && bean instanceof ReactiveHealthContributorRegistry && !(bean instanceof HealthApi.ReactiveRegistry)) {
            return new HealthApi.ReactiveRegistry((ReactiveHealthContributorRegistry) bean, this::wrap);
        }
        return bean;
    }

    /**
     * Records that Vitals adopted {@code indicator} (a {@link HealthIndicator} or
     * {@link ReactiveHealthIndicator} instance) under its Spring name.
     *
     * @return the binding, whose {@link Binding#record} the adopted check calls with each result
     */
    Binding bind(Object indicator, String springName) {
        Binding b = new Binding(springName, Adoption.checkName(springName));
        bindings.put(Objects.requireNonNull(indicator, "indicator"), b);
        return b;
    }

    /** Completes every binding with the built registry; from now on the wrappers answer from Vitals. */
    void attach(HealthRegistry registry) {
        List<Binding> out = new ArrayList<>();
        synchronized (bindings) {
            for (Binding b : bindings.values()) {
                if (b.attach(registry)) {
                    out.add(b);
                }
            }
        }
        attached = List.copyOf(out);
    }

    /** @return how many adopted indicators the endpoint is served for */
    int size() {
        return attached.size();
    }

    /** @return the binding of an indicator instance, if Vitals adopted it and the registry is built */
    Binding binding(Object indicator) {
        Binding b = bindings.get(indicator);
        return b != null && b.registry != null ? b : null;
    }

    /**
     * Starts the evaluation of every adopted on-demand member of {@code group} without waiting,
     * so that the endpoint's sequential calls join executions already running.
     */
    void prefetch(HealthEndpointGroup group) {
        for (Binding b : attached) {
            if (b.mode == Mode.ON_DEMAND && group.isMember(b.springName)) {
                try {
                    b.result();
                } catch (RuntimeException e) {
                    return; // registry closed: the indicator calls will say so
                }
            }
        }
    }

    HealthContributor wrap(HealthContributor c) {
        if (c instanceof AvailabilityStateHealthIndicator || c instanceof ServedIndicator || c instanceof HealthApi.Composite) {
            return c;
        }
        if (c instanceof HealthIndicator) {
            return new ServedIndicator(c, (HealthIndicator) c, this);
        }
        if (c instanceof CompositeHealthContributor) {
            return new HealthApi.Composite((CompositeHealthContributor) c, this::wrap);
        }
        return c;
    }

    ReactiveHealthContributor wrap(ReactiveHealthContributor c) {
        if (c instanceof ServedReactiveIndicator || c instanceof HealthApi.ReactiveComposite) {
            return c;
        }
        if (c instanceof ReactiveHealthIndicator) {
            return new ServedReactiveIndicator((ReactiveHealthIndicator) c, this);
        }
        if (c instanceof CompositeReactiveHealthContributor) {
            return new HealthApi.ReactiveComposite((CompositeReactiveHealthContributor) c, this::wrap);
        }
        return c;
    }

    /**
     * Converts a Vitals health back to Spring's: UP, DOWN, UNKNOWN as such, DEGRADED as the
     * custom code {@code DEGRADED}; the message becomes the status description; details are
     * copied and a failure's error type becomes Spring's {@code error} detail when absent.
     */
    static org.springframework.boot.health.contributor.Health toSpring(Health v, boolean includeDetails) {
        String code;
        switch (v.status()) {
            case UP:
                code = Status.UP.getCode();
                break;
            case DOWN:
                code = Status.DOWN.getCode();
                break;
            case DEGRADED:
                code = "DEGRADED";
                break;
            default:
                code = Status.UNKNOWN.getCode();
                break;
        }
        Optional<String> message = v.message();
        Status status = message.map(m -> new Status(code, m)).orElseGet(() -> new Status(code));
        org.springframework.boot.health.contributor.Health.Builder b = org.springframework.boot.health.contributor.Health.status(status);
        if (includeDetails) {
            b.withDetails(v.details());
            if (v.errorType().isPresent() && !v.details().containsKey("error")) {
                b.withDetail("error", v.errorType().get() + message.map(m -> ": " + m).orElse(""));
            }
        }
        return b.build();
    }

    /**
     * One adopted indicator: its Spring and Vitals names, the Vitals group it is read from and
     * the last Spring health its check produced.
     */
    static final class Binding {
        final String springName;
        final String checkName;
        private volatile Raw last;
        volatile HealthRegistry registry;
        private String group;
        private Set<String> others;
        private Mode mode;
        private Duration timeout;

        Binding(String springName, String checkName) {
            this.springName = springName;
            this.checkName = checkName;
        }

        private boolean attach(HealthRegistry r) {
            Optional<Check> c = r.check(checkName);
            if (c.isEmpty()) {
                return false;
            }
            Check check = c.get();
            group = check.groups().iterator().next();
            Set<String> o = new LinkedHashSet<>();
            o.add(dev.vitals.Availability.CHECK_NAME);
            for (Check other : r.checks()) {
                if (!other.name().equals(checkName) && other.groups().contains(group)) {
                    o.add(other.name());
                }
            }
            others = Set.copyOf(o);
            mode = check.mode();
            timeout = check.timeout();
            registry = r;
            return true;
        }

        /** Called by the adopted check with the indicator's own answer and its Vitals conversion. */
        void record(org.springframework.boot.health.contributor.Health spring, Health converted) {
            last = spring == null || converted == null ? null : new Raw(spring, converted);
        }

        /**
         * @return Vitals' result for this check: the latest one for a scheduled check, an
         *     evaluation (completing by the check's timeout) for an on-demand check
         * @throws IllegalStateException if the registry is closed
         */
        CompletableFuture<Health> result() {
            if (mode == Mode.SCHEDULED) {
                return CompletableFuture.completedFuture(pick(registry.report(group)));
            }
            return registry.evaluate(group, others).thenApply(this::pick);
        }

        private Health pick(Report r) {
            Health h = r.checks().get(checkName);
            return h != null ? h : Health.unknown("no result");
        }

        /** Blocks at most the check's timeout plus {@link #WAIT_SLACK}. */
        org.springframework.boot.health.contributor.Health springHealth(boolean includeDetails) {
            Health v;
            try {
                v = result().get(timeout.plus(WAIT_SLACK).toMillis(), TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                v = Health.builder(dev.vitals.Status.DOWN).message("no Vitals result within " + timeout.plus(WAIT_SLACK).toMillis() + " ms")
                        .errorType(TimeoutException.class.getName()).build();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                v = Health.unknown("interrupted while waiting for Vitals");
            } catch (ExecutionException e) {
                v = Health.down(e.getCause() != null ? e.getCause() : e);
            } catch (IllegalStateException e) {
                v = Health.unknown("Vitals health registry closed");
            }
            return toSpring(v, includeDetails);
        }

        Mono<org.springframework.boot.health.contributor.Health> springHealthMono(boolean includeDetails) {
            return Mono.defer(() -> {
                try {
                    return Mono.fromFuture(result());
                } catch (IllegalStateException e) {
                    return Mono.just(Health.unknown("Vitals health registry closed"));
                }
            }).timeout(timeout.plus(WAIT_SLACK), Mono.fromSupplier(() -> Health.builder(dev.vitals.Status.DOWN)
                            .message("no Vitals result within " + timeout.plus(WAIT_SLACK).toMillis() + " ms")
                            .errorType(TimeoutException.class.getName()).build()))
                    .map(v -> toSpring(v, includeDetails));
        }

        /** The indicator's original answer when {@code v} is exactly its conversion, else {@code v} converted. */
        private org.springframework.boot.health.contributor.Health toSpring(Health v, boolean includeDetails) {
            Raw r = last;
            if (r != null && r.converted.status() == v.status() && r.converted.message().equals(v.message())
                    && r.converted.details().equals(v.details())) {
                return includeDetails ? r.spring : org.springframework.boot.health.contributor.Health.status(r.spring.getStatus()).build();
            }
            return ActuatorBridge.toSpring(v, includeDetails);
        }
    }

    private static final class Raw {
        final org.springframework.boot.health.contributor.Health spring;
        final Health converted;

        Raw(org.springframework.boot.health.contributor.Health spring, Health converted) {
            this.spring = spring;
            this.converted = converted;
        }
    }

    /** A blocking indicator as the endpoint sees it; {@code key} is the adopted instance. */
    static final class ServedIndicator extends HealthApi.Indicator {
        private final Object key;
        private final HealthIndicator direct;
        private final ActuatorBridge bridge;

        ServedIndicator(Object key, HealthIndicator direct, ActuatorBridge bridge) {
            this.key = key;
            this.direct = direct;
            this.bridge = bridge;
        }

        @Override
        org.springframework.boot.health.contributor.Health answer(boolean includeDetails) {
            Binding b = bridge.binding(key);
            return b == null ? HealthApi.health(direct, includeDetails) : b.springHealth(includeDetails);
        }
    }

    static final class ServedReactiveIndicator extends HealthApi.ReactiveIndicator {
        private final ReactiveHealthIndicator delegate;
        private final ActuatorBridge bridge;

        ServedReactiveIndicator(ReactiveHealthIndicator delegate, ActuatorBridge bridge) {
            super(delegate);
            this.delegate = delegate;
            this.bridge = bridge;
        }

        @Override
        Mono<org.springframework.boot.health.contributor.Health> answer(boolean includeDetails) {
            Binding b = bridge.binding(HealthApi.adopted(delegate));
            return b == null ? HealthApi.health(delegate, includeDetails) : b.springHealthMono(includeDetails);
        }

        /** The blocking view (Spring's servlet endpoint) waits on the Vitals result directly, not through Reactor. */
        @Override
        HealthIndicator blocking(HealthIndicator direct) {
            return new ServedIndicator(delegate, direct, bridge);
        }
    }
}
