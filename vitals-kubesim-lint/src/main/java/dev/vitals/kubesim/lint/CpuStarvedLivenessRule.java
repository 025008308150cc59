package dev.vitals.kubesim.lint;

import dev.vitals.kubesim.input.InvalidInputException;
import dev.vitals.kubesim.model.ProbeSpec;
import dev.vitals.kubesim.model.ProbeType;
import dev.vitals.kubesim.model.Resources;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * L16: under a CPU limit, liveness gives up before readiness (case C25). A throttled JVM is
 * slow on every endpoint at once, so separate endpoints do not keep the two probes apart:
 * when liveness' failureThreshold × periodSeconds is at most readiness', a CPU-starved pod is
 * restarted before it is taken out of its Service. Fires only where L4 does not (separate
 * endpoints, no dependency in liveness) and the container sets {@code resources.limits.cpu}.
 * Same fix arithmetic as L4.
 */
final class CpuStarvedLivenessRule extends BaseRule {
    CpuStarvedLivenessRule() {
        super("L16", "cpu-starved-liveness", Severity.WARNING, "under a CPU limit, liveness gives up no later than readiness: a throttled pod is restarted before it is shed",
                "a Service in the input selects the pod, the container runs a JVM and sets limits.cpu, liveness is httpGet or grpc on an endpoint of its own, and liveness failureThreshold x periodSeconds is at most readiness's", Needs.SERVICE);
    }

    @Override
    public void check(Target t, LintContext ctx, Consumer<Finding> out) {
        Optional<ProbeSpec> live = t.probe(ProbeType.LIVENESS);
        Optional<ProbeSpec> ready = t.probe(ProbeType.READINESS);
        String cpu = t.container().path("resources").path("limits").path("cpu").asText("");
        if (live.isEmpty() || ready.isEmpty() || cpu.isEmpty()) {
            return;
        }
        try {
            Resources.cpuMillis("limits.cpu", cpu);
        } catch (InvalidInputException e) {
            return; // not a quantity: the API server's business, not this rule's
        }
        ProbeSpec l = live.get();
        ProbeSpec r = ready.get();
        if (!t.runtime().jvm()) {
            return; // C25 is a JVM's: GC and JIT threads share the quota with request threads; unknown runtimes are not guessed
        }
        if (!Probes.asksOverNetwork(l.handler())) {
            return; // tcpSocket: the kernel completes the connect for a throttled process; exec: not its server
        }
        if (Probes.sameEndpoint(t, l.handler(), r.handler()) || !LivenessDependencyRule.dependencies(t, ctx).isEmpty()) {
            return; // L4's case
        }
        Optional<Probes.KillBeforeShed> order = Probes.KillBeforeShed.of(l, r);
        if (order.isEmpty() || Probes.sameServer(t, l.handler(), r.handler())) { // a JVM here: L21 takes equal budgets too
            return; // none, or L21's error (liveness no later than readiness on the port that answers readiness)
        }
        Probes.LivenessFix liveFix = Probes.LivenessFix.of(l, r);
        int killAfter = order.get().killAfter();
        int shedAfter = order.get().shedAfter();
        String fix = liveFix.text() + "; then check the boot and probe latency under the"
                + " limit with vitals simulate (it applies limits.cpu)";
        String who = "JVM";
        out.accept(t.finding(this, "livenessProbe.failureThreshold", "under limits.cpu " + cpu + " a CPU-starved " + who + " is slow on"
                + " every endpoint at once: liveness gives up after about " + killAfter + "s (failureThreshold " + Probes.budget(l)
                + ") while readiness needs " + shedAfter + "s (failureThreshold " + Probes.budget(r)
                + ") to take the pod out of service, so throttling restarts the pod before it sheds its traffic",
                "C25, R25, R26, R38", fix, Finding.Patch.set("livenessProbe.failureThreshold", liveFix.failureThreshold())));
    }
}
