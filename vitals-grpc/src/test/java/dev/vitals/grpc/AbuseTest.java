package dev.vitals.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.vitals.Check;
import dev.vitals.Groups;
import dev.vitals.Health;
import dev.vitals.HealthRegistry;
import io.grpc.ManagedChannel;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Clients that flood or never read, against kubelet-like probes (fresh connection each). Bounded
 * in count and time; the latency bound is generous (the machine is shared), figures are printed.
 */
class AbuseTest {

    @Test
    void floodingAndNeverReadingClientsDoNotStopCheck() throws Exception {
        try (HealthRegistry r = HealthRegistry.builder()
                .register(Check.builder("loop", Health::up).groups(Groups.LIVENESS).build()).build()) {
            r.start();
            GrpcHealthServer s = GrpcHealthServer.builder(r).port(0).bindAddress(InetAddress.getLoopbackAddress())
                    .build().start();
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong flooded = new AtomicLong();
            List<Thread> abusers = new ArrayList<>();
            List<ManagedChannel> channels = Collections.synchronizedList(new ArrayList<>());
            List<Long> quiet = new ArrayList<>();
            for (int i = 0; i < 15; i++) {
                long t0 = System.nanoTime();
                assertThat(Clients.probe(s.port(), "liveness")).isEqualTo("SERVING");
                quiet.add(System.nanoTime() - t0);
            }
            Collections.sort(quiet);
            try {
                // never reading: raw HTTP/2 connections that send Check after Check and read nothing
                for (int i = 0; i < 4; i++) {
                    abusers.add(start("never-reader-" + i, () -> {
                        try (RawHttp2 c = new RawHttp2(s.port())) {
                            for (int k = 0; k < 200 && !stop.get(); k++) {
                                c.sendChecks(50);
                                Thread.sleep(10);
                            }
                        } catch (IOException | InterruptedException e) {
                            // the server may refuse or close: that is allowed
                        }
                    }));
                }
                // flooding: grpc-java clients with 64 Checks in flight each, for as long as the probes run
                for (int i = 0; i < 2; i++) {
                    abusers.add(start("flooder-" + i, () -> {
                        ManagedChannel ch = Clients.channel(s.port());
                        channels.add(ch);
                        Semaphore inFlight = new Semaphore(64);
                        HealthGrpc.HealthStub stub = HealthGrpc.newStub(ch);
                        HealthCheckRequest req = HealthCheckRequest.newBuilder().setService("liveness").build();
                        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                        while (!stop.get() && System.nanoTime() < until) {
                            try {
                                if (!inFlight.tryAcquire(1, TimeUnit.SECONDS)) {
                                    continue;
                                }
                            } catch (InterruptedException e) {
                                return;
                            }
                            stub.check(req, new StreamObserver<HealthCheckResponse>() {
                                @Override
                                public void onNext(HealthCheckResponse v) {
                                    flooded.incrementAndGet();
                                }

                                @Override
                                public void onError(Throwable t) {
                                    inFlight.release();
                                }

                                @Override
                                public void onCompleted() {
                                    inFlight.release();
                                }
                            });
                        }
                    }));
                }
                await().atMost(Duration.ofSeconds(20)).until(() -> flooded.get() > 1000);
                List<Long> latencies = new ArrayList<>();
                for (int i = 0; i < 30; i++) {
                    long t0 = System.nanoTime();
                    assertThat(Clients.probe(s.port(), "liveness")).isEqualTo("SERVING");
                    latencies.add(System.nanoTime() - t0);
                    Thread.sleep(50);
                }
                Collections.sort(latencies);
                System.out.printf("probes on fresh connections: before the flood p50 %.1f ms, max %.1f ms; under the flood"
                        + " (%d flooded answers so far) p50 %.1f ms, max %.1f ms%n", quiet.get(7) / 1e6, quiet.get(14) / 1e6,
                        flooded.get(), latencies.get(15) / 1e6, latencies.get(29) / 1e6);
                assertThat(TransportLogs.quieted()).as("client-caused stream errors kept out of the log").isPositive();
                assertThat(Duration.ofNanos(latencies.get(29))).as("generous; the benchmark holds the figures")
                        .isLessThan(Duration.ofSeconds(3));
            } finally {
                stop.set(true);
                for (Thread t : abusers) {
                    t.join(10_000);
                }
                channels.forEach(ManagedChannel::shutdownNow);
                s.stop(Duration.ofSeconds(1));
            }
        }
    }

    @Test
    void silentIdleAndOldConnectionsAreClosed() throws Exception {
        try (HealthRegistry r = HealthRegistry.builder()
                .register(Check.builder("loop", Health::up).groups(Groups.LIVENESS).build()).build()) {
            r.start();
            GrpcHealthServer s = GrpcHealthServer.builder(r).port(0).bindAddress(InetAddress.getLoopbackAddress())
                    .handshakeTimeout(Duration.ofMillis(500))
                    .maxConnectionIdle(Duration.ofSeconds(1))
                    .maxConnectionAge(Duration.ofSeconds(2)).maxConnectionAgeGrace(Duration.ZERO)
                    .build().start();
            ManagedChannel ch = Clients.channel(s.port());
            try {
                // a connection that never says a word: closed after the handshake timeout
                try (java.net.Socket silent = new java.net.Socket(InetAddress.getLoopbackAddress(), s.port())) {
                    silent.setSoTimeout(10_000);
                    long t0 = System.nanoTime();
                    byte[] b = new byte[4096];
                    while (silent.getInputStream().read(b) >= 0) {
                        // the server's SETTINGS, then the close (a SocketTimeoutException fails the test)
                    }
                    System.out.printf("silent connection closed after %d ms%n", (System.nanoTime() - t0) / 1_000_000);
                }
                // a connection that finished the handshake and makes no call: closed when idle
                try (RawHttp2 idle = new RawHttp2(s.port())) {
                    Duration d = idle.awaitClosedByServer(Duration.ofSeconds(30));
                    System.out.printf("idle connection closed after %d ms%n", d.toMillis());
                    assertThat(d).isGreaterThanOrEqualTo(Duration.ofMillis(500));
                }
                // a Watch stream on a connection past its age (no grace): ended, the client reconnects
                Clients.Watcher w = Clients.Watcher.open(ch, "liveness");
                assertThat(w.end.get(15, TimeUnit.SECONDS)).isEqualTo("UNAVAILABLE");
                assertThat(w.statuses).contains(io.grpc.health.v1.HealthCheckResponse.ServingStatus.SERVING);
                assertThat(Clients.check(ch, "liveness")).as("the channel reconnects").isEqualTo("SERVING");
            } finally {
                ch.shutdownNow();
                s.stop(Duration.ofSeconds(1));
            }
        }
    }

    private static Thread start(String name, Runnable r) {
        Thread t = new Thread(r, "test-" + name);
        t.setDaemon(true);
        t.start();
        return t;
    }
}
