package dev.vitals.kubesim.lint;

import dev.vitals.kubesim.model.ProbeSpec;
import dev.vitals.kubesim.model.ProbeType;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * L3: liveness gives up sooner than readiness on the same server. Load slows both probes
 * alike when one port answers them, so the shorter liveness timeout fails first and the pod is
 * restarted where shedding traffic would have done. Not fired when the probes reach different
 * ports (a probe server of their own) or are exec probes.
 */
final class LivenessTimeoutRule extends BaseRule {
    LivenessTimeoutRule() {
        super("L3", "liveness-timeout", Severity.WARNING, "liveness timeoutSeconds shorter than readiness's on the same port",
                "a Service in the input selects the pod, an httpGet or grpc liveness probe and the readiness probe reach the same port, and liveness timeoutSeconds is shorter", Needs.SERVICE);
    }

    @Override
    public void check(Target t, LintContext ctx, Consumer<Finding> out) {
        Optional<ProbeSpec> live = t.probe(ProbeType.LIVENESS);
        Optional<ProbeSpec> ready = t.probe(ProbeType.READINESS);
        if (live.isEmpty() || ready.isEmpty() || live.get().timeoutSeconds() >= ready.get().timeoutSeconds()
                || !Probes.asksOverNetwork(live.get().handler())
                || !Probes.sameServer(t, live.get().handler(), ready.get().handler())) {
            return;
        }
        int to = ready.get().timeoutSeconds();
        out.accept(t.finding(this, "livenessProbe.timeoutSeconds", "liveness timeout " + live.get().timeoutSeconds()
                + "s is shorter than readiness timeout " + to + "s on the same port: under load"
                + " both wait in the same queue and liveness gives up first, so the pod is restarted where shedding"
                + " traffic would have done", "R59, C05",
                "set livenessProbe.timeoutSeconds to at least " + to, Finding.Patch.set("livenessProbe.timeoutSeconds", to)));
    }
}
