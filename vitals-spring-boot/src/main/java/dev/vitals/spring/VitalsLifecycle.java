package dev.vitals.spring;

import dev.vitals.HealthRegistry;
import dev.vitals.monitor.Monitor;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.SmartLifecycle;

/**
 * Starts the registry's schedules and every {@link Monitor} bean not yet running (with the
 * registry's clock and scheduler: monitors add no thread of their own) with the context. Monitor
 * beans are closed by the context when it is destroyed, the registry by its bean's destroy
 * method.
 */
final class VitalsLifecycle implements SmartLifecycle {
    /** Before the web servers start (they use DEFAULT_PHASE - 2048 and - 1024), after they stop. */
    static final int PHASE = Integer.MIN_VALUE + 1000;

    private final HealthRegistry registry;
    private final ObjectProvider<Monitor> monitors;
    private volatile boolean running;

    VitalsLifecycle(HealthRegistry registry, ObjectProvider<Monitor> monitors) {
        this.registry = registry;
        this.monitors = monitors;
    }

    @Override
    public void start() {
        monitors.orderedStream().filter(m -> !m.isRunning()).forEach(m -> m.start(registry));
        if (!registry.isStarted()) {
            registry.start();
        }
        running = true;
    }

    @Override
    public void stop() {
        running = false;
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }
}
