package dev.vitals;

import dev.vitals.monitor.DeadlockMonitor;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The child JVM of {@link CheckStarvationTest}: a registry with a user check that spins forever
 * (ignoring interrupts), a trivial liveness check, one of Vitals' monitors, and an application
 * virtual thread (a platform thread before Java 21) that sleeps 20 ms in a loop. It watches for
 * {@link #RUN_MILLIS} and prints {@code key=value} lines; the parent runs it with
 * {@code -XX:ActiveProcessorCount=1}.
 */
public final class SpinningCheckChild {
    static final long RUN_MILLIS = 3000;
    static volatile long sink;

    private SpinningCheckChild() {
    }

    public static void main(String[] args) throws Exception {
        DeadlockMonitor deadlock = DeadlockMonitor.builder().interval(Duration.ofSeconds(1)).build();
        HealthRegistry registry = HealthRegistry.builder()
                .register(Check.builder("spinner", () -> {
                    while (true) { // a careless check: spins past its timeout, deaf to interrupts
                        sink++;
                    }
                }).groups(Groups.READINESS).critical(false).interval(Duration.ofMillis(500))
                        .timeout(Duration.ofMillis(200)).build())
                // maxAge 5 s: a loaded CI machine may delay a run; starvation leaves no result at all
                .register(Check.builder("alive", Health::up).groups(Groups.LIVENESS)
                        .interval(Duration.ofMillis(250)).timeout(Duration.ofSeconds(1)).maxAge(Duration.ofSeconds(5)).build())
                .register(deadlock.check().groups(Groups.LIVENESS).interval(Duration.ofMillis(250))
                        .timeout(Duration.ofSeconds(1)).maxAge(Duration.ofSeconds(5)).build())
                .build();
        AtomicLong iterations = new AtomicLong();
        AtomicLong maxLateMillis = new AtomicLong();
        Runnable app = () -> {
            while (!Thread.currentThread().isInterrupted()) {
                long t0 = System.nanoTime();
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    return;
                }
                long late = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0) - 20;
                maxLateMillis.accumulateAndGet(late, Math::max);
                iterations.incrementAndGet();
            }
        };
        Thread appThread = startVirtual(app);
        deadlock.start(registry);
        registry.start();
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RUN_MILLIS);
        int samples = 0;
        int failing = 0;
        String firstFailure = "";
        Thread.sleep(500); // the first results
        while (System.nanoTime() < end) {
            Report r = registry.report(Groups.LIVENESS);
            samples++;
            if (!r.status().isHealthy()) {
                failing++;
                if (firstFailure.isEmpty()) {
                    firstFailure = r.checks().toString().replace('\n', ' ');
                }
            }
            Thread.sleep(50);
        }
        System.out.println("executor=" + (registry.usesVirtualThreads() ? "virtual" : "platform"));
        System.out.println("app-thread=" + (appThread.toString().contains("Virtual") ? "virtual" : "platform"));
        System.out.println("processors=" + Runtime.getRuntime().availableProcessors());
        System.out.println("liveness-samples=" + samples);
        System.out.println("liveness-failing=" + failing);
        System.out.println("first-failure=" + firstFailure);
        System.out.println("readiness=" + registry.report(Groups.READINESS).checks().get("spinner").status());
        System.out.println("app-iterations=" + iterations.get());
        System.out.println("app-max-late-ms=" + maxLateMillis.get());
        System.out.flush();
        Runtime.getRuntime().halt(0); // the spinning thread never ends
    }

    private static Thread startVirtual(Runnable task) throws Exception {
        try {
            Method ofVirtual = Thread.class.getMethod("ofVirtual");
            Object builder = ofVirtual.invoke(null);
            Method start = Class.forName("java.lang.Thread$Builder").getMethod("start", Runnable.class);
            return (Thread) start.invoke(builder, task);
        } catch (NoSuchMethodException e) {
            Thread t = new Thread(task, "app");
            t.setDaemon(true);
            t.start();
            return t;
        }
    }
}
