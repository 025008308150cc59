package dev.vitals.kubesim.lint;

import dev.vitals.kubesim.model.ProbeSpec;
import dev.vitals.kubesim.model.ProbeType;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * L21, the incident this project exists for, found without {@code --app-config}: liveness
 * (httpGet or grpc) and readiness ask the same port — the server that answers requests — and
 * liveness gives up no later than readiness ({@code failureThreshold × periodSeconds} at most
 * readiness's, as L4 and L16 count it; equal budgets only on a JVM, whose bounded request pool
 * fails both probes at once), counted also with every attempt timing out ({@link
 * Probes#timeoutBudgetSeconds}: kubelet spec R18, R22), where a long {@code timeoutSeconds} stretches
 * a probe's count. The fix (the smallest liveness failureThreshold that holds in both counts) is
 * checked by {@link FixCheck} like every other. When load slows that server (a full request pool, CPU
 * throttling, with or without a CPU limit) both probes fail together and the kubelet kills the pod
 * before readiness takes it out of its Service; with equal budgets both give up on the same tick
 * and the kill comes before the endpoint removal has propagated (kube-proxy, ingress
 * controllers). Its traffic moves to the next replica. Needs a Service selecting the pod.
 */
final class KillBeforeShedRule extends BaseRule {
    KillBeforeShedRule() {
        super("L21", "liveness-before-readiness", Severity.ERROR,
                "liveness gives up no later than readiness on the port that answers requests: a slow pod is restarted, never shed",
                "a Service in the input selects the pod, an httpGet or grpc liveness probe and the readiness probe ask the same"
                        + " port, and liveness gives up before readiness (or on the same tick, on a JVM), counting failureThreshold x periodSeconds"
                        + " and, when each attempt times out, timeoutSeconds too", Needs.SERVICE);
    }

    @Override
    public void check(Target t, LintContext ctx, Consumer<Finding> out) {
        Optional<ProbeSpec> live = t.probe(ProbeType.LIVENESS);
        Optional<ProbeSpec> ready = t.probe(ProbeType.READINESS);
        if (live.isEmpty() || ready.isEmpty() || !Probes.asksOverNetwork(live.get().handler())
                || ready.get().handler().asExec().isPresent() || !Probes.sameServer(t, live.get().handler(), ready.get().handler())) {
            return;
        }
        ProbeSpec l = live.get();
        ProbeSpec r = ready.get();
        AppRuntime rt = t.runtime();
        // two ways the server fails both probes: answers that come back failed at once (FT x P), and
        // attempts that time out (each lasts timeoutSeconds; spec R18, R22); either order kills first
        int kill = Probes.budgetSeconds(l);
        int shed = Probes.budgetSeconds(r);
        int killTimingOut = Probes.timeoutBudgetSeconds(l);
        int shedTimingOut = Probes.timeoutBudgetSeconds(r);
        boolean failing = killsFirst(kill, shed, rt);
        boolean timingOut = killsFirst(killTimingOut, shedTimingOut, rt);
        if (!failing && !timingOut) {
            return; // equal budgets: a JVM's bounded request pool only (a Go or unknown server is not guessed to block its probes)
        }
        int port = Probes.port(t, l.handler()).getAsInt();
        Probes.LivenessFix fix = Probes.LivenessFix.of(l, r);
        String server = rt.jvm() ? "the request pool of the " + rt.application() + " on port " + port
                : "the server on port " + port + (rt.kind() == AppRuntime.Kind.UNKNOWN ? " (unknown runtime)" : "");
        int k = failing ? kill : killTimingOut;
        int s = failing ? shed : shedTimingOut;
        String order = failing
                ? "liveness gives up after " + kill + "s (failureThreshold " + Probes.budget(l) + "), readiness after " + shed
                        + "s (failureThreshold " + Probes.budget(r) + ")"
                : "when each probe times out, liveness gives up after " + killTimingOut + "s (" + Probes.timeoutBudget(l)
                        + "), readiness after " + shedTimingOut + "s (" + Probes.timeoutBudget(r) + ")";
        out.accept(t.finding(this, "livenessProbe.failureThreshold", order + ", both asked of "
                + server + ": when load makes it slow, both fail together and the pod is restarted "
                + (k == s ? "on the same tick readiness fails, before its removal from the Service's endpoints has propagated"
                        : (s - k) + "s before it would have been taken out of its Service")
                + ", and its traffic moves to the next replica",
                "R18, R22, R25, R26, R38, C05, C25",
                fix.text() + ", so readiness sheds first"
                        + (rt.jvm() ? "; better, answer liveness off the request pool (Vitals /livez on its own port)" : ""),
                Finding.Patch.set("livenessProbe.failureThreshold", fix.failureThreshold())));
    }

    /** @return whether liveness acts first: strictly sooner, or on the same tick for a JVM's bounded request pool */
    private static boolean killsFirst(int kill, int shed, AppRuntime rt) {
        return kill < shed || kill == shed && rt.jvm();
    }
}
