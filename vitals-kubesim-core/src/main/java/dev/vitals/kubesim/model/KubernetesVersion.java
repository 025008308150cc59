package dev.vitals.kubesim.model;

import dev.vitals.kubesim.input.InvalidInputException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Kubernetes release a run stands for ({@code --kubernetes-version}), for the rules that
 * differ by release (docs/spec/kubelet-probes.md, "Versions"). Immutable.
 *
 * @param minor the minor release, e.g. 36 for 1.36
 * @param named true when the user named the release ({@link #parse}): it is modelled as shipped,
 *        with its known regressions; false for the default ({@link #NEWEST}), which stands for the
 *        release's documented rules
 */
public record KubernetesVersion(int minor, boolean named) {
    /** The oldest release the spec describes. */
    public static final int OLDEST_MINOR = 29;
    /** The newest release the spec covers. */
    public static final int NEWEST_MINOR = 37;
    /** The newest release the spec covers: the default. */
    public static final KubernetesVersion NEWEST = new KubernetesVersion(NEWEST_MINOR, false);
    private static final Pattern TEXT = Pattern.compile("v?1\\.(\\d{1,3})(?:\\.\\d+)?");

    /**
     * Validates the components.
     *
     * @param minor the minor release, e.g. 36 for 1.36
     * @param named whether the user named it
     * @throws InvalidInputException if a component is outside its documented range
     */
    public KubernetesVersion {
        if (minor < OLDEST_MINOR || minor > NEWEST_MINOR) {
            throw new InvalidInputException("--kubernetes-version must be 1." + OLDEST_MINOR + " to 1." + NEWEST_MINOR
                    + " (the releases the spec covers), was 1." + minor);
        }
    }

    /**
     * @param text e.g. {@code 1.34}, {@code v1.35.2}
     * @return the version
     * @throws InvalidInputException when not a covered 1.x release
     */
    public static KubernetesVersion parse(String text) {
        Matcher m = TEXT.matcher(text == null ? "" : text.trim());
        if (!m.matches()) {
            throw new InvalidInputException("--kubernetes-version: '" + text + "' is not a release like 1.34");
        }
        return new KubernetesVersion(Integer.parseInt(m.group(1)), true);
    }

    /**
     * @return whether a regular container's restartPolicy/restartPolicyRules are honoured (gate
     *         ContainerRestartRules: alpha and off in 1.34, beta and on from 1.35; with the gate off the
     *         API server drops the fields)
     */
    public boolean containerRestartRules() {
        return minor >= 35;
    }

    /**
     * @return whether a kubelet restart keeps Started and Ready of a container up for more than 10 s
     *         (R55: from 1.35; before, results go back to their initial values)
     */
    public boolean keepsStatusOnKubeletRestart() {
        return minor >= 35;
    }

    /**
     * @return whether the release's kubelet has the startup-gating regression of kubernetes#141155
     *         (1.35–1.37): with {@code ChangeContainerStatusOnKubeletRestart} off (the default since
     *         1.35), {@code convertToAPIContainerStatuses} (kubelet_pods.go) inherits {@code Started} from
     *         the previous status by container name without checking the container ID, so a container
     *         restarted after it had started is started at once and its liveness and readiness probes run
     *         before its startup probe succeeded (root cause as kubernetes#141179 states it). Fixed on
     *         master by kubernetes#141342; its cherry-picks to release-1.35, 1.36 and 1.37 (#142043,
     *         #142042, #142041) were open when this was written, so every release of the line counts as
     *         affected. Only a {@linkplain #named() named} release: the default stands for the documented
     *         rules. {@code simulate} and {@code fleet} model it ({@link KubeletOptions#startedInheritedOnContainerRestart()});
     *         lint L27 notes a manifest that relies on startup gating there.
     */
    public boolean startupGatingRegression() {
        return named && minor >= 35 && minor <= 37;
    }

    /** @return whether the baseline Pod Security level refuses {@code host} in probes and hooks (1.34+, KEP-4940) */
    public boolean baselineRefusesProbeHost() {
        return minor >= 34;
    }

    @Override
    public String toString() {
        return "1." + minor;
    }
}
