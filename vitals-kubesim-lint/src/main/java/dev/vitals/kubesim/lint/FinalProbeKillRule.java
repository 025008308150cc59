package dev.vitals.kubesim.lint;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vitals.kubesim.manifest.ManifestReader;
import dev.vitals.kubesim.model.ProbeType;
import java.util.function.Consumer;

/**
 * L19: a regular container whose liveness or startup probe can kill it, under a restart
 * policy that never restarts it after that kill: the first probe kill is final. After a probe
 * kill the kubelet restarts the container only when its policy restarts on failure
 * (kubelet: {@code pkg/kubelet/kuberuntime/kuberuntime_manager.go} computePodActions,
 * {@code restart := shouldRestartOnFailure(pod)}); a container's own {@code restartPolicy}
 * (KEP-5307, from 1.35) takes the pod's place, and its {@code restartPolicyRules} match exit
 * codes of exits, never a probe kill.
 */
final class FinalProbeKillRule extends BaseRule {
    FinalProbeKillRule() {
        super("L19", "final-probe-kill", Severity.WARNING, "a liveness or startup probe under restartPolicy Never: its first kill is final, the container never comes back",
                "a regular container with a liveness or startup probe whose effective restart policy is Never", Needs.MANIFEST);
    }

    @Override
    public void check(Target t, LintContext ctx, Consumer<Finding> out) {
        if (t.role() != ManifestReader.Role.CONTAINER) {
            return;
        }
        JsonNode own = t.container().path("restartPolicy");
        boolean containerDecides = ctx.version().containerRestartRules() && own.isTextual();
        String policy = containerDecides ? own.asText() : t.podSpecNode().path("restartPolicy").asText("Always");
        if (!"Never".equals(policy)) {
            return;
        }
        String whose = containerDecides ? "the container's restartPolicy Never" : "the pod's restartPolicy Never";
        boolean rules = containerDecides && t.container().path("restartPolicyRules").size() > 0;
        for (ProbeType type : new ProbeType[] {ProbeType.LIVENESS, ProbeType.STARTUP}) {
            if (t.probe(type).isEmpty()) {
                continue;
            }
            out.accept(t.finding(this, type.fieldName(), type.label() + " probe can kill this container, and under " + whose
                    + " the kubelet never restarts it after a probe kill: the first kill is final"
                    + (rules ? " (its restartPolicyRules match exit codes of exits, never a probe kill)" : ""),
                    "kuberuntime_manager.go computePodActions; KEP-5307",
                    "drop the " + type.fieldName() + " (a run-to-completion container has nothing a restart cures), or"
                            + " set restartPolicy OnFailure on the container (1.35+) or the pod",
                    c -> c.remove(type.fieldName())));
        }
    }
}
