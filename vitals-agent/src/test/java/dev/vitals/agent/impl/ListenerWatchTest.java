package dev.vitals.agent.impl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.vitals.Health;
import dev.vitals.Status;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The listener part of liveness read from the kernel's tables (issue 37: no connection to the
 * application): a real listening socket is UP, the same port closed is UP within the grace and
 * DOWN "lost" after it, UP again once it listens; a configured port that never listened is not lost.
 */
class ListenerWatchTest {
    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

    @Test
    void aClosedListenerIsLostAfterTheGraceWithoutAnyConnection() throws Exception {
        assumeThat(AppPorts.supported()).as("Linux /proc").isTrue();
        ListenerWatch watch = new ListenerWatch(Duration.ofSeconds(10));
        int port;
        try (ServerSocket s = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
            watch.watch(port);
            Health up = watch.health(port, AppPorts.listeningInTable(), 0);
            assertThat(up.status()).isEqualTo(Status.UP);
            assertThat(up.details()).containsEntry("listening", true);
        }
        assertThat(AppPorts.listeningInTable()).doesNotContain(port);
        long t0 = System.nanoTime();
        Health within = watch.health(port, AppPorts.listeningInTable(), t0);
        assertThat(within.status()).isEqualTo(Status.UP);
        assertThat(within.details()).containsEntry("listening", false).containsEntry("lostForMs", 0L);
        Health lost = watch.health(port, AppPorts.listeningInTable(), t0 + 10 * SECOND);
        assertThat(lost.status()).isEqualTo(Status.DOWN);
        assertThat(lost.message()).hasValue("listener on port " + port + " lost: not listening for 10000 ms");
        try (ServerSocket again = new ServerSocket(port, 50, InetAddress.getLoopbackAddress())) {
            assertThat(watch.health(port, AppPorts.listeningInTable(), t0 + 11 * SECOND).status()).isEqualTo(Status.UP);
            assertThat(watch.health(port, java.util.Set.of(), t0 + 12 * SECOND).status())
                    .as("a new loss counts from its own start").isEqualTo(Status.UP);
        }
    }

    @Test
    void aPortThatNeverListenedIsNotLost() {
        ListenerWatch watch = new ListenerWatch(Duration.ofSeconds(1));
        watch.watch(1);
        Health h = watch.health(1, java.util.Set.of(), 100 * SECOND);
        assertThat(h.status()).isEqualTo(Status.UP);
        assertThat(h.message()).hasValue("not listening yet");
    }
}
