package dev.vitals.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The JDK transport's request-head parser alone: the same answers whether the bytes come at once
 * or one at a time, the limits, and what it reads from the headers. The transport around it is
 * covered on real sockets by the server tests, which run on both transports.
 */
class Http1ParserTest {
    @Test
    void anHttp11HeadWithoutHostIsAFailureAndAnHttp10OneIsNot() {
        Http1Parser.Request r = one("GET /livez HTTP/1.1\r\nAccept: */*\r\n\r\n");
        assertThat(r.failure).isSameAs(Http1Parser.MISSING_HOST);
        assertThat(r.cause).isEqualTo("HTTP/1.1 request without a Host header");
        assertThat(one("GET /livez HTTP/1.0\r\n\r\n").failure).isNull();
        assertThat(one("GET /livez HTTP/1.1\r\nHOST: a\r\n\r\n").failure).isNull();
    }

    @Test
    void readsWhatTheServerNeedsWhetherBytesComeAtOnceOrOneByOne() {
        String two = "\r\nGET /livez?verbose HTTP/1.1\r\nHost: x\r\nAuthorization:  Bearer t0ken \r\n"
                + "connection: Keep-Alive, Upgrade\r\n\r\nHEAD /readyz HTTP/1.0\nConnection: keep-alive\n\n";
        for (boolean oneByOne : new boolean[] {false, true}) {
            List<Http1Parser.Request> rs = parse(new Http1Parser(8192), two, oneByOne);
            assertThat(rs).hasSize(2);
            Http1Parser.Request get = rs.get(0);
            assertThat(get.failure).isNull();
            assertThat(get.method).isEqualTo("GET");
            assertThat(get.target).isEqualTo("/livez?verbose");
            assertThat(get.authorization).isEqualTo("Bearer t0ken");
            assertThat(get.keepAlive).isTrue();
            assertThat(get.http10).isFalse();
            assertThat(get.hasBody).isFalse();
            Http1Parser.Request head = rs.get(1);
            assertThat(head.method).isEqualTo("HEAD");
            assertThat(head.http10).isTrue();
            assertThat(head.keepAlive).isTrue();
        }
    }

    @Test
    void keepAliveFollowsTheVersionAndTheConnectionHeader() {
        assertThat(one("GET / HTTP/1.1\r\nHost: x\r\n\r\n").keepAlive).isTrue();
        assertThat(one("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").keepAlive).isFalse();
        assertThat(one("GET / HTTP/1.0\r\n\r\n").keepAlive).isFalse();
        assertThat(one("GET / HTTP/1.0\r\nConnection: keep-alive, close\r\n\r\n").keepAlive).isFalse();
    }

    @Test
    void aRequestWithABodyEndsTheParsing() {
        Http1Parser p = new Http1Parser(8192);
        List<Http1Parser.Request> rs = parse(p, "POST /livez HTTP/1.1\r\nHost: x\r\nContent-Length: 27\r\n\r\n"
                + "GET /livez HTTP/1.1\r\nHost: x\r\n\r\n", false);
        assertThat(rs).hasSize(1);
        assertThat(rs.get(0).hasBody).isTrue();
        assertThat(one("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n").hasBody).isTrue();
        assertThat(one("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n").hasBody).isFalse();
    }

    @Test
    void badHeadsAreAnsweredWithTheRightStatusAndEndTheParsing() {
        assertThat(one("GET /livez HTTP/9.9\r\n\r\n").failure).isSameAs(Http1Parser.UNSUPPORTED_VERSION);
        assertThat(one("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n").failure).isSameAs(Http1Parser.UNSUPPORTED_VERSION);
        for (String bad : new String[] {"NOT HTTP AT ALL\r\n\r\n", "GET /livez\r\n\r\n", "GET  HTTP/1.1\r\nHost: x\r\n\r\n",
                "G\u00e9T / HTTP/1.1\r\nHost: x\r\n\r\n", "GET / HTTP/1.1\r\nHost: x\r\nBad Header Without Colon\r\n\r\n",
                "GET / HTTP/1.1\r\nHost : x\r\n\r\n", "GET / HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n",
                "GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 1x\r\n\r\n", "GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
                "GET / HTTP/1.1\r\nHost: x\r\nX: a\u0001b\r\n\r\n", "GET /\u0001 HTTP/1.1\r\nHost: x\r\n\r\n"}) {
            Http1Parser.Request r = one(bad);
            assertThat(r.failure).as(bad).isSameAs(Http1Parser.MALFORMED);
        }
        Http1Parser p = new Http1Parser(256);
        assertThat(parse(p, "GET /" + "x".repeat(300) + " HTTP/1.1\r\nHost: x\r\n\r\n", true).get(0).failure)
                .isSameAs(Http1Parser.LINE_TOO_LONG);
        p = new Http1Parser(256);
        List<Http1Parser.Request> rs = parse(p, "GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + "a".repeat(300) + "\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n", false);
        assertThat(rs).hasSize(1);
        assertThat(rs.get(0).failure).isSameAs(Http1Parser.HEADER_TOO_LARGE);
        assertThat(Http1Parser.HEADER_TOO_LARGE.status()).isEqualTo(431);
        assertThat(Http1Parser.LINE_TOO_LONG.status()).isEqualTo(400);
    }

    @Test
    void aControlByteFailsAsItArrivesNotAtTheEndOfTheLine() {
        // QA: a TLS ClientHello or a NUL waited for a newline that never comes (then the read timeout)
        for (String partial : List.of("\u0016\u0003\u0001", "\0", "GET /livez\0", "GET /livez\tHTTP/1.1",
                "GET /livez HTTP/1.1\r\nHost: x\u0001", "GET / HTTP/1.1\r\nHost: x\r\nX: \u007f")) {
            for (boolean oneByOne : new boolean[] {false, true}) {
                List<Http1Parser.Request> rs = parse(new Http1Parser(8192), partial, oneByOne);
                assertThat(rs).as(partial).hasSize(1);
                assertThat(rs.get(0).failure).isSameAs(Http1Parser.MALFORMED);
            }
        }
        // a tab inside a header value is allowed (RFC 9110 section 5.5)
        assertThat(one("GET / HTTP/1.1\r\nHost: x\r\nX: a\tb\r\n\r\n").failure).isNull();
    }

    private static Http1Parser.Request one(String text) {
        List<Http1Parser.Request> rs = parse(new Http1Parser(8192), text, false);
        assertThat(rs).as(text).hasSize(1);
        return rs.get(0);
    }

    private static List<Http1Parser.Request> parse(Http1Parser p, String text, boolean oneByOne) {
        byte[] bytes = text.getBytes(StandardCharsets.ISO_8859_1);
        List<Http1Parser.Request> out = new ArrayList<>();
        if (oneByOne) {
            for (byte b : bytes) {
                ByteBuffer buf = ByteBuffer.wrap(new byte[] {b});
                for (Http1Parser.Request r = p.next(buf); r != null; r = p.next(buf)) {
                    out.add(r);
                }
            }
        } else {
            ByteBuffer buf = ByteBuffer.wrap(bytes);
            for (Http1Parser.Request r = p.next(buf); r != null; r = p.next(buf)) {
                out.add(r);
            }
        }
        return out;
    }
}
