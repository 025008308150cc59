package dev.vitals.kubesim.lint;

import static dev.vitals.kubesim.lint.Manifests.lint;
import static dev.vitals.kubesim.lint.Manifests.rules;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** I1: an ingress-nginx annotation nothing here reads is named, as info, once per annotation at its line; the ones read are not. */
class IngressAnnotationTest {
    private static final String POD = "        livenessProbe:\n          httpGet: {path: /livez, port: 8081}\n";

    private static String ingress(String annotations) {
        return Manifests.jvm(POD) + "---\napiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: web\n"
                + "  annotations:\n" + annotations + "spec:\n  rules:\n  - http:\n      paths:\n"
                + "      - path: /\n        pathType: Prefix\n        backend:\n          service: {name: web, port: {number: 80}}\n";
    }

    @Test
    void anUnreadIngressNginxAnnotationIsAnInfoFindingAtItsLine() {
        String yaml = ingress("    nginx.ingress.kubernetes.io/affinity: cookie\n"
                + "    nginx.ingress.kubernetes.io/affinity-mode: persistent\n"
                + "    nginx.ingress.kubernetes.io/proxy-read-timeout: \"60\"\n"
                + "    kubernetes.io/ingress.class: nginx\n");
        LintReport r = lint(yaml);
        List<Finding> i1 = r.findings().stream().filter(f -> f.rule().equals("I1")).toList();
        assertThat(i1).hasSize(2);
        assertThat(i1).allSatisfy(f -> {
            assertThat(f.severity()).isEqualTo(Severity.INFO);
            assertThat(f.object()).isEqualTo("Ingress/web");
        });
        String[] lines = yaml.split("\n", -1);
        assertThat(lines[i1.get(0).line() - 1]).contains("nginx.ingress.kubernetes.io/affinity-mode");
        assertThat(lines[i1.get(1).line() - 1]).contains("nginx.ingress.kubernetes.io/proxy-read-timeout");
        assertThat(i1.get(0).message()).isEqualTo("annotation nginx.ingress.kubernetes.io/affinity-mode is not modelled (the"
                + " simulator reads load-balance, affinity, upstream-hash-by only): its effect is left out; the routing rules (L24)"
                + " judge this Ingress without it");
        // the Ingress is still read for what the rules do read: its cookie affinity pins clients in front of an isolated liveness
        assertThat(rules(r)).doesNotContain("api");
    }

    @Test
    void theAnnotationsReadAndOtherPrefixesAreNotNamedAndI1CanBeSwitchedOff() {
        assertThat(rules(lint(ingress("    nginx.ingress.kubernetes.io/load-balance: ewma\n"
                + "    nginx.ingress.kubernetes.io/upstream-hash-by: $remote_addr\n    cert-manager.io/cluster-issuer: x\n"))))
                .doesNotContain("I1");
        List<Rule> noI1 = Rules.select(List.of(), List.of("I1"));
        LintReport off = new Linter(noI1, LintContext.empty(), java.util.Optional.empty())
                .lint(List.of(LintInput.text("in.yaml", ingress("    nginx.ingress.kubernetes.io/proxy-body-size: 8m\n"))));
        assertThat(rules(off)).doesNotContain("I1");
    }
}
