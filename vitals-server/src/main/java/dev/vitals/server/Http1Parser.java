package dev.vitals.server;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The probe server's one HTTP/1.x parsing path, for both transports (through
 * {@link ProbeConnection}): an incremental, strict request-head parser, fed whatever bytes arrive, it returns each request once its head (request line and header
 * block) is complete, keeping only the line being read. It reads what the probe server needs —
 * method, target, version, {@code Connection}, {@code Content-Length},
 * {@code Transfer-Encoding}, {@code Authorization} — and rejects the rest of what is malformed.
 *
 * <p>Limits: a request line longer than
 * {@code maxHeaderSize} bytes is 400 "request line too long", a header block longer than it is
 * 431; a malformed line or header, a bad {@code Content-Length}, or obsolete line folding is 400
 * "malformed HTTP request" (so is a second {@code Host} line, RFC 9112 section 3.2; an HTTP/1.1 request with no
 * {@code Host} line is 400 "missing Host header", the same section; HTTP/1.0 may omit it; a control character other than CR, LF and a header's tab as soon as it
 * arrives, without waiting for the end of the line); a version other than {@code HTTP/1.x} (the HTTP/2 preface
 * {@code PRI * HTTP/2.0} too) is 400 "unsupported HTTP version". Empty lines before a request
 * line are skipped (RFC 9112 section 2.2); bare LF ends a line as CRLF does.
 *
 * <p>After a failure, or a request with a body ({@code Content-Length} over 0 or any
 * {@code Transfer-Encoding}), the parser returns nothing more: such a request is answered and its
 * connection closed, so its body is never parsed as a request. Not thread-safe: one per
 * connection, used on its event loop.
 */
final class Http1Parser {
    static final ProbeResponse HEADER_TOO_LARGE = ProbeResponse.text(431, "request header fields too large\n");
    static final ProbeResponse LINE_TOO_LONG = ProbeRouter.badRequest("request line too long");
    static final ProbeResponse MALFORMED = ProbeRouter.badRequest("malformed HTTP request");
    static final ProbeResponse UNSUPPORTED_VERSION = ProbeRouter.badRequest("unsupported HTTP version");
    /** RFC 9112 section 3.2: a server MUST answer 400 to an HTTP/1.1 request without a Host header. */
    static final ProbeResponse MISSING_HOST = ProbeRouter.badRequest("missing Host header");

    /** Where the parser is in the byte stream. */
    private enum State {
        /** Between requests: empty lines are skipped. */
        START,
        /** In the request line. */
        LINE,
        /** In the header block. */
        HEADERS,
        /** After a failure or a request with a body: everything further is dropped; terminal. */
        DONE
    }

    private static final int INITIAL_LINE = 128;

    private static final byte[] CONTENT_LENGTH = ascii("content-length");
    private static final byte[] TRANSFER_ENCODING = ascii("transfer-encoding");
    private static final byte[] CONNECTION = ascii("connection");
    private static final byte[] AUTHORIZATION = ascii("authorization");
    private static final byte[] HOST = ascii("host");

    /** One request head, or a failure to answer before closing. Immutable. */
    static final class Request {
        final String method;
        final String target;
        final boolean http10;
        final boolean keepAlive;
        final boolean hasBody;
        final String authorization;
        /** The answer to a bad request (400 or 431), else null. */
        final ProbeResponse failure;
        /** What was wrong, for the debug log, else null. */
        final String cause;

        private Request(String method, String target, boolean http10, boolean keepAlive, boolean hasBody,
                        String authorization, ProbeResponse failure, String cause) {
            this.method = method;
            this.target = target;
            this.http10 = http10;
            this.keepAlive = keepAlive;
            this.hasBody = hasBody;
            this.authorization = authorization;
            this.failure = failure;
            this.cause = cause;
        }

        static Request failed(ProbeResponse response, String cause) {
            return new Request(null, null, false, false, false, null, response, cause);
        }
    }

    private final int max;
    private State state = State.START;
    private byte[] line = new byte[INITIAL_LINE];
    private int len;
    private int block;
    // the request being read
    private String method;
    private String target;
    private boolean http10;
    private boolean close;
    private boolean keepAliveToken;
    private boolean transferEncoding;
    private long contentLength = -1;
    private String authorization;
    private boolean host;

    /** @param maxHeaderSize limit in bytes of the request line and of the header block, each */
    Http1Parser(int maxHeaderSize) {
        this.max = maxHeaderSize;
    }

    /**
     * Consumes bytes from {@code in} until a request head is complete (returned; the rest stays
     * in {@code in} for the next call) or {@code in} is empty (null). After a failure or a request
     * with a body, consumes everything and returns null.
     */
    Request next(ByteBuffer in) {
        while (in.hasRemaining()) {
            if (state == State.DONE) {
                in.position(in.limit());
                return null;
            }
            byte b = in.get();
            if (isControl(b) && !(b == '\t' && state == State.HEADERS)) {
                // No request line or header may hold one (a tab only between a header's name and
                // value's ends): fail now rather than wait for a newline that a TLS ClientHello or
                // binary noise never sends.
                return fail(MALFORMED, "control character 0x" + Integer.toHexString(b & 0xff)
                        + (state == State.HEADERS ? " in a header line" : " in the request line"));
            }
            switch (state) {
                case START:
                    if (b == '\r' || b == '\n') {
                        continue;
                    }
                    state = State.LINE;
                    // the first byte of the request line
                    append(b);
                    break;
                case LINE:
                    if (b == '\n') {
                        Request failed = requestLine();
                        if (failed != null) {
                            return failed;
                        }
                        state = State.HEADERS;
                        block = 0;
                        len = 0;
                    } else if (len >= max) {
                        return fail(LINE_TOO_LONG, "request line longer than " + max + " bytes");
                    } else {
                        append(b);
                    }
                    break;
                default: // HEADERS
                    if (++block > max) {
                        return fail(HEADER_TOO_LARGE, "header block longer than " + max + " bytes");
                    }
                    if (b == '\n') {
                        if (len > 0 && line[len - 1] == '\r') {
                            len--;
                        }
                        if (len == 0) {
                            return complete();
                        }
                        Request failed = header();
                        if (failed != null) {
                            return failed;
                        }
                        len = 0;
                    } else {
                        append(b);
                    }
                    break;
            }
        }
        return null;
    }

    private void append(byte b) {
        if (len == line.length) {
            byte[] bigger = new byte[Math.min(Math.max(line.length * 2, INITIAL_LINE), max + 2)];
            System.arraycopy(line, 0, bigger, 0, len);
            line = bigger;
        }
        line[len++] = b;
    }

    private Request fail(ProbeResponse response, String cause) {
        state = State.DONE;
        line = null;
        return Request.failed(response, cause);
    }

    /** Parses {@code method SP target SP HTTP/1.x}; returns a failure, or null when it is fine. */
    private Request requestLine() {
        int n = len;
        if (n > 0 && line[n - 1] == '\r') {
            n--;
        }
        int i = 0;
        while (i < n && isToken(line[i])) {
            i++;
        }
        if (i == 0 || i >= n || line[i] != ' ') {
            return fail(MALFORMED, "bad method in the request line");
        }
        int ts = i + 1;
        while (ts < n && line[ts] == ' ') {
            ts++;
        }
        int te = ts;
        while (te < n && isVisible(line[te])) {
            te++;
        }
        if (te == ts || te >= n || line[te] != ' ') {
            return fail(MALFORMED, "bad request target");
        }
        int vs = te + 1;
        while (vs < n && line[vs] == ' ') {
            vs++;
        }
        if (n - vs != 8 || line[vs] != 'H' || line[vs + 1] != 'T' || line[vs + 2] != 'T' || line[vs + 3] != 'P'
                || line[vs + 4] != '/' || !isDigit(line[vs + 5]) || line[vs + 6] != '.' || !isDigit(line[vs + 7])) {
            return fail(MALFORMED, "bad HTTP version");
        }
        if (line[vs + 5] != '1') {
            // Only HTTP/1.0 and 1.1 are spoken here; an HTTP/2 preface ("PRI * HTTP/2.0") lands here too.
            return fail(UNSUPPORTED_VERSION, "HTTP version " + (char) line[vs + 5] + "." + (char) line[vs + 7]);
        }
        method = new String(line, 0, i, StandardCharsets.ISO_8859_1);
        target = new String(line, ts, te - ts, StandardCharsets.ISO_8859_1);
        http10 = line[vs + 7] == '0';
        return null;
    }

    /** Parses {@code name: value} (line without its CRLF); returns a failure, or null when it is fine. */
    private Request header() {
        int n = len;
        int c = 0;
        while (c < n && isToken(line[c])) {
            c++;
        }
        if (c == 0 || c >= n || line[c] != ':') {
            // also a space before the colon, and obsolete line folding (a line starting with SP or HT)
            return fail(MALFORMED, "bad header line");
        }
        int vs = c + 1;
        while (vs < n && (line[vs] == ' ' || line[vs] == '\t')) {
            vs++;
        }
        int ve = n;
        while (ve > vs && (line[ve - 1] == ' ' || line[ve - 1] == '\t')) {
            ve--;
        }
        for (int k = vs; k < ve; k++) {
            int v = line[k] & 0xff;
            if ((v < 0x20 && v != '\t') || v == 0x7f) {
                return fail(MALFORMED, "control character in a header value");
            }
        }
        if (nameIs(CONTENT_LENGTH, c)) {
            long value = 0;
            if (ve == vs || ve - vs > 18) {
                return fail(MALFORMED, "bad Content-Length");
            }
            for (int k = vs; k < ve; k++) {
                if (!isDigit(line[k])) {
                    return fail(MALFORMED, "bad Content-Length");
                }
                value = value * 10 + (line[k] - '0');
            }
            if (contentLength >= 0 && contentLength != value) {
                return fail(MALFORMED, "conflicting Content-Length headers");
            }
            contentLength = value;
        } else if (nameIs(TRANSFER_ENCODING, c)) {
            transferEncoding = true;
        } else if (nameIs(CONNECTION, c)) {
            connectionTokens(vs, ve);
        } else if (nameIs(HOST, c)) {
            if (host) { // RFC 9112 §3.2: more than one Host field line is a 400
                return fail(MALFORMED, "more than one Host header");
            }
            host = true;
        } else if (nameIs(AUTHORIZATION, c) && authorization == null) {
            authorization = new String(line, vs, ve - vs, StandardCharsets.ISO_8859_1);
        }
        return null;
    }

    private void connectionTokens(int from, int to) {
        String value = new String(line, from, to - from, StandardCharsets.ISO_8859_1);
        for (String token : value.split(",")) {
            String t = token.trim();
            if (t.equalsIgnoreCase("close")) {
                close = true;
            } else if (t.equalsIgnoreCase("keep-alive")) {
                keepAliveToken = true;
            }
        }
    }

    private Request complete() {
        if (!http10 && !host) {
            // RFC 9112 section 3.2: HTTP/1.1 requires Host (HTTP/1.0 may omit it). The kubelet's prober always sends
            // one (kubelet: pkg/probe/http/request.go; Go's net/http writes the URL's host, or httpHeaders' Host)
            return fail(MISSING_HOST, "HTTP/1.1 request without a Host header");
        }
        boolean body = transferEncoding || contentLength > 0;
        // HTTP/1.1 is kept alive unless "Connection: close"; HTTP/1.0 only with "Connection: keep-alive".
        boolean keepAlive = !close && (!http10 || keepAliveToken);
        Request r = new Request(method, target, http10, keepAlive, body, authorization, null, null);
        method = null;
        target = null;
        http10 = false;
        close = false;
        keepAliveToken = false;
        transferEncoding = false;
        contentLength = -1;
        authorization = null;
        host = false;
        len = 0;
        if (line.length > 4 * INITIAL_LINE) {
            line = new byte[INITIAL_LINE]; // a large head leaves no large buffer behind
        }
        state = body ? State.DONE : State.START;
        return r;
    }

    private boolean nameIs(byte[] lower, int nameLength) {
        if (nameLength != lower.length) {
            return false;
        }
        for (int k = 0; k < nameLength; k++) {
            int b = line[k];
            if (b >= 'A' && b <= 'Z') {
                b += 'a' - 'A';
            }
            if (b != lower[k]) {
                return false;
            }
        }
        return true;
    }

    /** RFC 9110 tchar. */
    private static boolean isToken(byte b) {
        if ((b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9')) {
            return true;
        }
        switch (b) {
            case '!': case '#': case '$': case '%': case '&': case '\'': case '*': case '+': case '-': case '.':
            case '^': case '_': case '`': case '|': case '~':
                return true;
            default:
                return false;
        }
    }

    /** A control character other than CR and LF (which end lines). */
    private static boolean isControl(byte b) {
        int v = b & 0xff;
        return (v < 0x20 && v != '\r' && v != '\n') || v == 0x7f;
    }

    /** A request-target byte: visible, not a space or a control character (obs-text allowed). */
    private static boolean isVisible(byte b) {
        int v = b & 0xff;
        return v > 0x20 && v != 0x7f;
    }

    private static boolean isDigit(byte b) {
        return b >= '0' && b <= '9';
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
