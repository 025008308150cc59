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
 * pod waits for it) do not fire.
 */
final class NoReadinessRule extends BaseRule {
    private static final Set<String> BATCH = Set.of("Job", "CronJob");
    /** Port names that serve no user traffic: a Service for scraping does not need the pod Ready. */
    private static final java.util.regex.Pattern METRICS = java.util.regex.Pattern.compile(
            "(?i).*(metrics|prometheus|prom|monitoring|health|admin|debug|pprof|profiler|jmx|management|exporter).*");
    /** Databases that run as one replica in demos: nothing to shed to. */
    private static final java.util.regex.Pattern DATABASE = java.util.regex.Pattern.compile(
            "(^|[/_.-])(postgres|postgresql|mysql|mariadb|mongo|mongodb|redis|valkey|cassandra|memcached|etcd|zookeeper"
                    + "|cockroach|cockroachdb|influxdb|neo4j|couchdb|elasticsearch|opensearch|rabbitmq|nats|[a-z0-9]+-db)($|[/_.:-])");

    NoReadinessRule() {
        super("L8", "no-readiness-probe", Severity.WARNING, "no container of a long-running pod has a readinessProbe, and one serves a port",
                "a Service in the input selects the pod, no container has a readinessProbe, and one serves a port that is not metrics-only; not a Job, not a one-replica database", Needs.SERVICE);
    }

    private static boolean metricsOnly(Target t) {
        for (com.fasterxml.jackson.databind.JsonNode p : t.container().path("ports")) {
            if (!METRICS.matcher(p.path("name").asText("")).matches()) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void check(Target t, LintContext ctx, Consumer<Finding> out) {
        if (t.role() != ManifestReader.Role.CONTAINER || BATCH.contains(t.kind()) || t.declaredPorts().isEmpty()
                || t.container().has("readinessProbe") || metricsOnly(t)) {
            return;
        }
        if (t.replicas().orElse(1) <= 1 && (DATABASE.matcher(AppRuntime.imageName(t.container().path("image").asText(""))).find()
                || DATABASE.matcher(t.containerName()).find())) {
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
