package dev.vitals.kubesim.lint;

import dev.vitals.kubesim.manifest.ManifestReader;
import java.util.Set;
import java.util.function.Consumer;

/**
 * L8: a serving container (it declares a containerPort) of a long-running workload without a
 * readinessProbe. The pod counts as Ready the moment the container starts, so traffic arrives
 * before the application listens, and an overloaded or broken replica is never taken out of
 * the Service. Jobs, CronJobs, init containers and containers without ports do not fire.
 */
final class NoReadinessRule implements Rule {
    private static final Set<String> BATCH = Set.of("Job", "CronJob");

    @Override
    public String id() {
        return "L8";
    }

    @Override
    public String name() {
        return "no-readiness-probe";
    }

    @Override
    public Severity severity() {
        return Severity.WARNING;
    }

    @Override
    public String summary() {
        return "serving container (declares a port) of a long-running workload without a readinessProbe";
    }

    @Override
    public void check(Target t, LintContext ctx, Consumer<Finding> out) {
        if (t.role() != ManifestReader.Role.CONTAINER || BATCH.contains(t.kind()) || t.declaredPorts().isEmpty()
                || t.container().has("readinessProbe")) {
            return;
        }
        int port = t.declaredPorts().iterator().next();
        String example = t.probe(dev.vitals.kubesim.model.ProbeType.LIVENESS).map(l -> l.handler())
                .filter(h -> !(h instanceof dev.vitals.kubesim.model.ProbeHandler.HttpGet)).map(h -> h instanceof
                        dev.vitals.kubesim.model.ProbeHandler.TcpSocket ? "tcpSocket {port: " + port + "} (accepting connections)"
                        : h instanceof dev.vitals.kubesim.model.ProbeHandler.Grpc ? "grpc {port: " + ((dev.vitals.kubesim.model.ProbeHandler.Grpc) h).port()
                                + ", service: readiness}" : "an exec command that checks the server answers")
                .orElse("httpGet {path: /readyz, port: " + port + "} (or tcpSocket {port: " + port + "} for a non-HTTP server)");
        out.accept(t.finding(this, "ports", "container serves port" + (t.declaredPorts().size() > 1 ? "s " : " ")
                + t.declaredPorts() .toString().replaceAll("[\\[\\]]", "") + " but has no readinessProbe: the pod is Ready as"
                + " soon as the container starts, before the application listens, and a replica that cannot serve is"
                + " never taken out of its Service", "R36, R38",
                "add a readinessProbe that checks what requests need, e.g. " + example));
    }
}
