/**
 * {@code vitals lint}: static findings about probe configurations in Kubernetes manifests,
 * optionally joined with the application's Spring Boot configuration. Entry point
 * {@link dev.vitals.kubesim.lint.Linter} ({@code new Linter(Rules.all(), context, container).lint(inputs)},
 * a {@link dev.vitals.kubesim.lint.LintReport} of {@link dev.vitals.kubesim.lint.Finding}s); the rules are small types listed by
 * {@link dev.vitals.kubesim.lint.Rules}, each stating the hazard and the condition under which
 * it fires (docs/lint.md). Timing findings replay the kubelet model on a virtual clock
 * ({@code KillPrediction}), so lint and simulate predict the same kill
 * times. No method accepts or returns null.
 */
package dev.vitals.kubesim.lint;
