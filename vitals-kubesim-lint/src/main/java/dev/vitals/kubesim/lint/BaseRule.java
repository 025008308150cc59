package dev.vitals.kubesim.lint;

import java.util.Objects;

/**
 * What every rule states about itself — id, name, severity, summary, premise, what it needs —
 * given once to the constructor, so a rule type holds only its check. Immutable.
 */
abstract class BaseRule implements Rule {
    /** What a rule needs besides the manifest. */
    enum Needs {
        /** nothing */
        MANIFEST,
        /** {@code --app-config} */
        APP_CONFIG,
        /** a Service selecting the pod (checked on the input's Services) */
        SERVICE,
        /** both: {@code --app-config} to find the hazard, a Service selecting the pod for it to matter */
        APP_CONFIG_AND_SERVICE
    }

    private final String id;
    private final String name;
    private final Severity severity;
    private final String summary;
    private final String premise;
    private final Needs needs;

    /**
     * @param id the stable public id, e.g. {@code L4}
     * @param name the kebab-case name
     * @param severity the severity of its findings
     * @param summary the hazard and when it fires, one line
     * @param premise the condition checked on the object before it fires
     * @param needs what it needs besides the manifest
     */
    BaseRule(String id, String name, Severity severity, String summary, String premise, Needs needs) {
        this.id = Objects.requireNonNull(id, "id");
        this.name = Objects.requireNonNull(name, "name");
        this.severity = Objects.requireNonNull(severity, "severity");
        this.summary = Objects.requireNonNull(summary, "summary");
        this.premise = Objects.requireNonNull(premise, "premise");
        this.needs = Objects.requireNonNull(needs, "needs");
    }

    @Override
    public final String id() {
        return id;
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final Severity severity() {
        return severity;
    }

    @Override
    public final String summary() {
        return summary;
    }

    @Override
    public final String premise() {
        return premise;
    }

    @Override
    public final boolean needsAppConfig() {
        return needs == Needs.APP_CONFIG || needs == Needs.APP_CONFIG_AND_SERVICE;
    }

    @Override
    public final boolean needsService() {
        return needs == Needs.SERVICE || needs == Needs.APP_CONFIG_AND_SERVICE;
    }

    /**
     * @return true when {@link #check} emits only candidates that {@link #resolve} turns into findings
     *         from the input's Services and Ingresses (a fix is not judged on them)
     */
    boolean candidatesOnly() {
        return false;
    }

    /**
     * Judges a finding of a rule that {@link #needsService() needs a Service} once the input's
     * Services are known: kept when a Service of the input selects the pod, dropped when the
     * input has Services and none selects it, lowered one severity with a note when the input
     * has none.
     *
     * @param f the finding as the rule made it
     * @param pod its pod
     * @param routing the input's Services and Ingresses
     * @return the finding to report, if any
     */
    java.util.Optional<Finding> resolve(Finding f, PodRef pod, Routing routing) {
        if (routing.services().isEmpty()) {
            Severity lower = f.severity() == Severity.ERROR ? Severity.WARNING : Severity.INFO;
            return java.util.Optional.of(f.lowered(lower, " (no Service in the input: this assumes one sends the pod traffic)"));
        }
        return routing.selecting(pod.namespace(), pod.labels()).isEmpty() ? java.util.Optional.empty()
                : java.util.Optional.of(f);
    }

    @Override
    public String toString() {
        return id + " " + name;
    }
}
