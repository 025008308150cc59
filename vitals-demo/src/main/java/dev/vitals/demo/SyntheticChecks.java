package dev.vitals.demo;

import dev.vitals.Health;
import dev.vitals.HealthCheck;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * Synthetic checks for benchmarks and tests ({@code --synthetic-checks N},
 * {@code --synthetic-latency-ms L}, {@code --hung-check}): {@code synthetic-1..N} each take L
 * and report UP; {@code hung} waits on a latch that is never released (it returns only when
 * its thread is interrupted, as a check stuck on a dead TCP peer would not).
 */
final class SyntheticChecks {
    static final String HUNG = "hung";

    private SyntheticChecks() {
    }

    /** @return check name to check function, in registration order */
    static Map<String, HealthCheck> of(DemoOptions o) {
        Map<String, HealthCheck> m = new LinkedHashMap<>();
        long latencyMs = o.syntheticLatency().toMillis();
        for (int i = 1; i <= o.syntheticChecks(); i++) {
            m.put("synthetic-" + i, () -> {
                if (latencyMs > 0) {
                    Thread.sleep(latencyMs);
                }
                return Health.up().withDetail("latencyMs", latencyMs);
            });
        }
        if (o.hungCheck()) {
            CountDownLatch never = new CountDownLatch(1);
            m.put(HUNG, () -> {
                never.await();
                return Health.up();
            });
        }
        return Collections.unmodifiableMap(m);
    }
}
