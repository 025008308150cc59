package dev.vitals.kubesim.lint;

import dev.vitals.kubesim.model.Durations;
import dev.vitals.kubesim.model.PodSpec;
import dev.vitals.kubesim.model.ProbeSpec;
import dev.vitals.kubesim.model.ProbeType;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * L2 (needs {@code --startup-seconds}): a start-up of that length is killed by the startup or
 * liveness probe, computed by replaying the kubelet model ({@code KillPrediction}).
 */
final class StartupBudgetRule extends BaseRule {
    StartupBudgetRule() {
        super("L2", "startup-budget", Severity.ERROR, "with --startup-seconds: the probes kill a start-up that long, every time (CrashLoopBackOff)",
                "a start-up time is given (--startup-seconds, or the boot of a --from-run report) and the kubelet model replayed on it kills the container before it has started", Needs.MANIFEST);
    }

    @Override
    public void check(Target t, LintContext ctx, Consumer<Finding> out) {
        if (ctx.startupTime().isEmpty() || t.pod().isEmpty()) {
            return;
        }
        PodSpec pod = t.pod().get();
        Optional<ProbeSpec> start = pod.startup();
        if (pod.liveness().isEmpty() && start.isEmpty()) {
            return;
        }
        double need = Durations.seconds(ctx.startupTime().get());
        KillPrediction p = KillPrediction.of(pod, ctx.startupTime().get());
        if (p.killAt().isEmpty()) {
            return;
        }
        ProbeSpec killer = pod.probe(p.killer()).orElseThrow();
        int period = start.map(ProbeSpec::periodSeconds).orElse(killer.periodSeconds());
        int ft = (int) Math.ceil(need * 1.5 / period);
        String field = p.killer() == ProbeType.STARTUP ? "startupProbe.failureThreshold" : "livenessProbe";
        out.accept(t.finding(this, field, String.format(Locale.ROOT, "a container that needs %ss to start is killed by"
                + " the %s probe at %.1fs (first probe at %.1fs, %d failures %ds apart), and every restart is killed the"
                + " same way (CrashLoopBackOff)", fmt(need), p.killer().label(), p.killAt().get(), p.firstProbeAt(),
                killer.failureThreshold(), killer.periodSeconds()), "R16, R17, R25, R33, C11, C20",
                (start.isPresent() ? "startupProbe.failureThreshold " + ft + " at periodSeconds " + period
                        : "add a startupProbe on the liveness endpoint with periodSeconds " + period + " and failureThreshold "
                                + ft) + " (budget " + ft * period + "s ≥ 1.5 × " + fmt(need) + "s)"
                        + (start.isEmpty() ? ", and livenessProbe.initialDelaySeconds 0" : "")));
    }

    private static String fmt(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : String.format(Locale.ROOT, "%.1f", v);
    }
}
