package dev.vitals;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/** Hand-written fakes: checks with a settable outcome and counters, no mocks. */
final class TestChecks {
    private TestChecks() {
    }

    /** A check whose next result is settable, counting its executions. */
    static final class Settable implements HealthCheck {
        final AtomicReference<Health> next = new AtomicReference<>(Health.up());
        final AtomicInteger executions = new AtomicInteger();

        Settable set(Health h) {
            next.set(h);
            return this;
        }

        @Override
        public Health check() {
            executions.incrementAndGet();
            return next.get();
        }
    }

    /** A check that blocks until released (or forever), counting its executions and live runs. */
    static final class Blocking implements HealthCheck {
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicInteger executions = new AtomicInteger();
        final AtomicInteger running = new AtomicInteger();
        final AtomicInteger maxRunning = new AtomicInteger();

        @Override
        public Health check() throws InterruptedException {
            executions.incrementAndGet();
            int now = running.incrementAndGet();
            maxRunning.accumulateAndGet(now, Math::max);
            try {
                release.await();
                return Health.up();
            } finally {
                running.decrementAndGet();
            }
        }
    }

    static long liveVitalsThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().startsWith("vitals-"))
                .count();
    }
}
