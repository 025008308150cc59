package dev.vitals.kubesim.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vitals.kubesim.input.InvalidInputException;
import org.assertj.core.api.AbstractThrowableAssert;

/**
 * The fleet file's bad-input tables (fleet, routing, clients, rollout): a valid file with one edit,
 * which the reader must refuse with one line naming the file, the line and the field.
 */
final class RefusedFleetFiles {
    private RefusedFleetFiles() {
    }

    /**
     * @return {@code base} with {@code from} replaced by {@code to}
     * @throws AssertionError when {@code from} is not in {@code base} (the row would test the valid file)
     */
    static String edit(String base, String from, String to) {
        String yaml = base.replace(from, to);
        assertThat(yaml).as("'%s' is in the file the row edits", from).isNotEqualTo(base);
        return yaml;
    }

    /** @return an assertion on the one-line {@link InvalidInputException} the reader throws for {@code yaml} read as {@code file} */
    static AbstractThrowableAssert<?, ? extends Throwable> assertRefused(String yaml, String file) {
        return assertThatThrownBy(() -> FleetSpecReader.parse(yaml, file)).isInstanceOf(InvalidInputException.class)
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }
}
