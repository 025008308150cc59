package dev.vitals.bench.suite;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ScenariosTest {

    @Test
    void threadsAddedAreTheMultisetDifferenceOfTheNames() {
        List<String> before = List.of("main", "vitals-probe-1", "vitals-check-1");
        List<String> after = List.of("main", "vitals-check-1", "vitals-check-1", "vitals-probe-1", "vitals-schedule");

        assertThat(Scenarios.added(before, after)).containsExactly("vitals-check-1", "vitals-schedule");
        assertThat(Scenarios.added(after, before)).isEmpty();
    }
}
