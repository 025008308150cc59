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
 * A real Undertow server (XNIO worker of 2 threads: an {@code EnhancedQueueExecutor} from JBoss
 * Threads underneath, instrumented as the agent does): 5 requests that never finish are 2
 * running and 3 waiting in the worker's queue; the pool is DOWN with both figures, measured.
 */
class UndertowPoolTest {
    @Test
    void aStalledXnioWorkerWithQueuedRequestsIsDownMeasured() throws Exception {
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
            TestInstrumentation.install();
            WorkerPools pools = new WorkerPools(List.of(), Duration.ofSeconds(2), r, true);
            try {
                sampler.scheduleWithFixedDelay(pools::sample, 0, 200, TimeUnit.MILLISECONDS);
                for (int i = 0; i < 5; i++) {
                    clients.add(send(port));
                }
                await().atMost(Duration.ofSeconds(30)).until(() -> pools.health().status() == Status.DOWN);
                Health h = pools.health();
                assertThat(h.message()).hasValueSatisfying(m -> assertThat(m)
                        .startsWith("pool 'XNIO-1 task-*': stalled: no task completed for").endsWith("with 2 running and 3 queued"));
                assertThat(h.details().get("XNIO-1 task-*").toString()).startsWith("DOWN measured threads=2 busy=2 queued=3");
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
