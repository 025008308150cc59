package dev.vitals;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Issue 40: one rule for strings Vitals did not write, before they reach a log line. */
class LogTextTest {
    @Test
    void controlCharactersAndTheBackslashAreWrittenAsHex() {
        assertThat(LogText.escape("GET /\r\nFAKE: line\u001b[31mred\u001b[0m\\x\u007f\u0085\u0000", 100))
                .isEqualTo("GET /\\x0d\\x0aFAKE: line\\x1b[31mred\\x1b[0m\\x5cx\\x7f\\x85\\x00");
    }

    @Test
    void unicodeLineSeparatorsAndBidiOverridesAreWrittenAsCodePoints() {
        assertThat(LogText.escape("a\u2028b\u202ec\u2066d", 100)).isEqualTo("a\\u2028b\\u202ec\\u2066d");
    }

    @Test
    void plainTextIsKeptAndLongTextIsCutSayingHowMuchWasLeftOut() {
        assertThat(LogText.escape("plain text, ünïcode", 100)).isEqualTo("plain text, ünïcode");
        assertThat(LogText.escape("x".repeat(500), 200)).isEqualTo("x".repeat(200) + "…(300 more chars)");
        assertThat(LogText.escape("\n".repeat(3), 2)).isEqualTo("\\x0a\\x0a…(1 more chars)");
        assertThat(LogText.escape(null, 5)).isEqualTo("null");
        assertThatThrownBy(() -> LogText.escape("x", 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxChars must be at least 1, was 0");
    }
}
