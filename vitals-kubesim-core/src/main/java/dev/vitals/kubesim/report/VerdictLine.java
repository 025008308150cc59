package dev.vitals.kubesim.report;

import dev.vitals.kubesim.result.Expectation;
import java.util.Objects;

/**
 * The one form of a verdict line in every command's terminal output ({@code simulate},
 * {@code replay}, {@code fleet}): the word first, then what was judged, then the figures in
 * parentheses — {@code PASS restarts == 0 (actual kills = 0)} — and one closing line per run,
 * {@code verdict: PASS}. Stateless; thread-safe.
 */
public final class VerdictLine {
    /** The verdict words. {@code SKIP}: nothing could be judged (replay only). */
    public enum Word {
        /** the expectation held */
        PASS,
        /** the expectation did not hold */
        FAIL,
        /** nothing could be judged */
        SKIP;

        /**
         * @param passed whether it held
         * @return PASS or FAIL
         */
        public static Word of(boolean passed) {
            return passed ? PASS : FAIL;
        }
    }

    private VerdictLine() {
    }

    /**
     * @param word the verdict
     * @param subject what was judged, e.g. an expectation as written; not blank
     * @param detail the figures behind it, e.g. {@code actual 0}; empty for none
     * @return {@code WORD subject (detail)}, no indent, no line end
     * @throws IllegalArgumentException if {@code subject} is blank
     */
    public static String of(Word word, String subject, String detail) {
        Objects.requireNonNull(word, "word");
        if (subject == null || subject.isBlank()) {
            throw new IllegalArgumentException("a verdict line needs a subject");
        }
        return word + " " + subject + (detail == null || detail.isEmpty() ? "" : " (" + detail + ")");
    }

    /**
     * @param c a checked expectation
     * @param note appended to the figures after a semicolon (e.g. {@code --expect}), or empty
     * @return {@code PASS restarts == 0 (actual restarts = 0)}
     */
    public static String of(Expectation.Check c, String note) {
        return of(Word.of(c.passed()), c.expectation(), "actual " + c.actual() + (note.isEmpty() ? "" : "; " + note));
    }

    /**
     * @param word the run's verdict
     * @return the closing line, {@code verdict: PASS}
     */
    public static String overall(Word word) {
        return "verdict: " + word;
    }
}
