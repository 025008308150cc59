package dev.vitals.server;

import dev.vitals.Check;
import dev.vitals.Clock;
import dev.vitals.Health;
import dev.vitals.HealthCheck;
import dev.vitals.Mode;
import java.time.Duration;

/** Shared test helpers: a frozen clock (durations read 0.0 ms, so bodies are exact) and checks. */
final class Fixtures {
    /** Wall time 2023-11-14T22:13:20Z, monotonic time that never moves. */
    static final Clock FROZEN = new Clock() {
        @Override
        public long wallTime() {
            return 1_700_000_000_000L;
        }

        @Override
        public long monotonicTime() {
            return 42L;
        }
    };

    private Fixtures() {
    }

    /** An on-demand check that always answers {@code health}. */
    static Check onDemand(String name, Health health, String group, String... more) {
        return Check.builder(name, () -> health).groups(group, more).mode(Mode.ON_DEMAND).build();
    }

    /** A scheduled check (first run at registry start, then every 10 s). */
    static Check scheduled(String name, HealthCheck check, String group, String... more) {
        return Check.builder(name, check).groups(group, more).build();
    }

    /** A check that sleeps, then answers UP; on demand, with the given timeout. */
    static Check slowOnDemand(String name, Duration sleep, Duration timeout, String group, String... more) {
        return Check.builder(name, () -> {
            Thread.sleep(sleep.toMillis());
            return Health.up();
        }).groups(group, more).mode(Mode.ON_DEMAND).timeout(timeout).ttl(Duration.ofMillis(1)).build();
    }
}
