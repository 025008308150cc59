/**
 * Spring Boot auto-configuration for Vitals ({@code vitals-spring-boot} for Boot 4,
 * {@code vitals-spring-boot3} for Boot 3.5: the same classes, properties and behaviour): adopts
 * every Spring {@code HealthIndicator}, {@code ReactiveHealthIndicator} and composite contributor
 * bean as a Vitals check (names and {@code management.endpoint.health.group.*} membership kept),
 * configured by {@code vitals.*} properties ({@link dev.vitals.spring.VitalsProperties}); maps
 * Spring's availability states both ways and drains readiness on context close; binds Vitals'
 * Micrometer meters. No method accepts or returns {@code null} unless it says so.
 */
package dev.vitals.spring;
