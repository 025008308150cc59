package dev.vitals.kubesim.lint;

import dev.vitals.kubesim.model.ProbeSpec;
import dev.vitals.kubesim.model.ProbeType;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * L24 (issue 35): sticky routing in front of pods whose liveness probe is answered by the
 * application's request pool. {@code sessionAffinity: ClientIP} (kube-proxy keeps a client IP on
 * one endpoint), {@code internalTrafficPolicy: Local} / {@code trafficDistribution: PreferSameNode}
 * (callers on a node reach that node's pods), or an ingress-nginx cookie or hash affinity pin a
 * burst from one client to one pod; when that burst fills the pod's pool, its liveness probe
 * waits in the same queue, the pod is restarted, leaves the endpoints, and the whole burst moves
 * to the next pod. Silent when liveness asks a port the Service does not route to (a probe server
 * of its own). Read from the input's Service and Ingress objects.
 */
final class StickyRoutingRule extends BaseRule {
    StickyRoutingRule() {
        super("L24", "sticky-routing-shared-liveness", Severity.WARNING,
                "sticky routing (ClientIP affinity, node-local, ingress cookie or hash) fronts pods whose liveness shares the request pool",
                "a Service selecting the pod pins clients (sessionAffinity ClientIP, internalTrafficPolicy Local, trafficDistribution"
                        + " PreferSameNode) or an ingress-nginx Ingress sends to it with cookie or hash affinity, and the pod's httpGet"
                        + " or grpc liveness probe asks a port that Service routes requests to", Needs.SERVICE);
    }

    @Override
    public void check(Target t, LintContext ctx, Consumer<Finding> out) {
        Optional<ProbeSpec> live = t.probe(ProbeType.LIVENESS);
        if (live.isEmpty() || !Probes.asksOverNetwork(live.get().handler()) || live.get().handler().host().isPresent()) {
            return;
        }
        if (ctx.hasAppConfig()) {
            Optional<AppHealth.Endpoint> e = AppProbes.endpoint(t, ctx, ProbeType.LIVENESS);
            if (e.isPresent() && (e.get().vitals() || !e.get().appPort())) {
                return; // answered by a probe server of its own
            }
        }
        AppRuntime rt = t.runtime();
        // a candidate: judged against the input's Services and Ingresses in resolve()
        out.accept(t.finding(this, Probes.endpointField(ProbeType.LIVENESS, live.get().handler()), "its liveness probe ("
                + live.get().handler().describe() + ") is answered by the " + (rt.jvm() ? "request pool of the " + rt.application()
                : "server that answers requests") + ": a burst pinned to this pod fills it, liveness times out, the pod is"
                + " restarted and the whole burst moves to the next pod", "C05, issue 35",
                "move liveness off the request pool (" + (rt.jvm() ? "Vitals /livez on its own port, or" : "")
                        + " a probe port of its own the Service does not route to), or drop the affinity"));
    }

    @Override
    boolean candidatesOnly() {
        return true;
    }

    @Override
    Optional<Finding> resolve(Finding f, PodRef pod, Routing routing) {
        if (pod.livenessPort().isEmpty()) {
            return Optional.empty();
        }
        int port = pod.livenessPort().getAsInt();
        List<String> pins = new ArrayList<>();
        Routing.Service first = null;
        int line = 0;
        String file = f.file();
        for (Routing.Service s : routing.selecting(pod.namespace(), pod.labels())) {
            if (!s.routesTo(port, pod.namedPorts())) {
                continue;
            }
            for (java.util.Map.Entry<String, Integer> p : s.pinning().entrySet()) {
                pins.add("Service/" + s.name() + " " + p.getKey());
                if (first == null) {
                    first = s;
                    file = s.file();
                    line = p.getValue();
                }
            }
            for (Routing.Ingress i : routing.ingresses()) {
                if (i.namespace().equals(s.namespace()) && i.services().contains(s.name())) {
                    pins.add("Ingress/" + i.name() + " " + i.pinning());
                    if (first == null) {
                        first = s;
                        file = i.file();
                        line = i.line();
                    }
                }
            }
        }
        if (pins.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new Finding(f.rule(), f.name(), f.severity(), file, line, f.object(), f.container(), f.field(),
                String.join(", ", pins) + " pins each client to one pod, and " + f.message(), f.refs(), f.fix()));
    }
}
