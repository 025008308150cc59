package dev.vitals.kubesim.fleet;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.util.Locale;

/**
 * The model engine's benchmark (issue 14: 1,000 replicas × 1 h of virtual time in under 10 s and
 * 512 MiB; 5,000 replicas × 10 min; issue 37: 10,000 × 1 h under 60 s and 512 MiB, {@code 10000 3600}),
 * next to its reference: the bare virtual clock running as many timer events. Run in its own JVM
 * with the heap capped, e.g.
 * {@code java -Xmx512m -cp … dev.vitals.kubesim.fleet.FleetBenchmark 1000 3600}; prints wall time,
 * peak heap after GC and the run's totals. The workload: 40 workers per replica, 50 requests/s per
 * replica at 20–80 ms, a burst of slow exports at 20 % of the time, isolated probes (liveness 10 s,
 * readiness 5 s), a 60 s outage of a non-critical shared dependency.
 */
public final class FleetBenchmark {
    private FleetBenchmark() {
    }

    static FleetSpec workload(int replicas, int seconds) {
        String yaml = String.join("\n",
                "replicas: " + replicas,
                "duration: " + seconds + "s",
                "step: " + System.getProperty("fleet.step", "100ms"),
                "replica: {workers: 40, startTime: 5s, queueLimit: 400}",
                "probes:",
                "  server: isolated",
                "  startup: {periodSeconds: 1, failureThreshold: 60}",
                "  liveness: {periodSeconds: 10, timeoutSeconds: 1, failureThreshold: 3}",
                "  readiness: {periodSeconds: 5, timeoutSeconds: 1, failureThreshold: 3, dependency: non-critical}",
                "dependency: {name: cache, outages: [{at: " + (seconds / 2) + "s, duration: 60s}]}",
                "clients:",
                "  - {name: users, rate: " + 50 * replicas + ", serviceTime: {min: 20ms, max: 80ms}, timeout: 5s, retries: 1}",
                "  - {name: exports, concurrency: " + 20 * replicas + ", serviceTime: {min: 4s, max: 12s}, timeout: 60s, "
                        + "persistent: true, from: " + (seconds / 5) + "s, until: " + (2 * seconds / 5) + "s}",
                "actions: [{at: 30s, kill: 0}]",
                "");
        return FleetSpecReader.parse(yaml, "benchmark");
    }

    /**
     * @param args replicas and virtual seconds (default 1000 3600)
     */
    public static void main(String[] args) {
        int replicas = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 3600;
        FleetSpec spec = workload(replicas, seconds);
        System.gc();
        long heapBefore = usedHeap(); // what the JVM holds before any replica exists
        java.lang.management.ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long cpu0 = threads.getCurrentThreadCpuTime();
        long t0 = System.nanoTime();
        ModelFleet fleet = new ModelFleet(spec, "benchmark " + replicas + " x " + seconds + " s");
        FleetResult r = fleet.run();
        System.gc();
        long heapLive = usedHeap(); // the fleet's replicas and their state at the end of the run
        java.lang.ref.Reference.reachabilityFence(fleet);
        double wall = (System.nanoTime() - t0) / 1e9;
        double cpu = (threads.getCurrentThreadCpuTime() - cpu0) / 1e9;
        long events = fleet.timerEvents();
        long b0 = threads.getCurrentThreadCpuTime();
        long bw0 = System.nanoTime();
        long bareEvents = bareClock(replicas, seconds, events);
        double bareWall = (System.nanoTime() - bw0) / 1e9;
        double bareCpu = (threads.getCurrentThreadCpuTime() - b0) / 1e9;
        long peak = 0;
        for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
            if (p.getType() == MemoryType.HEAP && p.getCollectionUsage() != null) {
                peak += p.getPeakUsage().getUsed();
            }
        }
        System.out.print(FleetReport.text(r));
        System.out.printf(Locale.ROOT, "wall %.2f s, run thread CPU %.2f s, heap pools' peaks summed %.0f MiB (each pool's own peak, reached at different times: an upper bound of the heap's, which ran within max %d MiB), %d replicas x %d s virtual%n",
                wall, cpu, peak / 1048576.0, Runtime.getRuntime().maxMemory() / 1048576, replicas, seconds);
        double replicaHours = replicas * (seconds + r.warmupSeconds()) / 3600.0;
        System.out.printf(Locale.ROOT, "per replica: %.1f KiB live at the end of the run (after GC; the CLI's bound counts %d bytes,"
                + " FleetSpec.BYTES_PER_REPLICA), %.1f KiB of the summed peaks above the JVM's own %.0f MiB%n",
                (heapLive - heapBefore) / 1024.0 / replicas, FleetSpec.BYTES_PER_REPLICA, (peak - heapBefore) / 1024.0 / replicas,
                heapBefore / 1048576.0);
        System.out.printf(Locale.ROOT, "timer events %d; bare virtual clock, same events (%d): wall %.2f s, CPU %.2f s; "
                + "model CPU per replica-hour %.2f ms, bare %.2f ms; ratio model/bare %.1f (CPU), %.1f (wall); load average %.2f%n",
                events, bareEvents, bareWall, bareCpu, 1000 * cpu / replicaHours, 1000 * bareCpu / replicaHours,
                cpu / Math.max(1e-9, bareCpu), wall / Math.max(1e-9, bareWall),
                ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }

    private static long usedHeap() {
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /**
     * The reference: the bare virtual clock running {@code events} no-op timer events over the
     * same virtual span, one self-rescheduling timer per replica (so the queue holds as many
     * timers as the model's kubelets keep), each at the period that makes the total come out.
     *
     * @return the events run
     */
    static long bareClock(int replicas, int seconds, long events) {
        dev.vitals.kubesim.model.VirtualTime time = new dev.vitals.kubesim.model.VirtualTime();
        long spanNs = seconds * 1_000_000_000L;
        long period = Math.max(1, spanNs * replicas / Math.max(1, events));
        long[] count = new long[1];
        for (int i = 0; i < replicas; i++) {
            long offset = period * i / replicas;
            Runnable[] tick = new Runnable[1];
            tick[0] = () -> {
                if (++count[0] < events) {
                    time.schedule(period, tick[0]);
                }
            };
            time.schedule(offset, tick[0]);
        }
        time.awaitUntil(spanNs + period);
        time.close();
        return time.scheduled();
    }
}
