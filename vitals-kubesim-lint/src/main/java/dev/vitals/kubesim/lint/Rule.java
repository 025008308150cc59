package dev.vitals.kubesim.lint;

import java.util.function.Consumer;

/**
 * One lint rule: a hazard, the premise under which it is real, and the fix. Each rule is a
 * small stateless type ({@link BaseRule} holds what every rule states about itself);
 * {@link Rules#all()} lists them. Implementations are thread-safe.
 */
public interface Rule {
    /** @return the stable public id used by {@code --disable}, annotations and the rule's page, e.g. {@code L4} */
    String id();

    /** @return the kebab-case name, e.g. {@code restart-before-shed} */
    String name();

    /** @return the severity of its findings */
    Severity severity();

    /** @return one line: the hazard and when it fires (help, SARIF short description) */
    String summary();

    /**
     * @return the premise the rule checks on the object before it fires (SARIF full description,
     *         {@code --list-rules}), e.g. "a Service in the input selects the pod"
     */
    default String premise() {
        return summary();
    }

    /** @return the address of the rule's page, {@code docs/lint/<id>.md} in the repository */
    default String docUrl() {
        return Rules.docUrl(id());
    }

    /**
     * @return true when the rule runs only when named with {@code --enable}: its premise cannot be
     *         checked on the object, so it is off by default (precision first)
     */
    default boolean optIn() {
        return false;
    }

    /** @return true when the rule needs {@code --app-config} to run */
    default boolean needsAppConfig() {
        return false;
    }

    /**
     * @return true when the hazard is real only if a Service sends the pod traffic: its findings
     *         are kept only for pods a Service of the input selects, and lowered one severity
     *         (with a note) when the input holds no Service at all
     */
    default boolean needsService() {
        return false;
    }

    /**
     * Checks one container.
     *
     * @param t the container
     * @param ctx what else is known: start-up time, the application's configuration, latencies
     * @param out receives findings
     */
    void check(Target t, LintContext ctx, Consumer<Finding> out);
}
