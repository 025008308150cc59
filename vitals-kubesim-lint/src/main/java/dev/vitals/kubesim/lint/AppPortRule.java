package dev.vitals.kubesim.lint;

import dev.vitals.kubesim.model.ProbeType;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Consumer;

/**
 * L13 (needs {@code --app-config}; the seed incident, cases C05, C07): a probe answered on
 * the application's port, by its bounded worker pool, while Vitals' probe server (its own port
 * and threads) is configured. A burst of slow requests takes every worker; the probe waits in
 * the same queue and times out, and liveness restarts a busy, working pod.
 */
final class AppPortRule extends BaseRule {
    AppPortRule() {
        super("L13", "probe-on-app-port", Severity.WARNING, "with --app-config: a probe queues behind the application's bounded worker pool while Vitals' port is available",
                "with --app-config: a probe is answered on server.port while Vitals' probe server is configured", Needs.APP_CONFIG);
    }

    @Override
    public void check(Target t, LintContext ctx, Consumer<Finding> out) {
        Optional<AppHealth> app = ctx.app(t);
        if (app.isEmpty()) {
            return;
        }
        OptionalInt vitals = app.get().vitalsPort();
        if (vitals.isEmpty()) {
            return;
        }
        String pool = app.get().prop("server.tomcat.threads.max").map(p -> p.value() + " workers (server.tomcat.threads.max)")
                .or(() -> app.get().prop("server.jetty.threads.max").map(p -> p.value() + " workers (server.jetty.threads.max)"))
                .orElse("bounded worker pool (Tomcat's default is 200)");
        for (ProbeType type : new ProbeType[] {ProbeType.LIVENESS, ProbeType.READINESS}) {
            Optional<AppHealth.Endpoint> e = AppProbes.endpoint(t, ctx, type);
            if (e.isEmpty() || !e.get().appPort() || e.get().vitals()) {
                continue;
            }
            String path = type == ProbeType.LIVENESS ? "/livez" : "/readyz";
            out.accept(t.finding(this, type.fieldName() + ".httpGet.port", type.label() + " probe is answered on the"
                    + " application port " + app.get().serverPort() + " by its " + pool + ": when slow requests hold every"
                    + " worker the probe waits in the same queue and times out"
                    + (type == ProbeType.LIVENESS ? ", and the pod is restarted while it is working" : ""),
                    "R59, C05, C07", "probe Vitals' probe server instead: httpGet {path: " + path + ", port: "
                            + vitals.getAsInt() + "} (its own port and threads)"));
        }
    }
}
