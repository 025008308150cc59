package dev.vitals;

/** How a check is evaluated (DESIGN.md section 5). */
public enum Mode {
    /**
     * The default: the check runs every {@code interval} on Vitals' scheduler and reports
     * read the latest result, which turns {@link Status#UNKNOWN} once older than {@code maxAge}.
     */
    SCHEDULED,
    /**
     * The check runs when a report is evaluated ({@link HealthRegistry#evaluate(String)}),
     * concurrently with the group's other checks; a result younger than {@code ttl} is reused.
     */
    ON_DEMAND
}
