package dev.vitals.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vitals.Groups;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.PingHealthIndicator;
import org.springframework.boot.jdbc.health.DataSourceHealthIndicator;

/** Issue 19: adopted indicators of remote dependencies are tagged, so liveness can warn about them (P2). */
class DependencyTagTest {
    /** An application's own subclass of the JDBC indicator. */
    static final class OrdersDb extends DataSourceHealthIndicator {
    }

    @Test
    void knownDependencyIndicatorsAndTheirSubclassesAreTaggedOthersAreNot() {
        assertThat(Adoption.isKnownDependency(DataSourceHealthIndicator.class)).isTrue();
        assertThat(Adoption.isKnownDependency(OrdersDb.class)).isTrue();
        assertThat(Adoption.isKnownDependency(PingHealthIndicator.class)).isFalse();
        assertThat(Adoption.isKnownDependency(DependencyTagTest.class)).isFalse();
    }

    @Test
    void anAdoptedDataSourceIndicatorInLivenessBecomesADependencyCheck() {
        SpringIndicators.Leaf leaf = new SpringIndicators.Leaf("db", new OrdersDb(), null);
        dev.vitals.Check check = SpringIndicators.check(leaf, Set.of(Groups.LIVENESS), null, Optional.empty(), Optional.empty());
        assertThat(check.dependency()).isTrue();
        SpringIndicators.Leaf ping = new SpringIndicators.Leaf("ping", new PingHealthIndicator(), null);
        assertThat(SpringIndicators.check(ping, Set.of(Groups.LIVENESS), null, Optional.empty(), Optional.empty()).dependency()).isFalse();
    }
}
