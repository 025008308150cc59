/**
 * Vitals kubesim lint: static checks of Kubernetes manifests against the kubelet's probe rules
 * ({@code dev.vitals.kubesim.lint}: {@code Linter}, {@code Rules}, a {@code LintReport}'s findings),
 * used by {@code vitals lint} and vitals-maven-plugin's {@code vitals:lint}. The package graph is
 * checked by LintPackageGraphTest (docs/DESIGN.md section 7).
 */
module dev.vitals.kubesim.lint {
    requires transitive dev.vitals.kubesim;
    requires com.fasterxml.jackson.databind;

    exports dev.vitals.kubesim.lint;
}
