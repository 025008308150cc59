package dev.vitals.kubesim.scenario;

import dev.vitals.kubesim.fault.FaultProxy;
import dev.vitals.kubesim.fault.LoadGenerator;
import dev.vitals.kubesim.model.ContainerRuntime;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Performs {@link Action}s: the one runner behind scenario files and {@code vitals replay}.
 * {@link #perform} may block (signals, sockets), so callers run it off the kubelet thread,
 * except {@link Action.Delete} and {@link Action.KubeletRestart}, kubelet decisions, which
 * the caller runs on the kubelet thread. Thread-safe if the target is.
 */
public final class ActionRunner {
    private ActionRunner() {
    }

    /** What an action acts on. */
    public interface Target {
        /**
         * @param name a proxy name
         * @return that proxy
         * @throws IllegalStateException when there is none (scenarios are validated up front)
         */
        FaultProxy proxy(String name);

        /** @return the running container instance, if any */
        Optional<ContainerRuntime.Instance> instance();

        /** @return the address loads are sent to (the pod IP stand-in) */
        String podIp();

        /**
         * @return the application's port, for a load aimed at {@link LoadGenerator#APP_PORT}
         * @throws UnsupportedOperationException where loads name their port (scenario files)
         */
        default int appPort() {
            throw new UnsupportedOperationException("a load here names its port");
        }

        /**
         * A load was started: keep the handle to cancel it at the end.
         *
         * @param handle the load
         */
        void loadStarted(LoadGenerator.Handle handle);

        /**
         * Whether the container is left paused (so it can be resumed before shutdown).
         *
         * @param paused true after pause, false after resume
         */
        void paused(boolean paused);

        /**
         * Deletes the pod (R53); called for {@link Action.Delete}.
         *
         * @param grace the grace period, if it overrides the pod's
         */
        void deletePod(Optional<Duration> grace);

        /**
         * Restarts the kubelet (R15, R55); called for {@link Action.KubeletRestart}.
         *
         * @throws UnsupportedOperationException where there is no kubelet model to restart
         */
        default void restartKubelet() {
            throw new UnsupportedOperationException("kubelet-restart is not supported here");
        }
    }

    /**
     * @param action the action
     * @param target what it acts on
     * @param loadFinished receives a finished count-bounded load's statistics (any thread); a sustained
     *        load's totals are read from its handle
     * @return an outcome to append to the action's description: empty, or why nothing happened
     */
    public static String perform(Action action, Target target, Consumer<LoadGenerator.Stats> loadFinished) {
        Objects.requireNonNull(action, "action");
        if (action instanceof Action.Load l) {
            LoadGenerator.Spec spec = l.spec().port() == LoadGenerator.APP_PORT ? l.spec().at(target.appPort()) : l.spec();
            target.loadStarted(LoadGenerator.start(spec, target.podIp(), loadFinished));
        } else if (action instanceof Action.SustainedLoad l) {
            LoadGenerator.Sustained spec = l.spec().port() == LoadGenerator.APP_PORT ? l.spec().at(target.appPort()) : l.spec();
            target.loadStarted(LoadGenerator.sustain(spec, target.podIp()));
        } else if (action instanceof Action.Fault f) {
            target.proxy(f.proxy()).apply(f.fault(), f.latency().toMillis());
        } else if (action instanceof Action.Heal h) {
            target.proxy(h.proxy()).heal();
        } else if (action instanceof Action.Delete d) {
            target.deletePod(d.grace());
        } else if (action instanceof Action.KubeletRestart) {
            target.restartKubelet();
        } else {
            Optional<ContainerRuntime.Instance> instance = target.instance();
            if (instance.isEmpty()) {
                return " (no running container)";
            }
            if (action instanceof Action.Pause) {
                instance.get().pause();
                target.paused(true);
            } else if (action instanceof Action.Resume) {
                instance.get().resume();
                target.paused(false);
            } else {
                instance.get().signal(((Action.Signal) action).name());
            }
        }
        return "";
    }
}
