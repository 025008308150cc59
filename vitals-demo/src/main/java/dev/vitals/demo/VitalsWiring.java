package dev.vitals.demo;

import dev.vitals.HealthCheck;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;

/** The Vitals wiring (work in progress: waits for vitals-server and the monitors). */
final class VitalsWiring {
    private VitalsWiring() {
    }

    static ProbeWiring create(DemoOptions o, Database db, ThreadPoolExecutor workers, ScheduledExecutorService scheduler,
            AppServer app, Map<String, HealthCheck> synthetic) {
        throw new IllegalStateException("--wiring vitals is not built yet in this branch; use --wiring naive");
    }
}
