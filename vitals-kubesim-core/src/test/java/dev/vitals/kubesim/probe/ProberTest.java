package dev.vitals.kubesim.probe;

import dev.vitals.kubesim.TestHttpServer;
import dev.vitals.kubesim.model.ProbeHandler;
import dev.vitals.kubesim.model.ProbeOutcome;
import dev.vitals.kubesim.model.ProbeResult;
import dev.vitals.kubesim.model.ProbeSpec;
import dev.vitals.kubesim.model.ProbeType;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import io.grpc.Server;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.protobuf.services.HealthStatusManager;
import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The prober against real loopback servers (R56–R68). */
class ProberTest {
    private final Prober prober = new Prober("127.0.0.1", Map.of("web", 0), "1.36");

    private static ProbeSpec http(int port, String path, int timeout, ProbeHandler.HttpHeader... headers) {
        return new ProbeSpec(ProbeType.LIVENESS, new ProbeHandler.HttpGet(Optional.empty(), ProbeHandler.PortRef.of(port), path,
                "HTTP", List.of(headers)), 0, timeout, 10, 1, 3, OptionalLong.empty());
    }

    private static ProbeSpec spec(ProbeHandler h, int timeout) {
        return new ProbeSpec(ProbeType.LIVENESS, h, 0, timeout, 10, 1, 3, OptionalLong.empty());
    }

    @Test
    void r61_statusRangesAndR57_defaultHeadersOnAFreshConnection() throws Exception {
        try (TestHttpServer s = new TestHttpServer((head, out, sock) -> TestHttpServer.answer(out,
                Integer.parseInt(head.split(" ")[1].substring(1)), "", "body"))) {
            assertThat(prober.probe(http(s.port(), "/200", 1)).result()).isEqualTo(ProbeResult.SUCCESS);
            assertThat(prober.probe(http(s.port(), "/299", 1)).result()).isEqualTo(ProbeResult.SUCCESS);
            ProbeOutcome w = prober.probe(http(s.port(), "/304", 1));
            assertThat(w.result()).isEqualTo(ProbeResult.WARNING); // 3xx without Location
            assertThat(prober.probe(http(s.port(), "/400", 1)).result()).isEqualTo(ProbeResult.FAILURE);
            ProbeOutcome f = prober.probe(http(s.port(), "/503", 1));
            assertThat(f.result()).isEqualTo(ProbeResult.FAILURE);
            assertThat(f.message()).isEqualTo("HTTP probe failed with statuscode: 503").doesNotContain("body");
            String head = s.requests.get(0);
            assertThat(head).startsWith("GET /200 HTTP/1.1\r\n").contains("Host: 127.0.0.1:" + s.port() + "\r\n")
                    .contains("User-Agent: kube-probe/1.36\r\n").contains("Accept: */*\r\n").contains("Connection: close\r\n")
                    .doesNotContainIgnoringCase("accept-encoding");
        }
    }

    @Test
    void getIsTheProbesRequestUnderADeadlineOfAnyLength() throws Exception {
        try (TestHttpServer s = new TestHttpServer((head, out, sock) -> TestHttpServer.answer(out,
                Integer.parseInt(head.split(" ")[1].substring(1)), "", "body"))) {
            ProbeOutcome ok = prober.get(s.port(), "/200", java.time.Duration.ofMillis(1500));
            assertThat(ok.result()).isEqualTo(ProbeResult.SUCCESS);
            assertThat(ok.latency()).isPositive();
            assertThat(prober.get(s.port(), "/302", java.time.Duration.ofMillis(800)).result().counted())
                    .isEqualTo(ProbeResult.SUCCESS); // 3xx without Location: a Warning, counted as success (R61)
            assertThat(prober.get(s.port(), "/503", java.time.Duration.ofSeconds(2)).result()).isEqualTo(ProbeResult.FAILURE);
            assertThat(s.requests.get(0)).startsWith("GET /200 HTTP/1.1\r\n").contains("User-Agent: kube-probe/1.36\r\n")
                    .contains("Connection: close\r\n");
        }
        try (java.net.ServerSocket silent = new java.net.ServerSocket(0, 10, java.net.InetAddress.getLoopbackAddress())) {
            ProbeOutcome late = prober.get(silent.getLocalPort(), "/", java.time.Duration.ofMillis(300));
            assertThat(late.result()).isEqualTo(ProbeResult.FAILURE);
            assertThat(late.message()).contains("deadline exceeded");
        }
        assertThatThrownBy(() -> prober.get(0, "/", java.time.Duration.ofSeconds(1))).hasMessage("port must be 1-65535, was 0");
        assertThatThrownBy(() -> prober.get(80, "x", java.time.Duration.ofSeconds(1))).hasMessage("path must start with /, was 'x'");
        assertThatThrownBy(() -> prober.get(80, "/", java.time.Duration.ZERO)).hasMessage("timeout must be more than 0, was PT0S");
    }

    @Test
    void theModuleHasOneHttpGetTheProbers() throws Exception {
        // found by QA: replay's boot calibration wrote its own GET on a raw socket (as did fleet calibrate and
        // the live fleet's clients): a second HTTP client whose idea of "answers" could drift from the prober's
        Path main = Path.of("src", "main", "java");
        List<String> writers;
        try (java.util.stream.Stream<Path> files = java.nio.file.Files.walk(main)) {
            writers = files.filter(f -> f.toString().endsWith(".java"))
                    .filter(f -> {
                        try {
                            return java.util.regex.Pattern.compile("\"GET \"\\s*[+)]|append\\(\"GET \"\\)")
                                    .matcher(java.nio.file.Files.readString(f)).find();
                        } catch (java.io.IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    })
                    .map(f -> main.relativize(f).toString()).sorted().toList();
        }
        assertThat(writers).containsExactly(Path.of("dev", "vitals", "kubesim", "probe", "Prober.java").toString());
    }

    @Test
    void r57_customHeadersHostAndRemovingUserAgent() throws Exception {
        try (TestHttpServer s = new TestHttpServer((head, out, sock) -> TestHttpServer.answer(out, 200, "", "ok"))) {
            prober.probe(http(s.port(), "/", 1, new ProbeHandler.HttpHeader("X-A", "1"), new ProbeHandler.HttpHeader("X-A", "2"),
                    new ProbeHandler.HttpHeader("Host", "svc.example"), new ProbeHandler.HttpHeader("User-Agent", "")));
            String head = s.requests.get(0);
            assertThat(head).contains("X-A: 1\r\n").contains("X-A: 2\r\n").contains("Host: svc.example\r\n")
                    .doesNotContain("User-Agent");
        }
    }

    @Test
    void r62_sameHostRedirectsAreFollowedOtherHostsAreWarningsLoopsFail() throws Exception {
        try (TestHttpServer s = new TestHttpServer(null)) {
            int port = s.port();
            s.responder((head, out, sock) -> {
                String path = head.split(" ")[1];
                if (path.equals("/moved")) {
                    TestHttpServer.answer(out, 302, "Location: /final\r\n", "");
                } else if (path.equals("/away")) {
                    TestHttpServer.answer(out, 301, "Location: http://localhost:" + port + "/final\r\n", "see there");
                } else if (path.equals("/abs")) {
                    TestHttpServer.answer(out, 302, "Location: http://127.0.0.1:" + port + "/final\r\n", "");
                } else if (path.startsWith("/loop")) {
                    TestHttpServer.answer(out, 302, "Location: /loop\r\n", "");
                } else {
                    TestHttpServer.answer(out, 200, "", "ok");
                }
            });
            ProbeOutcome followed = prober.probe(http(port, "/moved", 2, new ProbeHandler.HttpHeader("Host", "vhost")));
            assertThat(followed.result()).isEqualTo(ProbeResult.SUCCESS);
            assertThat(s.requests.get(1)).startsWith("GET /final").contains("Host: vhost\r\n")
                    .contains("Referer: http://127.0.0.1:" + port + "/moved");
            s.requests.clear();
            prober.probe(http(port, "/abs", 2, new ProbeHandler.HttpHeader("Host", "vhost")));
            assertThat(s.requests.get(1)).contains("Host: 127.0.0.1:" + port + "\r\n"); // absolute Location drops it
            ProbeOutcome away = prober.probe(http(port, "/away", 2));
            assertThat(away.result()).isEqualTo(ProbeResult.WARNING);
            assertThat(away.message()).contains("Probe terminated redirects").contains("see there");
            s.requests.clear();
            ProbeOutcome loop = prober.probe(http(port, "/loop", 5));
            assertThat(loop.result()).isEqualTo(ProbeResult.FAILURE);
            assertThat(loop.message()).contains("stopped after 10 redirects");
            assertThat(s.requests).hasSize(10);
        }
    }

    @Test
    void goRedirectBehavior_300And304WithALocationAreNotFollowed() throws Exception {
        // net/http client.go redirectBehavior: only 301, 302, 303, 307, 308 are followed; the kubelet's
        // http.go then reads any 3xx it is handed as a Warning ("Probe terminated redirects")
        try (TestHttpServer s = new TestHttpServer(null)) {
            s.responder((head, out, sock) -> {
                String path = head.split(" ")[1];
                if (path.equals("/choices")) {
                    TestHttpServer.answer(out, 300, "Location: /broken\r\n", "pick one");
                } else if (path.equals("/cached")) {
                    TestHttpServer.answer(out, 304, "Location: /broken\r\n", "");
                } else if (path.equals("/temporary")) {
                    TestHttpServer.answer(out, 307, "Location: /broken\r\n", "");
                } else {
                    TestHttpServer.answer(out, 500, "", "broken");
                }
            });
            for (String path : new String[] {"/choices", "/cached"}) {
                s.requests.clear();
                ProbeOutcome o = prober.probe(http(s.port(), path, 2));
                assertThat(o.result()).as(path).isEqualTo(ProbeResult.WARNING);
                assertThat(o.message()).as(path).startsWith("Probe terminated redirects");
                assertThat(s.requests).as(path).hasSize(1);
            }
            ProbeOutcome followed = prober.probe(http(s.port(), "/temporary", 2));
            assertThat(followed.result()).isEqualTo(ProbeResult.FAILURE);
            assertThat(followed.message()).contains("statuscode: 500");
        }
    }

    @Test
    void r60_bodyIsCutAt10KiBSilently() throws Exception {
        String big = "x".repeat(1_000_000);
        try (TestHttpServer s = new TestHttpServer((head, out, sock) -> TestHttpServer.answer(out,
                head.contains("/redirect") ? 399 : 200, "", big))) {
            assertThat(prober.probe(http(s.port(), "/", 2)).result()).isEqualTo(ProbeResult.SUCCESS);
            ProbeOutcome w = prober.probe(http(s.port(), "/redirect", 2));
            assertThat(w.result()).isEqualTo(ProbeResult.WARNING);
            assertThat(w.message().length()).isLessThan(Prober.MAX_BODY + 100);
        }
    }

    @Test
    void chunkedBodiesAreRead() throws Exception {
        try (TestHttpServer s = new TestHttpServer((head, out, sock) -> out.write(
                "HTTP/1.1 302 Found\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n"
                        .getBytes(StandardCharsets.ISO_8859_1)))) {
            ProbeOutcome o = prober.probe(http(s.port(), "/", 1));
            assertThat(o.result()).isEqualTo(ProbeResult.WARNING);
            assertThat(o.message()).endsWith("hello world");
        }
    }

    @Test
    void r59_timeoutBeforeHeadersIsAFailureAndWhileReadingTheBodyAnError() throws Exception {
        try (TestHttpServer s = new TestHttpServer((head, out, sock) -> {
            if (head.contains("/body")) {
                out.write("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npartial".getBytes(StandardCharsets.ISO_8859_1));
                out.flush();
            }
            Thread.sleep(5000);
        })) {
            ProbeOutcome hang = prober.probe(http(s.port(), "/hang", 1));
            assertThat(hang.result()).isEqualTo(ProbeResult.FAILURE);
            assertThat(hang.message()).contains("Client.Timeout");
            assertThat(hang.latency()).isBetween(Duration.ofMillis(900), Duration.ofMillis(3500));
            ProbeOutcome body = prober.probe(http(s.port(), "/body", 1));
            assertThat(body.result()).isEqualTo(ProbeResult.ERROR);
            assertThat(body.message()).contains("reading HTTP response body");
        }
    }

    @Test
    void refusedConnectionsAreCountedFailures() throws Exception {
        int port;
        try (ServerSocket ss = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = ss.getLocalPort();
        }
        ProbeOutcome o = prober.probe(http(port, "/", 1));
        assertThat(o.result()).isEqualTo(ProbeResult.FAILURE);
        assertThat(o.message()).contains("connection refused");
        assertThat(prober.probe(spec(new ProbeHandler.TcpSocket(Optional.empty(), ProbeHandler.PortRef.of(port)), 1)).result())
                .isEqualTo(ProbeResult.FAILURE);
    }

    @Test
    void r56_r22_namedPortsResolveAndAnUnknownNameIsAnErrorRetriedThreeTimes() throws Exception {
        try (TestHttpServer s = new TestHttpServer((head, out, sock) -> TestHttpServer.answer(out, 200, "", "ok"))) {
            Prober named = new Prober("127.0.0.1", Map.of("web", s.port()), "1.36");
            ProbeSpec ok = spec(new ProbeHandler.HttpGet(Optional.empty(), ProbeHandler.PortRef.named("web"), "/", "HTTP",
                    List.of()), 1);
            assertThat(named.probe(ok).result()).isEqualTo(ProbeResult.SUCCESS);
            ProbeSpec bad = spec(new ProbeHandler.HttpGet(Optional.empty(), ProbeHandler.PortRef.named("metrics"), "/", "HTTP",
                    List.of()), 1);
            ProbeOutcome o = RealProbeExecutor.runWithRetries(named, bad, 1);
            assertThat(o.result()).isEqualTo(ProbeResult.ERROR);
            assertThat(o.attempts()).isEqualTo(3);
            assertThat(o.message()).contains("metrics");
        }
    }

    @Test
    void r58_httpsSkipsCertificateVerification(@TempDir Path dir) throws Exception {
        File ks = dir.resolve("ks.p12").toFile();
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(), "-genkeypair",
                "-alias", "t", "-keyalg", "RSA", "-keysize", "2048", "-dname", "CN=not-this-host", "-validity", "2",
                "-storetype", "PKCS12", "-keystore", ks.getPath(), "-storepass", "secret", "-keypass", "secret")
                .redirectErrorStream(true).start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isZero();
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = new FileInputStream(ks)) {
            store.load(in, "secret".toCharArray());
        }
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(store, "secret".toCharArray());
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(kmf.getKeyManagers(), null, null);
        ServerSocket ss = ctx.getServerSocketFactory().createServerSocket();
        ss.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        try (TestHttpServer s = new TestHttpServer(ss, (head, out, sock) -> TestHttpServer.answer(out, 200, "", "ok"))) {
            ProbeSpec https = spec(new ProbeHandler.HttpGet(Optional.empty(), ProbeHandler.PortRef.of(s.port()), "/", "HTTPS",
                    List.of()), 5);
            ProbeOutcome o = prober.probe(https);
            assertThat(o.result()).as(o.message()).isEqualTo(ProbeResult.SUCCESS);
        }
    }

    @Test
    void r63_tcpConnectIsSuccessEvenIfTheServerClosesAtOnce() throws Exception {
        try (ServerSocket ss = new ServerSocket(0, 10, InetAddress.getLoopbackAddress())) {
            Thread t = new Thread(() -> {
                try {
                    ss.accept().close();
                } catch (IOException ignored) {
                    // closed
                }
            });
            t.setDaemon(true);
            t.start();
            ProbeOutcome o = prober.probe(spec(new ProbeHandler.TcpSocket(Optional.empty(),
                    ProbeHandler.PortRef.of(ss.getLocalPort())), 1));
            assertThat(o.result()).isEqualTo(ProbeResult.SUCCESS);
        }
    }

    @Test
    void r68_execExitCodesTimeoutsAndStartFailures(@TempDir Path dir) throws Exception {
        assertThat(prober.probe(spec(new ProbeHandler.Exec(List.of("true")), 2)).result()).isEqualTo(ProbeResult.SUCCESS);
        Path script = dir.resolve("fail.sh");
        Files.writeString(script, "#!/bin/sh\necho not healthy\nexit 3\n");
        script.toFile().setExecutable(true);
        ProbeOutcome f = prober.probe(spec(new ProbeHandler.Exec(List.of(script.toString())), 2));
        assertThat(f.result()).isEqualTo(ProbeResult.FAILURE);
        assertThat(f.message()).isEqualTo("not healthy\n"); // exec.go: the output is the combined output
        ProbeOutcome t = prober.probe(spec(new ProbeHandler.Exec(List.of("sleep", "10")), 1));
        assertThat(t.result()).isEqualTo(ProbeResult.FAILURE);
        assertThat(t.message()).contains("timed out");
        assertThat(t.latency()).isLessThan(Duration.ofSeconds(5));
        assertThat(prober.probe(spec(new ProbeHandler.Exec(List.of("/no/such/binary")), 1)).result())
                .isEqualTo(ProbeResult.ERROR);
    }

    @Test
    void r64_r66_grpcHealthCheck() throws Exception {
        HealthStatusManager health = new HealthStatusManager();
        health.setStatus("", ServingStatus.SERVING);
        health.setStatus("readiness", ServingStatus.NOT_SERVING);
        Server server = Grpc.newServerBuilderForPort(0, InsecureServerCredentials.create())
                .addService(health.getHealthService()).build().start();
        Server bare = Grpc.newServerBuilderForPort(0, InsecureServerCredentials.create())
                .addService(io.grpc.ServerServiceDefinition.builder("other.Service").build()).build().start();
        int closed = server.getPort();
        try {
            assertThat(prober.probe(spec(new ProbeHandler.Grpc(server.getPort(), ""), 5)).result())
                    .isEqualTo(ProbeResult.SUCCESS);
            ProbeOutcome notServing = prober.probe(spec(new ProbeHandler.Grpc(server.getPort(), "readiness"), 5));
            assertThat(notServing.result()).isEqualTo(ProbeResult.FAILURE);
            assertThat(notServing.message()).contains("NOT_SERVING");
            ProbeOutcome unknown = prober.probe(spec(new ProbeHandler.Grpc(server.getPort(), "nope"), 5));
            assertThat(unknown.result()).isEqualTo(ProbeResult.FAILURE);
            assertThat(unknown.message()).contains("NOT_FOUND");
            ProbeOutcome unimpl = prober.probe(spec(new ProbeHandler.Grpc(bare.getPort(), ""), 5));
            assertThat(unimpl.result()).isEqualTo(ProbeResult.FAILURE);
            assertThat(unimpl.message()).contains("does not implement");
        } finally {
            server.shutdownNow();
            bare.shutdownNow();
        }
        server.awaitTermination(5, TimeUnit.SECONDS);
        ProbeOutcome refused = prober.probe(spec(new ProbeHandler.Grpc(closed, ""), 1));
        assertThat(refused.result()).isEqualTo(ProbeResult.FAILURE); // R65: connect + call within T
        assertThat(refused.latency()).isLessThan(Duration.ofSeconds(4));
    }

    /**
     * kubelet pkg/kubelet/lifecycle/handlers.go: an exec hook fails on a non-zero exit; an httpGet
     * hook fails only without a response (runHTTPHandler discards it, the status is not read).
     */
    @Test
    void handlerRunner_execFailsOnNonZeroExitAndHttpGetOnlyWithoutResponse() throws Exception {
        assertThat(prober.runHook(new ProbeHandler.Exec(List.of("sh", "-c", "exit 0")), 1, Duration.ofSeconds(30))).isEmpty();
        assertThat(prober.runHook(new ProbeHandler.Exec(List.of("sh", "-c", "exit 3")), 1, Duration.ofSeconds(30)))
                .hasValueSatisfying(m -> assertThat(m).contains("exited with 3"));
        try (TestHttpServer s = new TestHttpServer((head, out, sock) -> TestHttpServer.answer(out, 500, "", "no"))) {
            ProbeHandler.HttpGet g = new ProbeHandler.HttpGet(Optional.empty(), ProbeHandler.PortRef.of(s.port()), "/drain", "HTTP",
                    List.of());
            assertThat(prober.runHook(g, 1, Duration.ofSeconds(30))).isEmpty(); // a 500 is still a response
            assertThat(s.requests.get(0)).startsWith("GET /drain HTTP/1.1\r\n").contains("User-Agent: kube-lifecycle/1.36\r\n");
        }
        int closed;
        try (java.net.ServerSocket ss = new java.net.ServerSocket(0)) {
            closed = ss.getLocalPort();
        }
        ProbeHandler.HttpGet refused = new ProbeHandler.HttpGet(Optional.empty(), ProbeHandler.PortRef.of(closed), "/", "HTTP",
                List.of());
        assertThat(prober.runHook(refused, 1, Duration.ofSeconds(30))).hasValueSatisfying(m -> assertThat(m)
                .startsWith("HTTP lifecycle hook (/) failed - error: Get"));
    }
}
