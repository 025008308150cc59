package dev.vitals.monitor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

import dev.vitals.Clock;
import dev.vitals.Health;
import dev.vitals.HealthRegistry;
import dev.vitals.Status;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The listener rule on real loopback sockets and real (short) time. */
class ListenerMonitorTest {
    private final HealthRegistry timebase = HealthRegistry.builder().build(); // for its real scheduler

    @AfterEach
    void close() {
        timebase.close();
    }

    static ListenerMonitor.Builder fast(int port) {
        return ListenerMonitor.builder("listener", port)
                .interval(Duration.ofMillis(50))
                .connectTimeout(Duration.ofMillis(50))
                .grace(Duration.ofMillis(300));
    }

    @Test
    void acceptedListenerIsUpWithoutTheApplicationAcceptingAnything() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            ListenerMonitor m = fast(server.getLocalPort()).build();
            try {
                m.start(Clock.SYSTEM, timebase.scheduler());
                await().atMost(Duration.ofSeconds(20)).until(() -> m.snapshot().isPresent());
                await().atMost(Duration.ofSeconds(20))
                        .until(() -> m.healthCheck().check().status() == Status.UP);
                Health h = m.healthCheck().check();
                assertThat(h.details()).containsEntry("port", server.getLocalPort())
                        .containsEntry("result", "ACCEPTED");
            } finally {
                m.close();
            }
        }
    }

    @Test
    void refusedConnectionsAreDegradedWithinTheGraceThenDown() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort(); // closed at once: nothing listens there any more
        }
        ListenerMonitor m = fast(port).grace(Duration.ofSeconds(2)).build();
        try {
            m.start(Clock.SYSTEM, timebase.scheduler());
            await().atMost(Duration.ofSeconds(20)).until(() -> m.snapshot().isPresent());
            ListenerSnapshot first = m.snapshot().orElseThrow();
            assertThat(first.result()).isEqualTo(ListenerSnapshot.Result.REFUSED);
            if (first.lostFor().compareTo(Duration.ofMillis(1500)) < 0) { // not late on a loaded machine
                assertThat(m.healthCheck().check().status()).isEqualTo(Status.DEGRADED);
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> m.healthCheck().check().status() == Status.DOWN);
            assertThat(m.healthCheck().check().message()).get().asString()
                    .startsWith("listener on port " + port + " lost: connections refused for ");
        } finally {
            m.close();
        }
    }

    @Test
    void validation() {
        assertThatIllegalArgumentException().isThrownBy(() -> ListenerMonitor.builder("l", 0))
                .withMessage("port must be 1-65535, was 0");
        assertThatIllegalArgumentException().isThrownBy(() -> ListenerMonitor.builder("l",
                InetSocketAddress.createUnresolved("localhost", 80))).withMessageContaining("must be resolved");
        assertThatIllegalArgumentException().isThrownBy(() -> ListenerMonitor.builder("l", 8080)
                .interval(Duration.ofSeconds(1)).connectTimeout(Duration.ofSeconds(2)).build())
                .withMessage("monitor 'l': connectTimeout must be at most interval (PT1S), was PT2S");
        assertThatIllegalArgumentException().isThrownBy(() -> ListenerMonitor.builder("l", 8080)
                .timeoutDownAfter(Duration.ofSeconds(10)))
                .withMessage("monitor 'l': timeoutDownAfter must be at least 60000 ms, was PT10S");
        assertThatIllegalArgumentException().isThrownBy(() -> ListenerMonitor.builder("l", 8080)
                .grace(Duration.ofMinutes(5)).timeoutDownAfter(Duration.ofMinutes(2)).build())
                .withMessage("monitor 'l': timeoutDownAfter must be at least grace (PT5M), was PT2M");
        assertThat(ListenerMonitor.builder("l", 8080).build().address().getAddress().isLoopbackAddress()).isTrue();
    }
}
