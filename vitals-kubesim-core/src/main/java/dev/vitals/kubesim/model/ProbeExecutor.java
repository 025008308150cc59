package dev.vitals.kubesim.model;


import java.util.function.Consumer;

/**
 * Runs probe evaluations for the kubelet model. One evaluation covers the whole tick,
 * including up to 3 attempts when the prober returns an error (R22). Implementations decide
 * threading; the real one ({@code probe.RealProbeExecutor}) gives each probe type its own thread so
 * probe types never wait on each other (R13). Must be thread-safe.
 */
public interface ProbeExecutor extends AutoCloseable {

    /**
     * Starts one evaluation. The kubelet never starts a second evaluation of the same probe
     * type before the first completes.
     *
     * @param probe the probe
     * @param instance the container instance number it targets (1, 2, …)
     * @param done called exactly once, from any thread, with the outcome
     */
    void execute(ProbeSpec probe, int instance, Consumer<ProbeOutcome> done);

    /**
     * Runs a lifecycle hook's {@code exec} or {@code httpGet} handler once, blocking; called off
     * the kubelet thread. This default runs none and reports the hook failed.
     *
     * @param handler a {@link dev.vitals.kubesim.model.ProbeHandler.Exec} or
     *        {@link dev.vitals.kubesim.model.ProbeHandler.HttpGet}
     * @param instance the container instance it targets (1, 2, …): an exec hook runs inside it
     * @param limit how long to wait at most
     * @return empty on success, else the failure message
     */
    default java.util.Optional<String> runHook(dev.vitals.kubesim.model.ProbeHandler handler, int instance,
            java.time.Duration limit) {
        return java.util.Optional.of("this probe executor runs no lifecycle hooks");
    }

    /** Stops any threads. Evaluations in flight may still complete. */
    @Override
    default void close() {
    }
}
