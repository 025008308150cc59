package dev.vitals;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Concurrent readers against a running scheduler: no lost or torn results (bounded iterations). */
class ConcurrencyStressTest {

    @Test
    void concurrentReadersSeeConsistentMonotonicResultsWhileTheSchedulerRuns() throws Exception {
        AtomicLong counter = new AtomicLong();
        // Each execution publishes n with a status derived from n, so a torn read would mismatch.
        HealthCheck c = () -> {
            long n = counter.incrementAndGet();
            return Health.builder(n % 2 == 0 ? Status.UP : Status.DEGRADED).detail("n", n).build();
        };
        HealthRegistry.Builder b = HealthRegistry.builder();
        for (int i = 0; i < 4; i++) {
            b.register(Check.builder("c" + i, c).interval(Duration.ofMillis(1)).build());
        }
        b.register(Check.builder("od", c).mode(Mode.ON_DEMAND).ttl(Duration.ofMillis(1)).build());
        try (HealthRegistry registry = b.build()) {
            registry.start();
            int readers = 4;
            int iterations = 20_000;
            ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
            CountDownLatch done = new CountDownLatch(readers);
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < readers; t++) {
                boolean evaluating = t == 0;
                Thread th = new Thread(() -> {
                    long[] lastSeen = new long[5];
                    try {
                        for (int i = 0; i < iterations && problems.isEmpty(); i++) {
                            Report r = evaluating
                                    ? registry.evaluate(Groups.READINESS).get(10, TimeUnit.SECONDS)
                                    : registry.report(Groups.READINESS);
                            int k = 0;
                            for (String name : List.of("c0", "c1", "c2", "c3", "od")) {
                                Health h = r.checks().get(name);
                                if (h.status() == Status.UNKNOWN) {
                                    k++;
                                    continue; // not run yet
                                }
                                long n = ((Number) h.details().get("n")).longValue();
                                Status expected = n % 2 == 0 ? Status.UP : Status.DEGRADED;
                                if (h.status() != expected) {
                                    problems.add(name + ": status " + h.status() + " with n=" + n);
                                }
                                if (!name.equals("od") && n < lastSeen[k]) {
                                    problems.add(name + ": went back from " + lastSeen[k] + " to " + n);
                                }
                                lastSeen[k] = Math.max(lastSeen[k], n);
                                k++;
                            }
                        }
                    } catch (Exception e) {
                        problems.add(e.toString());
                    } finally {
                        done.countDown();
                    }
                }, "stress-reader-" + t);
                threads.add(th);
                th.start();
            }
            assertThat(done.await(120, TimeUnit.SECONDS)).as("readers finished").isTrue();
            assertThat(problems).isEmpty();
            assertThat(counter.get()).as("the scheduler kept running").isGreaterThan(10);
        }
    }
}
