package dev.vitals.kubesim.lint;

import dev.vitals.kubesim.model.ProbeType;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * L25 (issue 40, needs {@code --app-config}): Actuator probe paths behind Spring Security. When the
 * configuration sets up an OAuth2 resource server ({@code spring.security.oauth2.resourceserver.*}),
 * Spring Boot's default filter chain for it ({@code OAuth2ResourceServerWebSecurityConfiguration})
 * requires a token on every request, and its default chain that permits the health endpoint
 * ({@code ManagementWebSecurityAutoConfiguration}) backs off: the kubelet, which sends no token,
 * gets 401, a failure. Whether the application's own {@code SecurityFilterChain} permits the paths
 * is Java code the configuration does not show: the finding says so ("unknown").
 */
final class ProbeAuthRule extends BaseRule {
    ProbeAuthRule() {
        super("L25", "probe-behind-auth", Severity.WARNING,
                "with --app-config: Actuator probe paths behind Spring Security's resource-server chain (the kubelet gets 401)",
                "with --app-config: the configuration sets spring.security.oauth2.resourceserver.* and a probe asks an Actuator"
                        + " health path (not Vitals' own server)", Needs.APP_CONFIG);
    }

    @Override
    public void check(Target t, LintContext ctx, Consumer<Finding> out) {
        Optional<AppHealth> app = ctx.app(t);
        if (app.isEmpty()) {
            return;
        }
        Optional<AppConfig.Prop> rs = app.get().firstUnder("spring.security.oauth2.resourceserver.");
        if (rs.isEmpty()) {
            return;
        }
        for (ProbeType type : ProbeType.values()) {
            Optional<AppHealth.Endpoint> e = AppProbes.endpoint(t, ctx, type);
            if (e.isEmpty() || e.get().vitals()) {
                continue;
            }
            out.accept(t.finding(this, type.fieldName() + ".httpGet.path", type.label() + " probe asks " + e.get().label()
                    + ", and the configuration sets up an OAuth2 resource server (" + rs.get().key() + ", " + rs.get().file() + ":"
                    + rs.get().line() + "): Spring Boot's default chain for it requires a token on every request, so the kubelet"
                    + " (no token) gets 401, a failure" + (type == ProbeType.READINESS ? " and the pod is never Ready"
                    : ", and the container is restarted") + ", unless the application's own SecurityFilterChain permits the path;"
                    + " whether it does is unknown from configuration files", "issue 40",
                    "permit the probe paths before anyRequest().authenticated(): http.authorizeHttpRequests(a ->"
                            + " a.requestMatchers(EndpointRequest.to(HealthEndpoint.class)).permitAll()...), or probe Vitals' own"
                            + " server, which Spring Security does not filter"));
            return;
        }
    }
}
