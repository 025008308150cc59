package dev.vitals.spring;

/**
 * A bean of this type is the application's warm-up routine for {@code vitals.warmup.enabled=true}:
 * run once, on a thread of its own ({@code vitals-warmup}), when the application is ready (it
 * listens); readiness stays DOWN until it has returned (or thrown: then DEGRADED), at most
 * {@code vitals.warmup.max-wait}. Typically a few hundred calls of the hot paths.
 *
 * <pre>{@code
 * @Bean
 * VitalsWarmupRoutine warmCatalog(CatalogService catalog) {
 *     return () -> { for (int i = 0; i < 500; i++) catalog.search("warm-up " + i); };
 * }
 * }</pre>
 */
@FunctionalInterface
public interface VitalsWarmupRoutine {
    /**
     * Warms the application.
     *
     * @throws Exception when warm-up fails; readiness then reads DEGRADED with its type
     */
    void warmUp() throws Exception;
}
