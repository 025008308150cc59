package dev.vitals.kubesim.lint;

import dev.vitals.kubesim.model.PodSpec;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Entry points of {@code vitals lint} as a library: lint inputs with every rule, or predict a
 * start-up's kill time. The parts ({@link Linter}, {@link Rules}, {@link LintContext},
 * {@link LintFormat}) are public for finer control. Stateless and thread-safe.
 */
public final class Lint {
    private Lint() {
    }

    /**
     * Lints with every rule and nothing known beyond the manifests.
     *
     * @param inputs files, directories' files, standard input ({@link LintInput#collect})
     * @return the report
     */
    public static LintReport lint(List<LintInput> inputs) {
        return lint(inputs, LintContext.empty());
    }

    /**
     * @param inputs the inputs
     * @param context start-up time, application configuration, measured latencies
     * @return the report of every rule
     */
    public static LintReport lint(List<LintInput> inputs, LintContext context) {
        return new Linter(Rules.all(), context, Optional.empty()).lint(inputs);
    }

    /**
     * When the kubelet first kills a container that answers no probe until {@code startupTime}
     * (the model {@code vitals simulate} runs, on a virtual clock).
     *
     * @param pod the probes
     * @param startupTime the application's start-up time
     * @return the first kill, if any
     */
    public static KillPrediction predictKill(PodSpec pod, Duration startupTime) {
        return KillPrediction.of(pod, startupTime);
    }
}
