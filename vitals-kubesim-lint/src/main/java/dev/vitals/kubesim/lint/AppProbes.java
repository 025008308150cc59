package dev.vitals.kubesim.lint;

import dev.vitals.kubesim.model.ProbeHandler;
import dev.vitals.kubesim.model.ProbeSpec;
import dev.vitals.kubesim.model.ProbeType;
import java.util.Optional;
import java.util.OptionalInt;

/** The app-config join for one probe: which endpoint of the application its httpGet reaches. */
final class AppProbes {
    private AppProbes() {
    }

    /**
     * @return the endpoint the probe of {@code type} reaches, when it is an httpGet on the pod
     *         and the configuration serves a health path there
     */
    static Optional<AppHealth.Endpoint> endpoint(Target t, LintContext ctx, ProbeType type) {
        Optional<ProbeSpec> p = t.probe(type);
        Optional<ProbeHandler.HttpGet> get = p.flatMap(s -> s.handler().asHttpGet());
        if (get.isEmpty()) {
            return Optional.empty();
        }
        ProbeHandler.HttpGet h = get.get();
        OptionalInt port = t.portNumber(h.port());
        if (h.host().isPresent() || port.isEmpty()) {
            return Optional.empty();
        }
        return ctx.app(t).flatMap(a -> a.resolve(port.getAsInt(), h.path()));
    }
}
