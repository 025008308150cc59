package dev.vitals.kubesim.lint;

import dev.vitals.kubesim.model.ProbeSpec;
import dev.vitals.kubesim.model.ProbeType;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * L26: an httpGet probe on {@code /}. An application's root is often a redirect (to a login or
 * a locale; the kubelet follows redirects on the same host) or its heaviest page (templates,
 * sessions, database reads), so the probe measures a page, not health. A known static server
 * (nginx, httpd, Caddy, HAProxy) answering {@code /} from memory does not fire.
 */
final class ProbeOnRootRule extends BaseRule {
    ProbeOnRootRule() {
        super("L26", "probe-on-root", Severity.INFO,
                "an httpGet probe on /: often a redirect or the application's heaviest page",
                "an httpGet probe's path is / (or empty) and the container is not a known static server", Needs.MANIFEST);
    }

    @Override
    public void check(Target t, LintContext ctx, Consumer<Finding> out) {
        AppRuntime rt = t.runtime();
        if (rt.kind() == AppRuntime.Kind.OTHER) {
            return;
        }
        for (ProbeType type : ProbeType.values()) {
            Optional<ProbeSpec> p = t.probe(type);
            if (p.isEmpty() || p.get().handler().asHttpGet().isEmpty()
                    || !Probes.pathAndQuery(p.get().handler().asHttpGet().get()).equals("/")) {
                continue;
            }
            out.accept(t.finding(this, type.fieldName() + ".httpGet.path", type.label() + " probe asks / ("
                    + p.get().handler().describe() + "): an application's root is often a redirect or its heaviest page, so the"
                    + " probe measures a page rather than health" + (rt.kind() == AppRuntime.Kind.UNKNOWN ? " (unknown runtime)" : ""),
                    "R56", rt.spring() ? "probe /actuator/health/" + (type == ProbeType.READINESS ? "readiness" : "liveness")
                            : rt.jvm() ? "probe a health endpoint (Vitals /" + (type == ProbeType.READINESS ? "readyz" : "livez")
                            + ", or your framework's)" : "probe a health endpoint the application answers cheaply"));
        }
    }
}
