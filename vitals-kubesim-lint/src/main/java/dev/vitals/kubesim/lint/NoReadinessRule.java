package dev.vitals.kubesim.lint;

import dev.vitals.kubesim.manifest.ManifestReader;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * L8: a pod of a long-running workload where no container has a readinessProbe, and a
 * container serves traffic (declares a containerPort). The pod counts as Ready the moment its
 * containers start, so traffic arrives before the application listens, and an overloaded or
 * broken replica is never taken out of the Service. Reported once per pod, at its first
 * serving container. Jobs, CronJobs, and pods where any container has a readinessProbe (the
 * pod waits for it) do not fire; nor do containers whose every port serves no users, or one
 * replica of a datastore or broker: both by the one table {@link WellKnownPort}.
 */
final class NoReadinessRule extends BaseRule {
    private static final Set<String> BATCH = Set.of("Job", "CronJob");
    NoReadinessRule() {
        super("L8", "no-readiness-probe", Severity.WARNING, "no container of a long-running pod has a readinessProbe, and one serves a port",
                "a Service in the input selects the pod, no container has a readinessProbe, and one serves a port that is not metrics-only; not a Job, not a one-replica database", Needs.SERVICE);
    }

    /** @return whether every port of the container is a {@link WellKnownPort.Use#NOT_SERVING} one (metrics, health, admin) */
    private static boolean notServing(Target t) {
        for (com.fasterxml.jackson.databind.JsonNode p : t.container().path("ports")) {
            Optional<WellKnownPort> row = WellKnownPort.ofPort(p.path("name").asText(""), p.path("containerPort").asInt(0));
            if (row.isEmpty() || row.get().use() != WellKnownPort.Use.NOT_SERVING) {
                return false;
            }
        }
        return true;
    }

    /** @return whether the container is a datastore or broker by its image, its name or one of its ports */
    private static boolean store(Target t) {
        if (WellKnownPort.storeNamed(AppRuntime.imageName(t.container().path("image").asText(""))).isPresent()
                || WellKnownPort.storeNamed(t.containerName()).isPresent()) {
            return true;
        }
        for (com.fasterxml.jackson.databind.JsonNode p : t.container().path("ports")) {
            Optional<WellKnownPort> row = WellKnownPort.ofPort(p.path("name").asText(""), p.path("containerPort").asInt(0));
            if (row.isPresent() && row.get().use() == WellKnownPort.Use.ONE_REPLICA_STORE) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void check(Target t, LintContext ctx, Consumer<Finding> out) {
        if (t.role() != ManifestReader.Role.CONTAINER || BATCH.contains(t.kind()) || t.declaredPorts().isEmpty()
                || t.container().has("readinessProbe") || notServing(t)) {
            return;
        }
        if (t.replicas().orElse(1) <= 1 && store(t)) {
            return; // a one-replica database: no other replica to send its traffic to
        }
        // the pod's Ready condition: if any container has a readiness probe, the pod waits for it; report a pod
        // without any once, at its first serving container
        for (com.fasterxml.jackson.databind.JsonNode c : t.entry().podSpec().path("containers")) {
            if (c.has("readinessProbe")) {
                return;
            }
            if (c != t.container() && c.path("ports").size() > 0) {
                return;
            }
            if (c == t.container()) {
                break;
            }
        }
        int port = t.declaredPorts().iterator().next();
        Optional<dev.vitals.kubesim.model.ProbeSpec> live = t.probe(dev.vitals.kubesim.model.ProbeType.LIVENESS);
        boolean grpc = live.map(l -> l.handler().match(g -> false, x -> false, g -> true, e -> false)).orElse(false);
        com.fasterxml.jackson.databind.node.ObjectNode ready = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance
                .objectNode();
        if (grpc) {
            ready.putObject("grpc").put("port", port).put("service", "readiness");
        } else {
            ready.putObject("tcpSocket").put("port", port);
        }
        String timing = "";
        if (live.isPresent()) {
            // shed before liveness kills: the same period, one failure fewer (L21's order)
            int p = live.get().periodSeconds();
            int ft = live.get().failureThreshold();
            int period = ft > 1 ? p : Math.max(1, p - 1);
            int threshold = Math.max(1, ft - 1);
            ready.put("periodSeconds", period).put("failureThreshold", threshold);
            timing = ", periodSeconds " + period + ", failureThreshold " + threshold + " (it sheds before liveness kills)";
        }
        String least = (grpc ? "grpc {port: " + port + ", service: readiness}" : "tcpSocket {port: " + port + "}") + timing;
        out.accept(t.finding(this, "ports", "no container of the pod has a readinessProbe, and this one serves port"
                + (t.declaredPorts().size() > 1 ? "s " : " ") + t.declaredPorts().toString().replaceAll("[\\[\\]]", "")
                + ": the pod is Ready as soon as its containers start, before the application listens, and a replica that"
                + " cannot serve is never taken out of its Service", "R36, R38",
                "add a readinessProbe: at least " + least + " (accepting connections); better, one that checks what requests"
                        + " need", Finding.Patch.set("readinessProbe", ready)));
    }
}
