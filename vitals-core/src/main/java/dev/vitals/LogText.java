package dev.vitals;

/**
 * Makes a string that Vitals did not write safe to put in a log line (issue 40): a string a
 * client chose (a request line, a gRPC peer's bytes in an error message) or a check's output. One
 * helper for every module, so every such log line follows the same rule:
 *
 * <ul>
 *   <li>control characters — C0 ({@code 0x00}–{@code 0x1f}: CR, LF, ESC of a terminal escape …),
 *       DEL and C1 ({@code 0x7f}–{@code 0x9f}) — and the backslash are written {@code \xNN}
 *       (two hex digits), so a string can neither start a forged log line nor drive a terminal,
 *       and the escaping is unambiguous;</li>
 *   <li>Unicode line and paragraph separators and bidirectional overrides
 *       ({@code U+2028}, {@code U+2029}, {@code U+202A}–{@code U+202E}, {@code U+2066}–{@code U+2069})
 *       are written {@code \}{@code uNNNN};</li>
 *   <li>longer than the limit, the text is cut to it and {@code …(N more chars)} says how much was
 *       left out.</li>
 * </ul>
 *
 * <p>Stateless; thread-safe.
 */
public final class LogText {
    /** Characters of a client-supplied string kept in a log line: {@value}. */
    public static final int CLIENT_CHARS = 200;
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private LogText() {
    }

    /**
     * @param text the string; {@code null} reads {@code null}
     * @param maxChars characters of {@code text} kept, at least 1
     * @return the text escaped and cut as the class says
     * @throws IllegalArgumentException if {@code maxChars} is below 1
     */
    public static String escape(CharSequence text, int maxChars) {
        if (maxChars < 1) {
            throw new IllegalArgumentException("maxChars must be at least 1, was " + maxChars);
        }
        if (text == null) {
            return "null";
        }
        int n = Math.min(text.length(), maxChars);
        StringBuilder b = null;
        for (int i = 0; i < n; i++) {
            char c = text.charAt(i);
            boolean control = c < 0x20 || c == '\\' || (c >= 0x7f && c <= 0x9f);
            boolean unicode = c == 0x2028 || c == 0x2029 || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
            if (!control && !unicode) {
                if (b != null) {
                    b.append(c);
                }
                continue;
            }
            if (b == null) {
                b = new StringBuilder(n + 16).append(text, 0, i);
            }
            if (control) {
                b.append("\\x").append(HEX[c >> 4 & 0xf]).append(HEX[c & 0xf]);
            } else {
                b.append("\\u").append(HEX[c >> 12 & 0xf]).append(HEX[c >> 8 & 0xf]).append(HEX[c >> 4 & 0xf])
                        .append(HEX[c & 0xf]);
            }
        }
        String out = b == null ? text.subSequence(0, n).toString() : b.toString();
        return text.length() <= maxChars ? out : out + "…(" + (text.length() - maxChars) + " more chars)";
    }
}
