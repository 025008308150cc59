package dev.vitals.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.vitals.Groups;
import dev.vitals.HealthRegistry;
import dev.vitals.Status;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.reactor.netty.NettyWebServer;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A WebFlux application on Reactor Netty: {@code GET /slow} sleeps on the event loop (the bug
 * the check exists for). With every server loop blocked for 8 s, the liveness check
 * {@code netty-event-loop} turns DOWN after {@code stall-after} (1 s); once the loops are free
 * it is UP again. The probe server, on its own threads, answers throughout.
 */
class ReactorNettyLoopTest {
    private static final long HOLD_MS = 8_000;

    @Test
    void blockedEventLoopsFailLivenessAndRecover() throws Exception {
        try (ConfigurableApplicationContext ctx = TestApp.builder().reactiveNetty()
                .property("vitals.web-server.stall-after=1s")
                .run()) {
            assertThat(((WebServerApplicationContext) ctx).getWebServer()).isInstanceOf(NettyWebServer.class);
            HealthRegistry registry = ctx.getBean(HealthRegistry.class);
            assertThat(registry.checks()).extracting(c -> c.name()).contains("netty-event-loop")
                    .doesNotContain("tomcat-progress", "jetty-progress");
            int app = TestApp.port(ctx);
            assertThat(TestApp.get(app, "/slow?ms=1", Duration.ofSeconds(10)).statusCode()).isEqualTo(200);
            await().atMost(Duration.ofSeconds(5)).until(() ->
                    registry.report(Groups.LIVENESS).checks().get("netty-event-loop").status() == Status.UP);

            // One connection per request (a client each): the server hands new connections to its
            // loops in turn, so as many requests as loops (Reactor Netty's default: max(4, cores)) block them all.
            int loops = Math.max(4, Runtime.getRuntime().availableProcessors());
            List<CompletableFuture<HttpResponse<String>>> slow = new ArrayList<>();
            long t0 = System.nanoTime();
            for (int i = 0; i < loops; i++) {
                HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
                slow.add(client.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app + "/slow?ms=" + HOLD_MS))
                        .timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString()));
            }
            // Detection: a heartbeat lands on a blocked loop (1 s interval), waits stall-after (1 s),
            // the check reads it (1 s interval); generous on a loaded machine.
            await().atMost(Duration.ofSeconds(HOLD_MS / 1000 - 1)).pollInterval(Duration.ofMillis(100)).until(() ->
                    registry.report(Groups.LIVENESS).checks().get("netty-event-loop").status() == Status.DOWN);
            long detectedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            HttpResponse<String> livez = TestApp.get(TestApp.probePort(ctx), "/livez?verbose", Duration.ofSeconds(5));
            assertThat(livez.statusCode()).isEqualTo(503);
            assertThat(livez.body()).contains("[-]netty-event-loop");

            for (CompletableFuture<HttpResponse<String>> f : slow) {
                assertThat(f.get(60, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
            }
            await().atMost(Duration.ofSeconds(10)).until(() ->
                    registry.report(Groups.LIVENESS).checks().get("netty-event-loop").status() == Status.UP);
            System.out.printf("Reactor Netty, %d x %d ms blocking requests: netty-event-loop DOWN after %d ms, UP again after %d ms%n",
                    loops, HOLD_MS, detectedMs, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
        }
    }
}
