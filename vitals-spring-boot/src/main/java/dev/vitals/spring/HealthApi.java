package dev.vitals.spring;

import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.health.autoconfigure.registry.HealthContributorNameGenerator;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.CompositeReactiveHealthContributor;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.HealthContributors;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.ReactiveHealthContributor;
import org.springframework.boot.health.contributor.ReactiveHealthContributors;
import org.springframework.boot.health.contributor.ReactiveHealthIndicator;
import org.springframework.boot.health.registry.HealthContributorRegistry;
import org.springframework.boot.health.registry.ReactiveHealthContributorRegistry;
import reactor.core.publisher.Mono;

/**
 * The methods of Spring Boot 4's health API whose names or shapes differ in Boot 3.5 (the Boot 3
 * module has its own {@code HealthApi} with the same members): the rest of this module's sources
 * name only types, which the Boot 3 build renames (docs/DESIGN.md 7b). Keep it to those
 * differences. Stateless; the wrappers are as thread-safe as what they delegate to.
 */
final class HealthApi {
    private HealthApi() {
    }

    /** Calls the indicator ({@code health(boolean)} here, {@code getHealth(boolean)} in Boot 3). */
    static Health health(HealthIndicator indicator, boolean includeDetails) {
        return indicator.health(includeDetails);
    }

    static Mono<Health> health(ReactiveHealthIndicator indicator, boolean includeDetails) {
        return indicator.health(includeDetails);
    }

    /**
     * The instance Vitals adopted behind an indicator a reactive endpoint calls: the indicator
     * itself (Boot 4's reactive registry holds reactive beans only; blocking ones stay in their
     * own registry). Boot 3.5's side unwraps Boot's adapter of a blocking indicator.
     */
    static Object adopted(ReactiveHealthIndicator indicator) {
        return indicator;
    }

    /** Each child of a composite, by name, in the composite's order. */
    static void forEach(CompositeHealthContributor composite, BiConsumer<String, HealthContributor> action) {
        for (HealthContributors.Entry e : composite) {
            action.accept(e.name(), e.contributor());
        }
    }

    static void forEach(CompositeReactiveHealthContributor composite, BiConsumer<String, ReactiveHealthContributor> action) {
        for (ReactiveHealthContributors.Entry e : composite) {
            action.accept(e.name(), e.contributor());
        }
    }

    /** Spring's contributor name for a bean name (the application's {@code HealthContributorNameGenerator} if it has one). */
    static Function<String, String> contributorNames(ListableBeanFactory beans) {
        return beans.getBeanProvider(HealthContributorNameGenerator.class)
                .getIfAvailable(HealthContributorNameGenerator::withoutStandardSuffixes)::generateContributorName;
    }

    /** An indicator whose answer is {@link #answer}. */
    abstract static class Indicator implements HealthIndicator {
        abstract Health answer(boolean includeDetails);

        @Override
        public final Health health(boolean includeDetails) {
            return answer(includeDetails);
        }

        @Override
        public final Health health() {
            return answer(true);
        }
    }

    /**
     * A reactive indicator standing for {@code wrapped}: its answer is {@link #answer}, its
     * blocking view (which Boot 4's servlet endpoint uses; Boot 3 has none) is {@link #blocking}.
     */
    abstract static class ReactiveIndicator implements ReactiveHealthIndicator {
        private final ReactiveHealthIndicator wrapped;

        ReactiveIndicator(ReactiveHealthIndicator wrapped) {
            this.wrapped = wrapped;
        }

        abstract Mono<Health> answer(boolean includeDetails);

        /** @param direct the wrapped indicator's own blocking view */
        abstract HealthIndicator blocking(HealthIndicator direct);

        @Override
        public final Mono<Health> health(boolean includeDetails) {
            return answer(includeDetails);
        }

        @Override
        public final Mono<Health> health() {
            return answer(true);
        }

        @Override
        public final HealthIndicator asHealthContributor() {
            return blocking(wrapped.asHealthContributor());
        }
    }

    /** Spring's contributors with each one {@code wrap}ped on the way out. */
    private abstract static class Wrapped implements HealthContributors {
        private final HealthContributors delegate;
        private final UnaryOperator<HealthContributor> wrap;

        Wrapped(HealthContributors delegate, UnaryOperator<HealthContributor> wrap) {
            this.delegate = delegate;
            this.wrap = wrap;
        }

        @Override
        public final HealthContributor getContributor(String name) {
            HealthContributor c = delegate.getContributor(name);
            return c == null ? null : wrap.apply(c);
        }

        @Override
        public final Stream<Entry> stream() {
            return delegate.stream().map(e -> new Entry(e.name(), wrap.apply(e.contributor())));
        }
    }

    private abstract static class WrappedReactive implements ReactiveHealthContributors {
        private final ReactiveHealthContributors delegate;
        private final UnaryOperator<ReactiveHealthContributor> wrap;

        WrappedReactive(ReactiveHealthContributors delegate, UnaryOperator<ReactiveHealthContributor> wrap) {
            this.delegate = delegate;
            this.wrap = wrap;
        }

        @Override
        public final ReactiveHealthContributor getContributor(String name) {
            ReactiveHealthContributor c = delegate.getContributor(name);
            return c == null ? null : wrap.apply(c);
        }

        @Override
        public final Stream<Entry> stream() {
            return delegate.stream().map(e -> new Entry(e.name(), wrap.apply(e.contributor())));
        }
    }

    /** A composite whose children are {@code wrap}ped. */
    static final class Composite extends Wrapped implements CompositeHealthContributor {
        Composite(CompositeHealthContributor delegate, UnaryOperator<HealthContributor> wrap) {
            super(delegate, wrap);
        }
    }

    static final class ReactiveComposite extends WrappedReactive implements CompositeReactiveHealthContributor {
        ReactiveComposite(CompositeReactiveHealthContributor delegate, UnaryOperator<ReactiveHealthContributor> wrap) {
            super(delegate, wrap);
        }
    }

    /** A contributor registry whose contributors are {@code wrap}ped on the way out; registrations go to the delegate. */
    static final class Registry extends Wrapped implements HealthContributorRegistry {
        private final HealthContributorRegistry delegate;

        Registry(HealthContributorRegistry delegate, UnaryOperator<HealthContributor> wrap) {
            super(delegate, wrap);
            this.delegate = delegate;
        }

        @Override
        public void registerContributor(String name, HealthContributor contributor) {
            delegate.registerContributor(name, contributor);
        }

        @Override
        public HealthContributor unregisterContributor(String name) {
            return delegate.unregisterContributor(name);
        }
    }

    static final class ReactiveRegistry extends WrappedReactive implements ReactiveHealthContributorRegistry {
        private final ReactiveHealthContributorRegistry delegate;

        ReactiveRegistry(ReactiveHealthContributorRegistry delegate, UnaryOperator<ReactiveHealthContributor> wrap) {
            super(delegate, wrap);
            this.delegate = delegate;
        }

        @Override
        public void registerContributor(String name, ReactiveHealthContributor contributor) {
            delegate.registerContributor(name, contributor);
        }

        @Override
        public ReactiveHealthContributor unregisterContributor(String name) {
            return delegate.unregisterContributor(name);
        }
    }
}
