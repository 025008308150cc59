package dev.vitals.server;

import dev.vitals.Groups;
import dev.vitals.Health;
import dev.vitals.HealthRegistry;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The table of request heads both transports must answer alike: what arrives, which statuses come
 * back in order, and whether the connection is then closed (lingering) or kept alive. One
 * {@link ProbeConnection} answers for both transports, so {@link ProbeConnectionTest} checks the
 * table once in memory, under every split of its bytes, and {@link TransportAgreementTest} sends
 * it over sockets to each transport. The registry: liveness UP, readiness DOWN, both scheduled;
 * {@link #MAX_HEADER_SIZE} 256 bytes.
 *
 * <p>Where RFC 9112 leaves a choice, the rule is the parser's ({@link Http1Parser}): a bare LF
 * ends a line; obsolete line folding is 400; a request with a body (any {@code Transfer-Encoding}
 * or {@code Content-Length} over 0, both together too) is answered and the connection closed; the
 * header block's limit counts its line ends; a control byte is 400 as soon as it arrives.
 */
final class Heads {
    static final int MAX_HEADER_SIZE = 256;

    /** One row: the bytes sent, the statuses expected in order, whether the connection closes after. */
    record Row(String name, byte[] request, List<Integer> statuses, boolean closes, boolean head) {
        @Override
        public String toString() {
            return name;
        }
    }

    static final List<Row> ROWS = rows();

    private Heads() {
    }

    /** A registry for the table: liveness UP ("alive"), readiness DOWN ("db"), scheduled; started. */
    static HealthRegistry registry() {
        HealthRegistry r = HealthRegistry.builder()
                .register(Fixtures.scheduled("alive", Health::up, Groups.LIVENESS))
                .register(Fixtures.scheduled("db", () -> Health.down("no db"), Groups.READINESS))
                .build();
        r.start();
        return r;
    }

    private static List<Row> rows() {
        List<Row> t = new ArrayList<>();
        String kubelet = "Host: 10.1.2.3:8081\r\nUser-Agent: kube-probe/1.31\r\nAccept: */*\r\n";
        open(t, "kubelet's probe", "GET /livez HTTP/1.1\r\n" + kubelet + "Connection: close\r\n\r\n", true, 200);
        open(t, "HTTP/1.1 is kept alive", "GET /livez HTTP/1.1\r\nHost: x\r\n\r\n", false, 200);
        open(t, "HTTP/1.1 Connection: close among tokens", "GET /livez HTTP/1.1\r\nHost: x\r\nConnection: TE, Close\r\n\r\n", true, 200);
        open(t, "HTTP/1.0 closes", "GET /livez HTTP/1.0\r\n\r\n", true, 200);
        open(t, "HTTP/1.1 without Host 400 (RFC 9112 3.2)", "GET /livez HTTP/1.1\r\nConnection: keep-alive\r\n\r\n", true, 400);
        open(t, "HTTP/1.1 Host after other headers", "GET /livez HTTP/1.1\r\nAccept: */*\r\nhost: x\r\n\r\n", false, 200);
        open(t, "HTTP/1.1 empty Host value", "GET /livez HTTP/1.1\r\nHost:\r\n\r\n", false, 200);
        open(t, "HTTP/1.0 keep-alive", "GET /livez HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", false, 200);
        open(t, "pipelined, answered in order", "GET /livez HTTP/1.1\r\nHost: x\r\n\r\nGET /readyz HTTP/1.1\r\nHost: x\r\n\r\n"
                + "GET /nope HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", true, 200, 503, 404);
        t.add(new Row("HEAD", ascii("HEAD /readyz HTTP/1.1\r\nHost: x\r\n\r\n"), List.of(503), false, true));
        open(t, "bare LF ends lines", "GET /livez HTTP/1.1\nHost: x\n\n", false, 200);
        open(t, "empty lines before the request line", "\r\n\r\nGET /livez HTTP/1.1\r\nHost: x\r\n\r\n", false, 200);
        open(t, "absolute-form target", "GET http://x:8081/livez HTTP/1.1\r\nHost: x\r\n\r\n", false, 200);
        open(t, "tabs around a header value", "GET /livez HTTP/1.1\r\nHost: x\r\nX-A:\ta b\t\r\n\r\n", false, 200);
        open(t, "non-ASCII in a header value", "GET /livez HTTP/1.1\r\nHost: x\r\nX-A: caf\u00e9\r\n\r\n", false, 200);
        open(t, "unknown path 404", "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", false, 404);
        open(t, "other method 405", "DELETE /livez HTTP/1.1\r\nHost: x\r\n\r\n", false, 405);
        open(t, "methods are case-sensitive", "get /livez HTTP/1.1\r\nHost: x\r\n\r\n", false, 405);
        open(t, "unsupported query 400, kept alive", "GET /livez?x=1 HTTP/1.1\r\nHost: x\r\n\r\n", false, 400);
        open(t, "a body: answered, closed", "GET /livez HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello", true, 200);
        open(t, "chunked body: answered, closed", "POST /livez HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
                true, 405);
        open(t, "Content-Length with Transfer-Encoding: answered, closed",
                "POST /livez HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\nabc", true, 405);
        open(t, "Content-Length 0 is no body", "GET /livez HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n", false, 200);
        open(t, "conflicting Content-Length 400", "GET /livez HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
                true, 400);
        open(t, "one Host per request on a kept-alive connection",
                "GET /livez HTTP/1.1\r\nHost: a\r\n\r\nGET /livez HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", true, 200, 200);
        open(t, "bad Content-Length 400", "GET /livez HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n", true, 400);
        open(t, "obsolete line folding 400", "GET /livez HTTP/1.1\r\nHost: x\r\nX-A: a\r\n b\r\n\r\n", true, 400);
        open(t, "space before a header's colon 400", "GET /livez HTTP/1.1\r\nHost : x\r\n\r\n", true, 400);
        open(t, "header without a colon 400", "GET /livez HTTP/1.1\r\nHost\r\n\r\n", true, 400);
        // RFC 9112 §3.2: a request with more than one Host field line is a 400 (issue 40)
        open(t, "two Host headers 400", "GET /livez HTTP/1.1\r\nHost: a\r\nhost: b\r\n\r\n", true, 400);
        open(t, "control byte in the request line 400", "GET /li\u0001vez HTTP/1.1\r\nHost: x\r\n\r\n", true, 400);
        open(t, "control byte in a header value 400", "GET /livez HTTP/1.1\r\nHost: x\r\nX-A: a\u0000b\r\n\r\n", true, 400);
        open(t, "DEL in the target 400", "GET /livez\u007f HTTP/1.1\r\nHost: x\r\n\r\n", true, 400);
        open(t, "no version 400", "GET /livez\r\n\r\n", true, 400);
        open(t, "lower-case version 400", "GET /livez http/1.1\r\n\r\n", true, 400);
        open(t, "HTTP/2 preface 400", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", true, 400);
        open(t, "HTTP/3.0 400", "GET /livez HTTP/3.0\r\n\r\n", true, 400);
        open(t, "garbage line 400", "GARBAGE\r\n\r\n", true, 400);
        open(t, "answered, then garbage 400", "GET /livez HTTP/1.1\r\nHost: x\r\n\r\nGARBAGE\r\n\r\n", true, 200, 400);
        open(t, "request line over the limit 400", "GET /" + "a".repeat(MAX_HEADER_SIZE) + " HTTP/1.1\r\nHost: x\r\n\r\n", true, 400);
        open(t, "header block over the limit 431", "GET /livez HTTP/1.1\r\nHost: x\r\nX-A: " + "a".repeat(MAX_HEADER_SIZE) + "\r\n\r\n",
                true, 431);
        open(t, "line ends count toward the limit 431", "GET /livez HTTP/1.1\r\nHost: x\r\n" + "X: a\r\n".repeat(50) + "\r\n", true, 431);
        open(t, "header block at the limit", "GET /livez HTTP/1.1\r\nHost: x\r\nX-A: " + "a".repeat(MAX_HEADER_SIZE - 18) + "\r\n\r\n",
                false, 200);
        byte[] hello = new byte[48];
        byte[] tls = {0x16, 0x03, 0x01, 0x00, (byte) 0xa5, 0x01, 0x00, 0x00, (byte) 0xa1, 0x03, 0x03};
        System.arraycopy(tls, 0, hello, 0, tls.length);
        t.add(new Row("TLS ClientHello 400", hello, List.of(400), true, false));
        return List.copyOf(t);
    }

    private static void open(List<Row> t, String name, String request, boolean closes, Integer... statuses) {
        t.add(new Row(name, ascii(request), List.of(statuses), closes, false));
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }
}
