package dev.vitals.kubesim.lint;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Test manifests in the shapes of real ones (written here, not copied) and a one-call linter. */
final class Manifests {
    private Manifests() {
    }

    /**
     * @param name the Deployment's name
     * @param replicas spec.replicas
     * @param container the container's fields, indented by 8 spaces, starting after "- name: app"
     * @return a Deployment with one container named app
     */
    static String deployment(String name, int replicas, String container) {
        return "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: " + name + "\nspec:\n  replicas: " + replicas
                + "\n  selector:\n    matchLabels: {app: " + name + "}\n  template:\n    metadata:\n      labels: {app: " + name
                + "}\n    spec:\n      containers:\n      - name: app\n        image: example/" + name + ":1.0\n"
                + container;
    }

    static String deployment(String container) {
        return deployment("web", 3, container);
    }

    /** A Deployment of a JVM (eclipse-temurin image) with a Service selecting it. */
    static String jvm(String container) {
        return deployment(container).replace("image: example/web:1.0", "image: eclipse-temurin:21-jre") + service("web", "");
    }

    /**
     * @param name the app label it selects
     * @param spec more spec fields, indented by 2 spaces
     * @return a Service selecting {@code app: name}
     */
    static String service(String name, String spec) {
        return "\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: " + name + "\nspec:\n  selector: {app: " + name
                + "}\n  ports:\n  - {port: 80, targetPort: 8080}\n" + spec;
    }

    /** Probes on one port 8080, as a Spring Boot service with Actuator's probe paths would have them. */
    static String springProbes(String live, String ready) {
        return "        ports:\n        - {name: http, containerPort: 8080}\n"
                + "        livenessProbe:\n          httpGet: {path: " + live + ", port: http}\n          periodSeconds: 10\n"
                + "        readinessProbe:\n          httpGet: {path: " + ready + ", port: http}\n          periodSeconds: 5\n";
    }

    /** @return the first container of the first workload of {@code yaml}, as the linter builds it */
    static Target target(String yaml) {
        Target[] out = new Target[1];
        Rule grab = new BaseRule("T0", "grab", Severity.INFO, "test", "test", BaseRule.Needs.MANIFEST) {
            @Override
            public void check(Target t, LintContext ctx, java.util.function.Consumer<Finding> sink) {
                if (out[0] == null) {
                    out[0] = t;
                }
            }
        };
        new Linter(List.of(grab), LintContext.empty(), Optional.empty()).lint(List.of(LintInput.text("deploy.yaml", yaml)));
        return out[0];
    }

    static LintReport lint(String yaml) {
        return lint(yaml, LintContext.empty());
    }

    static LintReport lint(String yaml, LintContext ctx) {
        return new Linter(Rules.all(), ctx, Optional.empty()).lint(List.of(LintInput.text("deploy.yaml", yaml)));
    }

    static LintContext withApp(AppConfig app) {
        return new LintContext(Optional.empty(), Optional.of(app), Map.of());
    }

    static List<String> rules(LintReport r) {
        List<String> out = new ArrayList<>();
        for (Finding f : r.findings()) {
            out.add(f.rule());
        }
        return out;
    }

    static Finding only(LintReport r, String rule) {
        List<Finding> hits = new ArrayList<>();
        for (Finding f : r.findings()) {
            if (f.rule().equals(rule)) {
                hits.add(f);
            }
        }
        if (hits.size() != 1) {
            throw new AssertionError("expected one " + rule + " finding, got " + hits.size() + ": " + r.findings());
        }
        return hits.get(0);
    }
}
