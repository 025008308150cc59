package dev.vitals.spring;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import dev.vitals.server.ProbeServer;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** Starts a real Spring Boot application (embedded Tomcat on a free loopback port) for a test. */
@Configuration(proxyBeanMethods = false)
@EnableAutoConfiguration
@Import(TestApp.SlowController.class)
class TestApp {
    static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();

    static final class Builder {
        private final List<String> properties = new ArrayList<>(List.of(
                "server.port=0", "server.address=127.0.0.1", "spring.main.banner-mode=off",
                "logging.level.root=WARN", "server.shutdown=immediate",
                "vitals.server.port=0", "vitals.server.address=127.0.0.1"));
        private final List<Consumer<GenericApplicationContext>> beans = new ArrayList<>();
        private final List<Class<?>> sources = new ArrayList<>(List.of(TestApp.class));

        Builder property(String p) {
            properties.add(p);
            return this;
        }

        Builder beans(Consumer<GenericApplicationContext> registrar) {
            beans.add(registrar);
            return this;
        }

        Builder source(Class<?> source) {
            sources.add(source);
            return this;
        }

        ConfigurableApplicationContext run() {
            return new SpringApplicationBuilder(sources.toArray(new Class<?>[0]))
                    .properties(properties.toArray(new String[0]))
                    .initializers(ctx -> beans.forEach(b -> b.accept((GenericApplicationContext) ctx)))
                    .registerShutdownHook(false)
                    .run();
        }
    }

    static Builder builder() {
        return new Builder();
    }

    /** {@code GET /slow?ms=N}: holds a Tomcat worker for N ms. */
    @RestController
    static class SlowController {
        @GetMapping("/slow")
        String slow(@RequestParam("ms") long ms) throws InterruptedException {
            Thread.sleep(ms);
            return "slept " + ms + " ms";
        }
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
