package dev.vitals.kubesim.model;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * A regular container's own {@code restartPolicy} and {@code restartPolicyRules} (KEP-5307,
 * gate ContainerRestartRules: alpha 1.34, beta and on by default from 1.35), which override
 * the pod's. Immutable.
 *
 * <p>Rules, as the kubelet applies them:
 * <ul>
 *   <li>after an exit ({@link #restartsAfterExit}): the rules in order, the first whose
 *       {@code exitCodes} match decides ({@code Restart}); else the container's policy; else
 *       the pod's (pkg/api/v1/pod/util.go ContainerShouldRestart);</li>
 *   <li>after a liveness or startup kill ({@link #restartsAfterProbeKill}): the container's
 *       policy alone, rules not evaluated, "because the container is still running" when the
 *       kubelet decides (kuberuntime_manager.go computePodActions); else the pod's.</li>
 * </ul>
 *
 * @param policy the container's {@code restartPolicy}, when written
 * @param rules its {@code restartPolicyRules}, in order
 */
public record ContainerRestart(Optional<RestartPolicy> policy, List<Rule> rules) {
    /** Neither field written: the pod's policy decides. */
    public static final ContainerRestart NONE = new ContainerRestart(Optional.empty(), List.of());

    /**
     * Validates the components and copies the collections (unmodifiable).
     *
     * @param policy the container's {@code restartPolicy}, when written
     * @param rules its {@code restartPolicyRules}, in order
     * @throws NullPointerException if a required component is null
     */
    public ContainerRestart {
        Objects.requireNonNull(policy, "policy");
        rules = List.copyOf(rules);
    }

    /**
     * One {@code restartPolicyRules} entry: {@code action: Restart} when the exit code is
     * {@code In} (or {@code NotIn}) {@code values}.
     *
     * @param action the action ({@code Restart}, the only one the API has)
     * @param in true for operator {@code In}, false for {@code NotIn}
     * @param values the exit codes
     */
    public record Rule(String action, boolean in, Set<Integer> values) {
        /**
         * Validates the components and copies the collections (unmodifiable).
         *
         * @param action the action ({@code Restart}, the only one the API has)
         * @param in true for operator {@code In}, false for {@code NotIn}
         * @param values the exit codes
         * @throws NullPointerException if a required component is null
         */
        public Rule {
            Objects.requireNonNull(action, "action");
            values = Set.copyOf(values);
        }

        /**
         * Tests one exit code against this rule's operator and values (KEP-5307: In or NotIn).
         *
         * @param exitCode the container's exit code
         * @return whether this rule applies to {@code exitCode}
         */
        public boolean matches(int exitCode) {
            return values.contains(exitCode) == in;
        }
    }

    /**
     * @param pod the pod's restart policy
     * @param exitCode the exit code of a container that exited by itself
     * @return whether the kubelet restarts it (ContainerShouldRestart)
     */
    public boolean restartsAfterExit(RestartPolicy pod, int exitCode) {
        if (policy.isPresent()) {
            for (Rule r : rules) {
                if (r.matches(exitCode)) {
                    if (r.action().equals("Restart")) {
                        return true;
                    }
                    break; // another action: fall back to the container's policy
                }
            }
            return policy.get().restartsAfterExit(exitCode);
        }
        return pod.restartsAfterExit(exitCode);
    }

    /**
     * @param pod the pod's restart policy
     * @return whether a container killed by liveness or startup is restarted
     */
    public boolean restartsAfterProbeKill(RestartPolicy pod) {
        return policy.orElse(pod) != RestartPolicy.NEVER;
    }

    private static String label(RestartPolicy p) {
        return p == RestartPolicy.ALWAYS ? "Always" : p == RestartPolicy.ON_FAILURE ? "OnFailure" : "Never";
    }

    /** @return e.g. {@code restartPolicy Never, restartPolicyRules: Restart on exit codes In [42]}, or empty text */
    public String describe() {
        if (policy.isEmpty()) {
            return "";
        }
        StringBuilder sb = new StringBuilder("container restartPolicy " + label(policy.get()));
        for (Rule r : rules) {
            sb.append(", ").append(r.action()).append(" on exit codes ").append(r.in() ? "In " : "NotIn ")
                    .append(new java.util.TreeSet<>(r.values()));
        }
        return sb.toString();
    }
}
