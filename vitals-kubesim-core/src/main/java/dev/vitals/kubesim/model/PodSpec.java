package dev.vitals.kubesim.model;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The part of a pod the simulator needs: one container's probes and ports, plus pod-level
 * restart policy and grace period (R6). Immutable.
 *
 * @param containerName the container's name
 * @param ports container port names to numbers ({@code ports[].name → containerPort}, R56)
 * @param startup the startup probe, if any
 * @param liveness the liveness probe, if any
 * @param readiness the readiness probe, if any
 * @param restartPolicy the pod's restart policy (default Always)
 * @param terminationGracePeriodSeconds the pod's grace period (default 30)
 * @param env the container's static environment ({@code env[].value}), for {@code $(VAR)}
 *        expansion of exec probe commands (R68, {@link EnvExpansion})
 * @param containerRestart the container's own restartPolicy and restartPolicyRules (KEP-5307), overriding
 *        {@code restartPolicy}; {@link ContainerRestart#NONE} when not written
 * @param lifecycle the container's postStart and preStop hooks ({@link Lifecycle#NONE} when not written)
 */
public record PodSpec(String containerName, Map<String, Integer> ports, Optional<ProbeSpec> startup,
        Optional<ProbeSpec> liveness, Optional<ProbeSpec> readiness, RestartPolicy restartPolicy,
        long terminationGracePeriodSeconds, Map<String, String> env, ContainerRestart containerRestart, Lifecycle lifecycle) {

    /**
     * Checks the components and copies the maps.
     *
     * @param containerName the container's name
     * @param ports container port names to numbers ({@code ports[].name → containerPort}, R56)
     * @param startup the startup probe, if any
     * @param liveness the liveness probe, if any
     * @param readiness the readiness probe, if any
     * @param restartPolicy the pod's restart policy (default Always)
     * @param terminationGracePeriodSeconds the pod's grace period (default 30)
     * @param env the container's static environment ({@code env[].value}), for {@code $(VAR)} expansion of exec
     *        probe commands (R68, {@link EnvExpansion})
     * @param containerRestart the container's own restartPolicy and restartPolicyRules (KEP-5307), overriding
     *        {@code
     *        restartPolicy}; {@link ContainerRestart#NONE} when not written
     * @param lifecycle the container's postStart and preStop hooks ({@link Lifecycle#NONE} when not written)
     * @throws NullPointerException if a component but {@code ports}' and {@code env}'s entries is null
     */
    public PodSpec {
        Objects.requireNonNull(lifecycle, "lifecycle");
        Objects.requireNonNull(containerName, "containerName");
        ports = Map.copyOf(ports);
        env = Map.copyOf(env);
        Objects.requireNonNull(startup, "startup");
        Objects.requireNonNull(liveness, "liveness");
        Objects.requireNonNull(readiness, "readiness");
        Objects.requireNonNull(restartPolicy, "restartPolicy");
        Objects.requireNonNull(containerRestart, "containerRestart");
    }

    /**
     * A pod whose container has no lifecycle hooks.
     *
     * @param containerName the container's name
     * @param ports container port names to numbers
     * @param startup the startup probe, if any
     * @param liveness the liveness probe, if any
     * @param readiness the readiness probe, if any
     * @param restartPolicy the pod's restart policy
     * @param terminationGracePeriodSeconds the pod's grace period, seconds
     * @param env the container's static environment
     * @param containerRestart the container's own restart policy and rules
     */
    public PodSpec(String containerName, Map<String, Integer> ports, Optional<ProbeSpec> startup,
            Optional<ProbeSpec> liveness, Optional<ProbeSpec> readiness, RestartPolicy restartPolicy,
            long terminationGracePeriodSeconds, Map<String, String> env, ContainerRestart containerRestart) {
        this(containerName, ports, startup, liveness, readiness, restartPolicy, terminationGracePeriodSeconds, env,
                containerRestart, Lifecycle.NONE);
    }

    /**
     * A pod whose container has no restart policy of its own and no lifecycle hooks.
     *
     * @param containerName the container's name
     * @param ports container port names to numbers
     * @param startup the startup probe, if any
     * @param liveness the liveness probe, if any
     * @param readiness the readiness probe, if any
     * @param restartPolicy the pod's restart policy
     * @param terminationGracePeriodSeconds the pod's grace period, seconds
     * @param env the container's static environment
     */
    public PodSpec(String containerName, Map<String, Integer> ports, Optional<ProbeSpec> startup,
            Optional<ProbeSpec> liveness, Optional<ProbeSpec> readiness, RestartPolicy restartPolicy,
            long terminationGracePeriodSeconds, Map<String, String> env) {
        this(containerName, ports, startup, liveness, readiness, restartPolicy, terminationGracePeriodSeconds, env,
                ContainerRestart.NONE);
    }

    /**
     * A pod whose container has no environment, no restart policy of its own and no lifecycle hooks.
     *
     * @param containerName the container's name
     * @param ports container port names to numbers
     * @param startup the startup probe, if any
     * @param liveness the liveness probe, if any
     * @param readiness the readiness probe, if any
     * @param restartPolicy the pod's restart policy
     * @param terminationGracePeriodSeconds the pod's grace period, seconds
     */
    public PodSpec(String containerName, Map<String, Integer> ports, Optional<ProbeSpec> startup,
            Optional<ProbeSpec> liveness, Optional<ProbeSpec> readiness, RestartPolicy restartPolicy,
            long terminationGracePeriodSeconds) {
        this(containerName, ports, startup, liveness, readiness, restartPolicy, terminationGracePeriodSeconds, Map.of());
    }

    /**
     * The probe of one type.
     *
     * @param type startup, liveness or readiness
     * @return the probe of that type, if configured
     */
    public Optional<ProbeSpec> probe(ProbeType type) {
        return type.pick(startup, liveness, readiness);
    }

    /**
     * This pod with another restart policy and grace period.
     *
     * @param policy the pod's restart policy
     * @param graceSeconds the pod's terminationGracePeriodSeconds
     * @return a pod with the same probes and another restart policy / grace
     */
    public PodSpec with(RestartPolicy policy, long graceSeconds) {
        return new PodSpec(containerName, ports, startup, liveness, readiness, policy, graceSeconds, env, containerRestart, lifecycle);
    }

    /**
     * This pod with another container environment.
     *
     * @param environment the container's static environment, variable names to values
     * @return a pod with the same probes and this container environment
     */
    public PodSpec withEnv(Map<String, String> environment) {
        return new PodSpec(containerName, ports, startup, liveness, readiness, restartPolicy,
                terminationGracePeriodSeconds, environment, containerRestart, lifecycle);
    }

    /**
     * This pod with another container-level restart policy.
     *
     * @param restart the container's restartPolicy and restartPolicyRules (KEP-5307)
     * @return a pod with the same probes and this container-level restart policy and rules
     */
    public PodSpec withContainerRestart(ContainerRestart restart) {
        return new PodSpec(containerName, ports, startup, liveness, readiness, restartPolicy,
                terminationGracePeriodSeconds, env, restart, lifecycle);
    }

    /**
     * This pod with other lifecycle hooks.
     *
     * @param hooks the container's postStart and preStop hooks
     * @return a pod with the same probes and these lifecycle hooks
     */
    public PodSpec withLifecycle(Lifecycle hooks) {
        return new PodSpec(containerName, ports, startup, liveness, readiness, restartPolicy,
                terminationGracePeriodSeconds, env, containerRestart, hooks);
    }

    /**
     * A pod with kubelet's pod-level defaults: restartPolicy Always, terminationGracePeriodSeconds 30.
     *
     * @param containerName the container's name
     * @param ports container port names to numbers
     * @param startup the startup probe, if any
     * @param liveness the liveness probe, if any
     * @param readiness the readiness probe, if any
     * @return a pod with default pod-level values (Always, 30 s)
     */
    public static PodSpec of(String containerName, Map<String, Integer> ports, Optional<ProbeSpec> startup,
            Optional<ProbeSpec> liveness, Optional<ProbeSpec> readiness) {
        return new PodSpec(containerName, ports, startup, liveness, readiness, RestartPolicy.ALWAYS, 30);
    }
}
