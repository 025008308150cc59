package dev.vitals.kubesim.model;

import java.util.Objects;
import java.util.Optional;

/**
 * A container's {@code lifecycle}: its {@code postStart} and {@code preStop} hooks. Immutable.
 *
 * <p>How the kubelet runs them (kubelet: pkg/kubelet/kuberuntime/kuberuntime_container.go
 * {@code startContainer} step 4, {@code killContainer}, {@code executePreStopHook}; handlers in
 * pkg/kubelet/lifecycle/handlers.go {@code handlerRunner.Run}), as {@link Kubelet} models it:
 * <ul>
 * <li>{@code postStart} runs right after the runtime started the container; the sync that
 * started it waits for the hook, so the container's status is not Running (no probe runs, R29)
 * until it returns. A failing hook is a {@code FailedPostStartHook} event and the container is
 * killed (with its {@code preStop} and the pod's grace period); it is then restarted as any exited
 * container is ({@code ContainerShouldRestart}).</li>
 * <li>{@code preStop} runs before the stop signal; the kubelet waits for it at most the grace
 * period, subtracts the whole seconds it took, and gives the container at least 2 s
 * ({@code minimumGracePeriodInSeconds}) after SIGTERM. A failing hook is a
 * {@code FailedPreStopHook} event and the kill goes on; a hook still running at the grace period
 * is no event (the kubelet logs it and stops waiting), but an exec or httpGet hook the container's
 * exit cuts short fails then. On pod deletion every container's hook starts at once (R70).</li>
 * <li>{@code exec} fails on a non-zero exit (no timeout, no {@code $(VAR)} expansion);
 * {@code httpGet} fails only when no response comes (the status code is not read:
 * {@code runHTTPHandler} discards the body); {@code sleep} waits its seconds.</li>
 * </ul>
 *
 * @param postStart the postStart hook, if any
 * @param preStop the preStop hook, if any
 */
public record Lifecycle(Optional<Hook> postStart, Optional<Hook> preStop) {

    /** No hooks. */
    public static final Lifecycle NONE = new Lifecycle(Optional.empty(), Optional.empty());

    /**
     * Validates the components.
     *
     * @param postStart the postStart hook, if any
     * @param preStop the preStop hook, if any
     * @throws NullPointerException if a required component is null
     */
    public Lifecycle {
        Objects.requireNonNull(postStart, "postStart");
        Objects.requireNonNull(preStop, "preStop");
    }

    /** One hook handler: exactly one of {@code exec}, {@code httpGet}, {@code sleep}. */
    public sealed interface Hook permits Handler, Sleep {
        /** @return a short description, e.g. {@code sleep 5s} */
        String describe();
    }

    /**
     * {@code exec} or {@code httpGet}, in the shape of the probe handlers.
     *
     * @param handler a {@link ProbeHandler.Exec} or {@link ProbeHandler.HttpGet}
     */
    public record Handler(ProbeHandler handler) implements Hook {
        /**
         * Validates the components.
         *
         * @param handler a {@link ProbeHandler.Exec} or {@link ProbeHandler.HttpGet}
         * @throws IllegalArgumentException if a component is outside its documented range
         */
        public Handler {
            if (!handler.match(g -> true, t -> false, g -> false, e -> true)) {
                throw new IllegalArgumentException("a lifecycle hook is exec, httpGet or sleep, was " + handler.describe());
            }
        }

        @Override
        public String describe() {
            return handler.describe();
        }
    }

    /**
     * {@code sleep} (PodLifecycleSleepAction, GA in 1.34).
     *
     * @param seconds how long, ≥ 0
     */
    public record Sleep(long seconds) implements Hook {
        /**
         * Validates the components.
         *
         * @param seconds how long, ≥ 0
         * @throws IllegalArgumentException if a component is outside its documented range
         */
        public Sleep {
            if (seconds < 0) {
                throw new IllegalArgumentException("sleep.seconds must be ≥ 0, was " + seconds);
            }
        }

        @Override
        public String describe() {
            return "sleep " + seconds + "s";
        }

        /**
         * The API server's rule for a sleep hook (pkg/apis/core/validation: validateSleepAction): it must
         * not outlast the pod's grace period. One rule for the manifest's
         * {@code terminationGracePeriodSeconds} and a command-line override of it.
         *
         * @param field the hook's field, e.g. {@code spec.containers[0].lifecycle.preStop}
         * @param seconds the sleep, ≥ 0
         * @param gracePeriodSeconds the pod's terminationGracePeriodSeconds
         * @throws dev.vitals.kubesim.input.InvalidInputException when {@code seconds > gracePeriodSeconds}
         */
        public static void checkGrace(String field, long seconds, long gracePeriodSeconds) {
            if (seconds > gracePeriodSeconds) {
                throw new dev.vitals.kubesim.input.InvalidInputException(field + ".sleep.seconds: must be less than"
                        + " terminationGracePeriodSeconds of " + gracePeriodSeconds + ", was " + seconds);
            }
        }
    }

    /**
     * {@link Sleep#checkGrace} for both hooks, e.g. after a grace period given on the command line.
     *
     * @param field the lifecycle's field, e.g. {@code lifecycle}
     * @param gracePeriodSeconds the pod's terminationGracePeriodSeconds
     * @throws dev.vitals.kubesim.input.InvalidInputException when a sleep hook outlasts it
     */
    public void checkGrace(String field, long gracePeriodSeconds) {
        if (postStart.orElse(null) instanceof Sleep s) {
            Sleep.checkGrace(field + ".postStart", s.seconds(), gracePeriodSeconds);
        }
        if (preStop.orElse(null) instanceof Sleep s) {
            Sleep.checkGrace(field + ".preStop", s.seconds(), gracePeriodSeconds);
        }
    }
}
