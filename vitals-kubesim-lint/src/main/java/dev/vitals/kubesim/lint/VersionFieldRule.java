package dev.vitals.kubesim.lint;

import dev.vitals.kubesim.manifest.ManifestReader;
import java.util.function.Consumer;

/**
 * L18: a field the chosen Kubernetes release ({@code --kubernetes-version}) drops: a regular
 * container's {@code restartPolicy}/{@code restartPolicyRules} before 1.35 (gate
 * ContainerRestartRules, alpha and off by default in 1.34: the API server drops the fields of a
 * disabled gate silently, so the pod's policy decides). The baseline Pod Security refusal of a
 * probe's {@code host} (1.34+) is L17.
 */
final class VersionFieldRule extends BaseRule {
    VersionFieldRule() {
        super("L18", "field-not-in-version", Severity.WARNING, "a field the chosen --kubernetes-version drops (a container's restartPolicy/restartPolicyRules before 1.35)",
                "--kubernetes-version is before 1.35 and a regular container writes restartPolicy or restartPolicyRules", Needs.MANIFEST);
    }

    @Override
    public void check(Target t, LintContext ctx, Consumer<Finding> out) {
        if (ctx.version().containerRestartRules() || t.role() != ManifestReader.Role.CONTAINER) {
            return;
        }
        for (String field : new String[] {"restartPolicy", "restartPolicyRules"}) {
            if (t.container().has(field)) {
                out.accept(t.finding(this, field, field + " on a regular container needs the ContainerRestartRules gate,"
                        + " off by default in Kubernetes " + ctx.version() + " (alpha in 1.34, on from 1.35): the API server"
                        + " drops the field silently and the pod's restartPolicy (" + t.podSpecNode().path("restartPolicy").asText("Always") + ") decides",
                        "KEP-5307", "run 1.35 or later, or enable the gate, or rely on the pod's restartPolicy"));
            }
        }
    }
}
