package dev.vitals.spring;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.support.GenericApplicationContext;

/**
 * Starts a real Spring Boot application (embedded Tomcat on a free loopback port) for a test. Its
 * builder is per generation (vitals-spring-boot3 has its own TestApp: Boot 3.5 chooses the web server
 * differently); the rest ({@code get}, {@code port}, {@code probePort}) is {@link TestAppSupport}.
 */
@Configuration(proxyBeanMethods = false)
@EnableAutoConfiguration
@Import(SlowController.class)
class TestApp extends TestAppSupport {
    static final class Builder {
        private final List<String> properties = new ArrayList<>(List.of(
                "server.port=0", "server.address=127.0.0.1", "spring.main.banner-mode=off",
                "logging.level.root=WARN", "server.shutdown=immediate",
                "vitals.server.port=0", "vitals.server.address=127.0.0.1"));
        private final List<Consumer<GenericApplicationContext>> beans = new ArrayList<>();
        private final List<Class<?>> sources = new ArrayList<>(List.of(TestApp.class));
        /** Both Tomcat and Jetty are on the test class path: the other server's auto-configuration is excluded. */
        private String excludedServer = JETTY_SERVLET;

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

        private boolean reactive;

        /** Runs a reactive (WebFlux) application on Reactor Netty. */
        Builder reactiveNetty() {
            reactive = true;
            excludedServer = TOMCAT_REACTIVE + "," + JETTY_REACTIVE;
            return this;
        }

        /** Runs on embedded Jetty instead of Tomcat. */
        Builder jetty() {
            excludedServer = TOMCAT_SERVLET;
            return this;
        }

        ConfigurableApplicationContext run() {
            List<String> all = new ArrayList<>(properties);
            all.add("spring.autoconfigure.exclude=" + excludedServer);
            return new SpringApplicationBuilder(sources.toArray(new Class<?>[0]))
                    .web(reactive ? org.springframework.boot.WebApplicationType.REACTIVE : org.springframework.boot.WebApplicationType.SERVLET)
                    .properties(all.toArray(new String[0]))
                    .initializers(ctx -> beans.forEach(b -> b.accept((GenericApplicationContext) ctx)))
                    .registerShutdownHook(false)
                    .run();
        }
    }

    static final String TOMCAT_SERVLET = "org.springframework.boot.tomcat.autoconfigure.servlet.TomcatServletWebServerAutoConfiguration";
    static final String JETTY_SERVLET = "org.springframework.boot.jetty.autoconfigure.servlet.JettyServletWebServerAutoConfiguration";
    static final String TOMCAT_REACTIVE = "org.springframework.boot.tomcat.autoconfigure.reactive.TomcatReactiveWebServerAutoConfiguration";
    static final String JETTY_REACTIVE = "org.springframework.boot.jetty.autoconfigure.reactive.JettyReactiveWebServerAutoConfiguration";

    static Builder builder() {
        return new Builder();
    }
}
