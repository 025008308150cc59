package dev.vitals.kubesim.lint;

import dev.vitals.kubesim.model.ProbeSpec;
import dev.vitals.kubesim.model.ProbeType;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * L27: on a release with the startup-gating regression (kubernetes#141155, 1.35–1.37,
 * {@link dev.vitals.kubesim.model.KubernetesVersion#startupGatingRegression()}), a container whose
 * liveness would kill a start that its startupProbe allows: initialDelaySeconds + failureThreshold ×
 * periodSeconds of liveness is shorter than the startup probe's. The first start is covered; a
 * container restarted after it had started inherits {@code Started} and is probed for liveness at
 * once, so a replacement that starts as slowly as the startup budget allows is killed again.
 */
final class StartupGatingRule extends BaseRule {
    StartupGatingRule() {
        super("L27", "startup-gating-regression", Severity.INFO,
                "on 1.35-1.37 (kubernetes#141155) a restarted container is not gated by its startupProbe; liveness allows less time",
                "--kubernetes-version names 1.35, 1.36 or 1.37, the container has a startupProbe, and liveness gives up"
                        + " sooner after the start than the startupProbe allows",
                Needs.MANIFEST);
    }

    @Override
    public void check(Target t, LintContext ctx, Consumer<Finding> out) {
        Optional<ProbeSpec> startup = t.probe(ProbeType.STARTUP);
        Optional<ProbeSpec> live = t.probe(ProbeType.LIVENESS);
        if (!ctx.version().startupGatingRegression() || startup.isEmpty() || live.isEmpty()) {
            return;
        }
        long allowed = budget(startup.get());
        long killedAfter = budget(live.get());
        if (killedAfter >= allowed) {
            return;
        }
        out.accept(t.finding(this, "startupProbe", "Kubernetes " + ctx.version() + " (kubernetes#141155, fixed upstream by #141342,"
                + " not yet in every patch release): a container restarted after it had started inherits Started, so liveness"
                + " probes it at once: liveness allows " + killedAfter + "s, the startupProbe " + allowed + "s, and a replacement"
                + " slower than " + killedAfter + "s is killed again", "R30, kubernetes#141155",
                "run a patch release with the fix, or give liveness the start's time too (initialDelaySeconds or failureThreshold),"
                        + " or keep liveness off the start's path (a probe that answers while the application starts)"));
    }

    /** @return seconds from the container's start until the probe gives up: initialDelaySeconds + failureThreshold × periodSeconds */
    private static long budget(ProbeSpec p) {
        return p.initialDelaySeconds() + (long) p.failureThreshold() * p.periodSeconds();
    }
}
