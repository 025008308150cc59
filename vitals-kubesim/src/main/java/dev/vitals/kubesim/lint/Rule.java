package dev.vitals.kubesim.lint;

import java.util.function.Consumer;

/**
 * One lint rule: a hazard, the condition under which it is real, and the fix. Each rule is a
 * small stateless type; {@link Rules#all()} lists them. Implementations are thread-safe.
 */
public interface Rule {
    /** @return the short id used by {@code --disable} and annotations, e.g. {@code L4} */
    String id();

    /** @return the kebab-case name, e.g. {@code restart-before-shed} */
    String name();

    /** @return the severity of its findings */
    Severity severity();

    /** @return one line: the hazard and when it fires (help, SARIF rule description) */
    String summary();

    /** @return true when the rule needs {@code --app-config} to run */
    default boolean needsAppConfig() {
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
