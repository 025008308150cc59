package dev.vitals.spring;

import dev.vitals.server.ProbeServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.support.GenericApplicationContext;

/** Starts a real Spring Boot 3.5 application (embedded Tomcat on a free loopback port) for a test. */
@Configuration(proxyBeanMethods = false)
@EnableAutoConfiguration
class TestApp {
    static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();

    static final class Builder {
        private final List<String> properties = new ArrayList<>(List.of(
                "server.port=0", "server.address=127.0.0.1", "spring.main.banner-mode=off",
                "logging.level.root=WARN", "server.shutdown=immediate",
                "vitals.server.port=0", "vitals.server.address=127.0.0.1",
                "management.endpoint.health.probes.enabled=true"));
        private final List<Consumer<GenericApplicationContext>> beans = new ArrayList<>();
        private boolean reactive;

        Builder property(String p) {
            properties.add(p);
            return this;
        }

        Builder beans(Consumer<GenericApplicationContext> registrar) {
            beans.add(registrar);
            return this;
        }

        /** Runs a reactive (WebFlux) application on Reactor Netty (its factory declared as a bean: Tomcat is on the class path too). */
        Builder reactiveNetty() {
            reactive = true;
            return beans(c -> c.registerBean("nettyFactory", org.springframework.boot.web.embedded.netty.NettyReactiveWebServerFactory.class,
                    () -> new org.springframework.boot.web.embedded.netty.NettyReactiveWebServerFactory()));
        }

        /** Runs on embedded Jetty (its factory declared as a bean: Tomcat is on the class path too). */
        Builder jetty() {
            return beans(c -> c.registerBean("jettyFactory", org.springframework.boot.web.embedded.jetty.JettyServletWebServerFactory.class,
                    () -> new org.springframework.boot.web.embedded.jetty.JettyServletWebServerFactory()));
        }

        ConfigurableApplicationContext run() {
            return new SpringApplicationBuilder(TestApp.class)
                    .web(reactive ? org.springframework.boot.WebApplicationType.REACTIVE : org.springframework.boot.WebApplicationType.SERVLET)
                    .properties(properties.toArray(new String[0]))
                    .initializers(ctx -> beans.forEach(b -> b.accept((GenericApplicationContext) ctx)))
                    .registerShutdownHook(false)
                    .run();
        }
    }

    static Builder builder() {
        return new Builder();
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
