package org.springframework.boot.jdbc.health;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * A stand-in with the name and package of Spring Boot's JDBC indicator (spring-boot-jdbc is not a
 * test dependency here), for {@code DependencyTagTest}: only its name matters.
 */
public class DataSourceHealthIndicator implements HealthIndicator {
    @Override
    public Health health() {
        return Health.up().build();
    }
}
