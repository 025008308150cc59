package dev.vitals.kubesim.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vitals.kubesim.result.Expectation;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The one verdict-line form, and {@link #assertOneForm} that the commands' tests apply to their output. */
public class VerdictLineTest {
    private static final Pattern WORD = Pattern.compile("\\b(PASS|FAIL|SKIP)\\b");
    private static final Pattern LINE = Pattern.compile(" *(PASS|FAIL|SKIP) [^ (][^\\n]*?( \\([^\\n]+\\))?");
    private static final Pattern CLOSING = Pattern.compile("verdict: (PASS|FAIL|SKIP|INTERRUPTED)( \\(.*\\))?");

    /**
     * Asserts that every line of a command's output naming a verdict has the one form: the word
     * first (after an indent), or the closing {@code verdict: WORD} line; and that there is one
     * closing line.
     *
     * @param output a command's terminal output
     * @return the verdict lines found, so the caller can assert more
     */
    public static List<String> assertOneForm(String output) {
        List<String> verdictLines = output.lines().filter(l -> WORD.matcher(l).find()).toList();
        assertThat(verdictLines).as(output).isNotEmpty();
        assertThat(verdictLines).as(output).allSatisfy(l -> assertThat(LINE.matcher(l).matches() || CLOSING.matcher(l).matches())
                .as("verdict line in the one form: '" + l + "'").isTrue());
        assertThat(verdictLines.stream().filter(l -> CLOSING.matcher(l).matches())).as(output).hasSize(1);
        assertThat(output).doesNotContain("[PASS]").doesNotContain("[FAIL]").doesNotContain("PASS  ").doesNotContain("FAIL  ");
        return verdictLines;
    }

    @Test
    void theWordFirstThenTheSubjectThenTheFigures() {
        assertThat(VerdictLine.of(VerdictLine.Word.PASS, "restarts == 0", "actual 0")).isEqualTo("PASS restarts == 0 (actual 0)");
        assertThat(VerdictLine.of(VerdictLine.Word.SKIP, "stall", "")).isEqualTo("SKIP stall");
        assertThat(VerdictLine.of(new Expectation.Check("restarts == 0", false, "restarts = 2"), "--expect"))
                .isEqualTo("FAIL restarts == 0 (actual restarts = 2; --expect)");
        assertThat(VerdictLine.overall(VerdictLine.Word.of(true))).isEqualTo("verdict: PASS");
        assertThatThrownBy(() -> VerdictLine.of(VerdictLine.Word.PASS, " ", "x")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theFormCheckRejectsTheOldForms() {
        for (String old : new String[] {"  PASS  restarts == 0   [restarts = 0]\nverdict: PASS\n",
            "  [FAIL] endpoints > 0 always (actual 0)\nverdict: FAIL\n", "  PASS restarts == 0 (actual 0)\n"}) {
            assertThatThrownBy(() -> assertOneForm(old)).as(old).isInstanceOf(AssertionError.class);
        }
        assertThat(assertOneForm("  PASS restarts == 0 (actual 0)\nFAIL incident: claim (restarts: naive 3)\nverdict: FAIL\n")).hasSize(3);
    }
}
