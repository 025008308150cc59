package dev.vitals.spring;

import java.lang.reflect.Field;
import java.util.Iterator;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.actuate.health.CompositeHealthContributor;
import org.springframework.boot.actuate.health.CompositeReactiveHealthContributor;
import org.springframework.boot.actuate.health.ContributorRegistry;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthContributor;
import org.springframework.boot.actuate.health.HealthContributorNameFactory;
import org.springframework.boot.actuate.health.HealthContributorRegistry;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.actuate.health.NamedContributor;
import org.springframework.boot.actuate.health.NamedContributors;
import org.springframework.boot.actuate.health.ReactiveHealthContributor;
import org.springframework.boot.actuate.health.ReactiveHealthContributorRegistry;
import org.springframework.boot.actuate.health.ReactiveHealthIndicator;
import reactor.core.publisher.Mono;

/**
 * Boot 3.5's side of {@code HealthApi}: the members of the Boot 4 module's class of that name,
 * for the methods Boot 3.5 names or shapes differently ({@code getHealth(boolean)}, composites
 * as {@code Iterable<NamedContributor>}, no blocking view of a reactive indicator). The other
 * sources of this module are the Boot 4 module's, generated with the type renames
 * (docs/DESIGN.md 7b). Stateless; the wrappers are as thread-safe as what they delegate to.
 */
final class HealthApi {
    private HealthApi() {
    }

    static Health health(HealthIndicator indicator, boolean includeDetails) {
        return indicator.getHealth(includeDetails);
    }

    static Mono<Health> health(ReactiveHealthIndicator indicator, boolean includeDetails) {
        return indicator.getHealth(includeDetails);
    }

    /** Boot 3.5's adapter of a blocking indicator in the reactive registry (package-private in Boot). */
    private static final Field ADAPTED = adaptedField();

    /**
     * The instance Vitals adopted behind an indicator a reactive endpoint calls. Boot 3.5's
     * reactive registry holds every blocking indicator inside Boot's package-private
     * {@code HealthIndicatorReactiveAdapter} (Boot 4 keeps blocking ones in their own registry):
     * its {@code delegate}, read by reflection, is the adopted bean. Without that field (another
     * Boot release), the adapter itself, which Vitals did not adopt: it is then called directly.
     */
    static Object adopted(ReactiveHealthIndicator indicator) {
        if (ADAPTED != null && ADAPTED.getDeclaringClass() == indicator.getClass()) {
            try {
                return ADAPTED.get(indicator);
            } catch (IllegalAccessException | RuntimeException e) {
                return indicator;
            }
        }
        return indicator;
    }

    private static Field adaptedField() {
        try {
            Field f = Class.forName("org.springframework.boot.actuate.health.HealthIndicatorReactiveAdapter", false,
                    HealthApi.class.getClassLoader()).getDeclaredField("delegate");
            f.setAccessible(true);
            return f;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    static void forEach(CompositeHealthContributor composite, BiConsumer<String, HealthContributor> action) {
        for (NamedContributor<HealthContributor> e : composite) {
            action.accept(e.getName(), e.getContributor());
        }
    }

    static void forEach(CompositeReactiveHealthContributor composite, BiConsumer<String, ReactiveHealthContributor> action) {
        for (NamedContributor<ReactiveHealthContributor> e : composite) {
            action.accept(e.getName(), e.getContributor());
        }
    }

    /** Boot 3.5 has no name-generator bean: bean names lose the standard suffixes. */
    static Function<String, String> contributorNames(ListableBeanFactory beans) {
        return HealthContributorNameFactory.INSTANCE;
    }

    abstract static class Indicator implements HealthIndicator {
        abstract Health answer(boolean includeDetails);

        @Override
        public final Health getHealth(boolean includeDetails) {
            return answer(includeDetails);
        }

        @Override
        public final Health health() {
            return answer(true);
        }
    }

    /** {@link #blocking} is never called: Boot 3.5's reactive indicators have no blocking view. */
    abstract static class ReactiveIndicator implements ReactiveHealthIndicator {
        ReactiveIndicator(ReactiveHealthIndicator wrapped) {
        }

        abstract Mono<Health> answer(boolean includeDetails);

        abstract HealthIndicator blocking(HealthIndicator direct);

        @Override
        public final Mono<Health> getHealth(boolean includeDetails) {
            return answer(includeDetails);
        }

        @Override
        public final Mono<Health> health() {
            return answer(true);
        }
    }

    /** Spring's contributors with each one {@code wrap}ped on the way out (Boot 3.5's are generic in the contributor type). */
    private abstract static class Wrapped<C> implements NamedContributors<C> {
        private final NamedContributors<C> delegate;
        private final UnaryOperator<C> wrap;

        Wrapped(NamedContributors<C> delegate, UnaryOperator<C> wrap) {
            this.delegate = delegate;
            this.wrap = wrap;
        }

        @Override
        public final C getContributor(String name) {
            C c = delegate.getContributor(name);
            return c == null ? null : wrap.apply(c);
        }

        @Override
        public final Iterator<NamedContributor<C>> iterator() {
            return delegate.stream().map(e -> NamedContributor.of(e.getName(), wrap.apply(e.getContributor()))).iterator();
        }
    }

    static final class Composite extends Wrapped<HealthContributor> implements CompositeHealthContributor {
        Composite(CompositeHealthContributor delegate, UnaryOperator<HealthContributor> wrap) {
            super(delegate, wrap);
        }
    }

    static final class ReactiveComposite extends Wrapped<ReactiveHealthContributor> implements CompositeReactiveHealthContributor {
        ReactiveComposite(CompositeReactiveHealthContributor delegate, UnaryOperator<ReactiveHealthContributor> wrap) {
            super(delegate, wrap);
        }
    }

    /** Registrations go to the delegate. */
    private abstract static class WrappedRegistry<C> extends Wrapped<C> implements ContributorRegistry<C> {
        private final ContributorRegistry<C> delegate;

        WrappedRegistry(ContributorRegistry<C> delegate, UnaryOperator<C> wrap) {
            super(delegate, wrap);
            this.delegate = delegate;
        }

        @Override
        public final void registerContributor(String name, C contributor) {
            delegate.registerContributor(name, contributor);
        }

        @Override
        public final C unregisterContributor(String name) {
            return delegate.unregisterContributor(name);
        }
    }

    static final class Registry extends WrappedRegistry<HealthContributor> implements HealthContributorRegistry {
        Registry(HealthContributorRegistry delegate, UnaryOperator<HealthContributor> wrap) {
            super(delegate, wrap);
        }
    }

    static final class ReactiveRegistry extends WrappedRegistry<ReactiveHealthContributor> implements ReactiveHealthContributorRegistry {
        ReactiveRegistry(ReactiveHealthContributorRegistry delegate, UnaryOperator<ReactiveHealthContributor> wrap) {
            super(delegate, wrap);
        }
    }
}
