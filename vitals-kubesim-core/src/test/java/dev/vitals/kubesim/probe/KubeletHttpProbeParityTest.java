package dev.vitals.kubesim.probe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vitals.kubesim.TestHttpServer;
import dev.vitals.kubesim.model.ProbeHandler;
import dev.vitals.kubesim.model.ProbeOutcome;
import dev.vitals.kubesim.model.ProbeResult;
import dev.vitals.kubesim.model.ProbeSpec;
import dev.vitals.kubesim.model.ProbeType;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * The HTTP prober held against the kubelet's own tests: each method names the Go test it
 * mirrors, {@code file TestName}, in kubernetes {@code pkg/probe/http}. Real loopback server.
 */
class KubeletHttpProbeParityTest {
    private final Prober prober = new Prober("127.0.0.1", Map.of(), "1.36");

    private static ProbeSpec http(int port, ProbeHandler.HttpHeader... headers) {
        return new ProbeSpec(ProbeType.READINESS, new ProbeHandler.HttpGet(Optional.empty(), ProbeHandler.PortRef.of(port), "/",
                "HTTP", List.of(headers)), 0, 2, 10, 1, 3, OptionalLong.empty());
    }

    private static ProbeHandler.HttpHeader h(String name, String value) {
        return new ProbeHandler.HttpHeader(name, value);
    }

    private String headSent(ProbeHandler.HttpHeader... headers) throws Exception {
        try (TestHttpServer s = new TestHttpServer((head, out, sock) -> TestHttpServer.answer(out, 200, "", "ok"))) {
            assertThat(prober.probe(http(s.port(), headers)).result()).isEqualTo(ProbeResult.SUCCESS);
            return s.requests.get(0);
        }
    }

    /** request_test.go Test_v1HeaderToHTTPHeader, case "case insensitive": names are canonicalized. */
    @Test
    void requestTest_v1HeaderToHTTPHeader_caseInsensitive() {
        assertThat(Prober.canonicalHeaderKey("FOO-bAR")).isEqualTo("Foo-Bar");
        assertThat(Prober.canonicalHeaderKey("HOST")).isEqualTo("Host");
        assertThat(Prober.canonicalHeaderKey("x-request-id")).isEqualTo("X-Request-Id");
        assertThat(Prober.canonicalHeaderKey("bad name")).isEqualTo("bad name"); // not a token: kept
    }

    /** http_test.go TestHTTPProbeChecker, "Accept: text/html" replaces the default Accept, in any case. */
    @Test
    void httpTest_TestHTTPProbeChecker_acceptOverrideOfAnyCaseReplacesTheDefault() throws Exception {
        String head = headSent(h("accept", "text/html"));
        assertThat(head).contains("Accept: text/html\r\n").doesNotContain("*/*");
    }

    /** http_test.go TestHTTPProbeChecker, an empty Accept removes the header. */
    @Test
    void httpTest_TestHTTPProbeChecker_emptyAcceptOverrideRemovesIt() throws Exception {
        assertThat(headSent(h("ACCEPT", ""))).doesNotContainIgnoringCase("accept:");
    }

    /** http_test.go TestHTTPProbeChecker, a User-Agent override (any case) replaces kube-probe/X.Y. */
    @Test
    void httpTest_TestHTTPProbeChecker_userAgentOverride() throws Exception {
        String head = headSent(h("user-agent", "foo/1.0"));
        assertThat(head).contains("User-Agent: foo/1.0\r\n").doesNotContain("kube-probe");
    }

    /** http_test.go TestHTTPProbeChecker, an empty User-Agent sends none. */
    @Test
    void httpTest_TestHTTPProbeChecker_emptyUserAgentOverride() throws Exception {
        assertThat(headSent(h("User-agent", ""))).doesNotContainIgnoringCase("user-agent");
    }

    /** http_test.go TestHTTPProbeChecker, a Host header (any case) sets the virtual host; an empty one does not. */
    @Test
    void httpTest_TestHTTPProbeChecker_hostHeader() throws Exception {
        assertThat(headSent(h("host", "svc.example"))).contains("Host: svc.example\r\n");
        assertThat(headSent(h("Host", ""))).contains("Host: 127.0.0.1:").doesNotContain("Host: \r\n");
    }

    /** http_test.go TestHTTPProbeChecker: the output of a 2xx is the response body (http.go DoHTTPProbe). */
    @Test
    void httpTest_TestHTTPProbeChecker_successOutputIsTheBody() throws Exception {
        try (TestHttpServer s = new TestHttpServer((head, out, sock) -> TestHttpServer.answer(out, 200, "", "all good"))) {
            ProbeOutcome o = prober.probe(http(s.port()));
            assertThat(o.result()).isEqualTo(ProbeResult.SUCCESS);
            assertThat(o.message()).isEqualTo("all good");
        }
    }

    /**
     * Go's transport.go roundTrip (httpguts.ValidHeaderFieldValue/ValidHeaderFieldName, request.go's Host
     * check): a CR or LF in a header value, a name that is not a token or a Host with a control character
     * never reaches the wire; the probe fails with Go's error (http.go: probe.Failure).
     */
    @Test
    void transportRoundTrip_invalidHeaderFieldsFailTheProbeBeforeAnyRequest() throws Exception {
        try (TestHttpServer s = new TestHttpServer((head, out, sock) -> TestHttpServer.answer(out, 200, "", "ok"))) {
            ProbeOutcome crlf = prober.probe(http(s.port(), h("X-A", "b\r\nHost: evil")));
            assertThat(crlf.result()).isEqualTo(ProbeResult.FAILURE);
            assertThat(crlf.message()).endsWith(": net/http: invalid header field value for \"X-A\"").doesNotContain("evil");
            ProbeOutcome name = prober.probe(http(s.port(), h("bad name", "x")));
            assertThat(name.result()).isEqualTo(ProbeResult.FAILURE);
            assertThat(name.message()).endsWith(": net/http: invalid header field name \"bad name\"");
            ProbeOutcome host = prober.probe(http(s.port(), h("Host", "a\nb")));
            assertThat(host.result()).isEqualTo(ProbeResult.FAILURE);
            assertThat(host.message()).endsWith(": http: invalid Host header");
            assertThat(prober.probe(http(s.port(), h("X-Tab", "a\tb"))).result()).isEqualTo(ProbeResult.SUCCESS); // a tab is allowed
            assertThat(s.requests).hasSize(1); // only the valid one was sent
        }
    }
}
