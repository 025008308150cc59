package dev.vitals.spring;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import dev.vitals.server.ProbeServer;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The half of {@code TestApp} that is the same on every Boot (copied into vitals-spring-boot3 by
 * tools/boot3-sources): the HTTP client and the ports of a running test application. {@code TestApp},
 * written per generation, extends it, so tests call these as {@code TestApp.get(…)}.
 */
class TestAppSupport {
    static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();

    TestAppSupport() {
    }

    static int probePort(ConfigurableApplicationContext ctx) {
        return ctx.getBean(ProbeServer.class).port();
    }

    static int port(ConfigurableApplicationContext ctx) {
        return ((WebServerApplicationContext) ctx).getWebServer().getPort();
    }

    static HttpResponse<String> get(int port, String path, Duration timeout) throws IOException, InterruptedException {
        HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(timeout).GET().build();
        return HTTP.send(req, HttpResponse.BodyHandlers.ofString());
    }
}
