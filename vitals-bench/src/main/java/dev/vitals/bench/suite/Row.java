package dev.vitals.bench.suite;

import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * One line of the suite's table: a figure measured for Vitals next to the same figure for a
 * reference (Spring Boot Actuator, the naive wiring, or the Netty ceiling) in the same run.
 * Immutable.
 *
 * @param scenario  scenario id and setting, such as {@code saturation c=50}
 * @param metric    what was measured, such as {@code /livez p99}
 * @param unit      unit of both figures, such as {@code ms}, {@code req/s}, {@code KiB}
 * @param vitals    the Vitals figure; empty when it could not be measured
 * @param reference what the reference is, such as {@code actuator main port}
 * @param refValue  the reference figure; empty when there is none or it could not be measured
 * @param goal      the goal for this line, empty when it has none
 * @param goalMet   whether the goal was met in this run; empty when the line has no goal
 * @param note      a short free-text remark (failures seen, why a figure is missing)
 */
public record Row(String scenario, String metric, String unit, OptionalDouble vitals, String reference,
        OptionalDouble refValue, String goal, Optional<Boolean> goalMet, String note) {

    public Row {
        Objects.requireNonNull(scenario, "scenario");
        Objects.requireNonNull(metric, "metric");
        Objects.requireNonNull(unit, "unit");
        Objects.requireNonNull(vitals, "vitals");
        Objects.requireNonNull(reference, "reference");
        Objects.requireNonNull(refValue, "refValue");
        Objects.requireNonNull(goal, "goal");
        Objects.requireNonNull(goalMet, "goalMet");
        Objects.requireNonNull(note, "note");
        if (vitals.isPresent() && !Double.isFinite(vitals.getAsDouble())) {
            throw new IllegalArgumentException(scenario + " " + metric + ": vitals figure must be finite, was " + vitals);
        }
        if (refValue.isPresent() && !Double.isFinite(refValue.getAsDouble())) {
            throw new IllegalArgumentException(scenario + " " + metric + ": reference figure must be finite, was " + refValue);
        }
    }

    /** A row with both figures and no goal. */
    public static Row of(String scenario, String metric, String unit, double vitals, String reference, double refValue) {
        return new Row(scenario, metric, unit, OptionalDouble.of(vitals), reference, OptionalDouble.of(refValue), "",
                Optional.empty(), "");
    }

    /** @return a copy with the given goal and whether it was met */
    public Row withGoal(String goal, boolean met) {
        return new Row(scenario, metric, unit, vitals, reference, refValue, goal, Optional.of(met), note);
    }

    /** @return a copy with the given note */
    public Row withNote(String note) {
        return new Row(scenario, metric, unit, vitals, reference, refValue, goal, goalMet, note);
    }

    /** @return Vitals − reference; empty when either figure is missing */
    public OptionalDouble delta() {
        if (vitals.isEmpty() || refValue.isEmpty()) {
            return OptionalDouble.empty();
        }
        return OptionalDouble.of(vitals.getAsDouble() - refValue.getAsDouble());
    }

    /**
     * @return Vitals ÷ reference; empty when either figure is missing or the reference is 0 (a
     *     ratio of two zero failure counts says nothing)
     */
    public OptionalDouble ratio() {
        if (vitals.isEmpty() || refValue.isEmpty() || refValue.getAsDouble() == 0) {
            return OptionalDouble.empty();
        }
        return OptionalDouble.of(vitals.getAsDouble() / refValue.getAsDouble());
    }
}
