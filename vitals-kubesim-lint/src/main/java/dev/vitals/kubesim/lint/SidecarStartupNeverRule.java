package dev.vitals.kubesim.lint;

import dev.vitals.kubesim.manifest.ManifestReader;
import dev.vitals.kubesim.model.ProbeType;
import java.util.function.Consumer;

/**
 * L20: a sidecar (an init container with {@code restartPolicy: Always}) with a startup probe
 * in a pod whose {@code restartPolicy} is Never. A sidecar is restarted whatever the pod's
 * policy: one that fails its startup probe is killed and started again, with back-off, for as
 * long as the pod lives, and the regular containers never start (kubelet:
 * {@code pkg/kubelet/kuberuntime/kuberuntime_manager.go} computeInitContainerActions, the
 * restartable init container "failed startup probe" branch, which never reads the pod's
 * policy). A Never pod — a Job's, typically — that would fail on a failing regular init
 * container instead hangs in initialisation.
 */
final class SidecarStartupNeverRule extends BaseRule {
    SidecarStartupNeverRule() {
        super("L20", "sidecar-startup-in-never-pod", Severity.WARNING, "a sidecar's startup probe in a restartPolicy Never pod: a failing sidecar restarts forever and the pod hangs in init",
                "a sidecar (init container, restartPolicy Always) has a startupProbe in a pod with restartPolicy Never", Needs.MANIFEST);
    }

    @Override
    public void check(Target t, LintContext ctx, Consumer<Finding> out) {
        if (t.role() != ManifestReader.Role.SIDECAR || t.probe(ProbeType.STARTUP).isEmpty()
                || !"Never".equals(t.podSpecNode().path("restartPolicy").asText("Always"))) {
            return;
        }
        out.accept(t.finding(this, ProbeType.STARTUP.fieldName(), "sidecar's startup probe in a pod with restartPolicy Never:"
                + " a sidecar that fails it is killed and restarted with back-off for as long as the pod lives (the pod's"
                + " policy does not apply to sidecars), so the pod never fails and its containers never start",
                "kuberuntime_manager.go computeInitContainerActions",
                "bound the pod (a Job's activeDeadlineSeconds), or make the startup budget cover the sidecar's slowest start"));
    }
}
