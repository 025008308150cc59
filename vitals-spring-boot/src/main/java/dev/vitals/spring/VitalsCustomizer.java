package dev.vitals.spring;

import dev.vitals.HealthRegistry;

/**
 * A bean of this type adds to the auto-configured {@link HealthRegistry} before it is built:
 * own Vitals checks, custom groups, listeners. Customizers run in {@code @Order} order, after
 * the adopted Spring indicators are registered. A {@link dev.vitals.Check} bean is registered
 * without a customizer.
 *
 * <pre>{@code
 * @Bean
 * VitalsCustomizer deadlock() {
 *     return builder -> builder.register(Check.builder("deadlock", deadlockCheck).groups(Groups.LIVENESS).build());
 * }
 * }</pre>
 */
@FunctionalInterface
public interface VitalsCustomizer {
    /**
     * @param builder the registry builder; do not call {@code build()}
     */
    void customize(HealthRegistry.Builder builder);
}
