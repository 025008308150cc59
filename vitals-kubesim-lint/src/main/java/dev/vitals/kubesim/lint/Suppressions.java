package dev.vitals.kubesim.lint;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Per-object silencing: an annotation on the workload or its pod template,
 * {@code ignore-check.vitals.dev/<rule id or name>: "<reason>"} (as kube-linter's
 * {@code ignore-check.kube-linter.io/<check>}), one per rule so that each rule silenced carries its
 * own reason. An annotation that silences nothing — no reason, or a rule no one knows (a typo, a
 * renamed rule) — is reported rather than ignored. Stateless; thread-safe.
 */
final class Suppressions {
    private Suppressions() {
    }

    /**
     * @param f a finding
     * @param annotations the object's annotations (the workload's over its pod template's)
     * @return the finding silenced by an annotation with a reason, if one names its rule (by id or name)
     */
    static Optional<LintReport.Suppressed> match(Finding f, Map<String, String> annotations) {
        for (String id : new String[] {f.rule(), f.name()}) {
            String a = annotations.get(Linter.IGNORE_PREFIX + id);
            if (a != null && !a.isBlank()) {
                return Optional.of(new LintReport.Suppressed(f, Linter.IGNORE_PREFIX + id, a.strip()));
            }
        }
        return Optional.empty();
    }

    /**
     * @param annotations an object's annotations
     * @return the annotation keys of {@code ignore-check.vitals.dev/…} annotations that silence nothing, each with why
     */
    static List<Map.Entry<String, String>> problems(Map<String, String> annotations) {
        List<Map.Entry<String, String>> out = new ArrayList<>();
        annotations.forEach((k, v) -> {
            if (!k.startsWith(Linter.IGNORE_PREFIX)) {
                return;
            }
            String rule = k.substring(Linter.IGNORE_PREFIX.length());
            if (Rules.find(rule) == null) {
                out.add(Map.entry(k, "names no rule (rules: " + Rules.ids() + "): it silences nothing"));
            } else if (v.isBlank()) {
                out.add(Map.entry(k, "has no reason: it silences nothing (the value is the reason, e.g. \"" + k
                        + ": probes share /health on purpose: it checks nothing remote\")"));
            }
        });
        return out;
    }
}
