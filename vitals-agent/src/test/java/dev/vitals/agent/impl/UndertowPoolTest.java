package dev.vitals.agent.impl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.vitals.Health;
import dev.vitals.HealthRegistry;
import dev.vitals.Status;
import io.undertow.Undertow;
import io.undertow.server.handlers.BlockingHandler;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A real Undertow server (XNIO worker of 2 threads, its MBean registered by XNIO itself in the
 * platform MBean server): 5 requests that never finish are 2 running (from the threads) and 3
 * waiting in the worker's queue (from the bean's {@code WorkerQueueSize}); the pool is DOWN with
 * both figures.
 */
class UndertowPoolTest {
    @Test
    void aStalledXnioWorkerWithQueuedRequestsIsDownWithItsQueueFromJmx() throws Exception {
        CountDownLatch never = new CountDownLatch(1);
        Undertow server = Undertow.builder()
                .addHttpListener(0, "127.0.0.1")
                .setIoThreads(1)
                .setWorkerThreads(2)
                .setHandler(new BlockingHandler(exchange -> never.await()))
                .build();
        server.start();
        List<Socket> clients = new ArrayList<>();
        ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
        try (HealthRegistry r = HealthRegistry.builder().build()) {
            int port = ((InetSocketAddress) server.getListenerInfo().get(0).getAddress()).getPort();
            WorkerPools pools = new WorkerPools(List.of(), Duration.ofSeconds(2), r);
            try {
                sampler.scheduleWithFixedDelay(pools::sample, 0, 200, TimeUnit.MILLISECONDS);
                for (int i = 0; i < 5; i++) {
                    clients.add(send(port));
                }
                await().atMost(Duration.ofSeconds(30)).until(() -> pools.health().status() == Status.DOWN);
                Health h = pools.health();
                assertThat(h.message()).hasValueSatisfying(m -> assertThat(m)
                        .startsWith("pool 'XNIO-1*': stalled: no task completed for").endsWith("with 2 running and 3 queued"));
                assertThat(h.details().get("XNIO-1*").toString()).contains("queued=3", "source=threads+jmx",
                        // XNIO 3.8's BusyWorkerThreadCount is -1 over jboss-threads' executor: shown as unknown.
                        "org.xnio:type=Xnio,provider=\"nio\",worker=\"XNIO-1\" busy=? max=2 queued=3");
            } finally {
                sampler.shutdownNow();
                pools.close();
            }
        } finally {
            never.countDown();
            for (Socket s : clients) {
                s.close();
            }
            server.stop();
        }
    }

    private static Socket send(int port) throws IOException {
        Socket s = new Socket("127.0.0.1", port);
        s.getOutputStream().write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        s.getOutputStream().flush();
        return s;
    }
}
