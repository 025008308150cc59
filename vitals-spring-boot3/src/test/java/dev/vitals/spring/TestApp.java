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
 * Starts a real Spring Boot 3.5 application (embedded Tomcat on a free loopback port) for a test. Written by
 * hand, not generated (tools/boot3-sources, HAND_WRITTEN): the same builder as vitals-spring-boot's TestApp,
 * but Boot 3.5 picks Jetty or Reactor Netty by a factory bean, where Boot 4 excludes the other servers'
 * auto-configurations, and Boot 3.5 exposes the liveness and readiness groups only when asked. The rest
 * ({@code get}, {@code port}, {@code probePort}) is the generated {@link TestAppSupport}.
 */
@Configuration(proxyBeanMethods = false)
@EnableAutoConfiguration
@Import(SlowController.class)
class TestApp extends TestAppSupport {
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
}
