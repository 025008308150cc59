package dev.vitals.agent.impl;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.grpc.Server;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The agent's h2c health client against a real grpc-java server (Netty) on loopback. */
class GrpcHealthCallTest {
    private static Server server(HealthStatusManager health) throws Exception {
        NettyServerBuilder b = NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        if (health != null) {
            b.addService(health.getHealthService());
        }
        return b.build().start();
    }

    private static GrpcHealthCall.Answer call(GrpcHealthCall c) {
        c.call();
        return c.await(10_000);
    }

    @Test
    void servingNotServingAndThousandsOfCallsOnOneConnection() throws Exception {
        HealthStatusManager health = new HealthStatusManager();
        Server s = server(health);
        try (GrpcHealthCall c = GrpcHealthCall.connect(s.getPort(), 5_000)) {
            GrpcHealthCall.Answer a = call(c);
            assertThat(a).isNotNull();
            assertThat(a.failure).isNull();
            assertThat(a.h2).isTrue();
            assertThat(a.statusName()).isEqualTo("SERVING");

            health.setStatus("", ServingStatus.NOT_SERVING);
            assertThat(call(c).statusName()).isEqualTo("NOT_SERVING");
            health.setStatus("", ServingStatus.SERVING);

            // 10 000 calls: more DATA than the connection's initial 64 KiB receive window, so the
            // window must be given back (WINDOW_UPDATE) or the server would stop sending.
            for (int i = 0; i < 10_000; i++) {
                GrpcHealthCall.Answer ai = call(c);
                assertThat(ai).as("call " + i).isNotNull();
                assertThat(ai.serving).as("call " + i + ": " + ai.failure).isEqualTo(1);
            }
            assertThat(c.open()).isTrue();
        } finally {
            s.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aServerWithoutTheHealthServiceIsToldApart() throws Exception {
        Server s = server(null);
        try (GrpcHealthCall c = GrpcHealthCall.connect(s.getPort(), 5_000)) {
            GrpcHealthCall.Answer a = call(c);
            assertThat(a.h2).isTrue();
            assertThat(a.noHealthService).isTrue();
            assertThat(a.serving).isEqualTo(-1);
        } finally {
            s.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void anHttp1PortIsNotHttp2AndARefusedPortIsRefused() throws Exception {
        HttpServer http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 10);
        http.createContext("/", ex -> {
            ex.sendResponseHeaders(404, -1);
            ex.close();
        });
        http.start();
        try (GrpcHealthCall c = GrpcHealthCall.connect(http.getAddress().getPort(), 5_000)) {
            GrpcHealthCall.Answer a = call(c);
            assertThat(a).isNotNull();
            assertThat(a.h2).isFalse();
            assertThat(a.failure).startsWith("not HTTP/2");
        } finally {
            http.stop(0);
        }
        int closed;
        try (java.net.ServerSocket ss = new java.net.ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = ss.getLocalPort();
        }
        try (GrpcHealthCall c = GrpcHealthCall.connect(closed, 5_000)) {
            GrpcHealthCall.Answer a = call(c);
            assertThat(a.refused).isTrue();
        }
    }

    @Test
    void aSilentPortIsNoAnswerYetAndTheCallIsKept() throws Exception {
        try (java.net.ServerSocket silent = new java.net.ServerSocket(0, 1, InetAddress.getLoopbackAddress());
             GrpcHealthCall c = GrpcHealthCall.connect(silent.getLocalPort(), 5_000)) {
            c.call();
            assertThat(c.await(200)).isNull();
            assertThat(c.inFlight()).isTrue();
            assertThat(c.await(200)).isNull();
        }
    }
}
