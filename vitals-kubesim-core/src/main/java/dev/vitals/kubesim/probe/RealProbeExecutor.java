package dev.vitals.kubesim.probe;

import dev.vitals.kubesim.model.ProbeExecutor;
import dev.vitals.kubesim.model.ProbeOutcome;
import dev.vitals.kubesim.model.ProbeResult;
import dev.vitals.kubesim.model.ProbeSpec;
import dev.vitals.kubesim.model.ProbeType;

import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;

/**
 * Runs probes with a {@link Prober} on one daemon thread per probe type
 * ({@code vitals-kubesim-probe-<type>}), so a hung readiness probe never delays liveness
 * (R13). Retries errors up to 3 attempts per tick (R22; kubelet: prober.go
 * runProbeWithRetries, maxProbeRetries = 3). Thread-safe.
 */
public final class RealProbeExecutor implements ProbeExecutor {
    private static final int MAX_ATTEMPTS = 3;
    private final Prober prober;
    private final Map<ProbeType, ExecutorService> threads = new EnumMap<>(ProbeType.class);

    /** @param prober performs single attempts */
    public RealProbeExecutor(Prober prober) {
        this.prober = prober;
        for (ProbeType t : ProbeType.values()) {
            threads.put(t, Executors.newSingleThreadExecutor(r -> {
                Thread th = new Thread(r, "vitals-kubesim-probe-" + t.label());
                th.setDaemon(true);
                return th;
            }));
        }
    }

    @Override
    public void execute(ProbeSpec probe, int instance, Consumer<ProbeOutcome> done) {
        ExecutorService thread = threads.get(probe.type());
        try {
            thread.execute(() -> done.accept(runWithRetries(prober, probe, instance)));
        } catch (java.util.concurrent.RejectedExecutionException e) {
            if (!thread.isShutdown()) {
                throw e;
            }
            // closed: the run has ended or was interrupted while the kubelet's timer fired; the probe is dropped
        }
    }

    @Override
    public java.util.Optional<String> runHook(dev.vitals.kubesim.model.ProbeHandler handler, int instance, Duration limit) {
        return prober.runHook(handler, instance, limit);
    }

    /**
     * Runs attempts until one is not an error, at most 3 (R22).
     *
     * @return the last attempt's outcome, with the total latency and attempt count
     */
    static ProbeOutcome runWithRetries(Prober prober, ProbeSpec probe, int instance) {
        long start = System.nanoTime();
        ProbeOutcome last = null;
        int attempt = 0;
        while (attempt < MAX_ATTEMPTS) {
            attempt++;
            try {
                last = prober.probe(probe, instance);
            } catch (RuntimeException e) {
                last = ProbeOutcome.of(ProbeResult.ERROR, "prober error: " + e, Duration.ZERO);
            }
            if (last.result() != ProbeResult.ERROR) {
                break;
            }
        }
        return new ProbeOutcome(last.result(), last.message(), Duration.ofNanos(System.nanoTime() - start), attempt);
    }

    @Override
    public void close() {
        threads.values().forEach(ExecutorService::shutdownNow);
    }
}
