package dev.vitals.kubesim.fault;

import dev.vitals.kubesim.Targets;
import dev.vitals.kubesim.input.InvalidInputException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Each fault of the proxy with a real echo server and a real client on loopback. */
class FaultProxyTest {
    private ServerSocket echo;
    private FaultProxy proxy;

    @BeforeEach
    void start() throws IOException {
        echo = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread t = new Thread(() -> {
            while (!echo.isClosed()) {
                try {
                    Socket s = echo.accept();
                    Thread c = new Thread(() -> {
                        try (s) {
                            InputStream in = s.getInputStream();
                            OutputStream out = s.getOutputStream();
                            int b;
                            while ((b = in.read()) >= 0) {
                                out.write(b);
                                out.flush();
                            }
                        } catch (IOException ignored) {
                            // reset
                        }
                    }, "echo-conn");
                    c.setDaemon(true);
                    c.start();
                } catch (IOException e) {
                    return;
                }
            }
        }, "echo");
        t.setDaemon(true);
        t.start();
        // a fixed port below the ephemeral range: after 'refuse' nothing else may take it
        proxy = new FaultProxy(new FaultProxy.Spec("db", Targets.freeFixedPort(), "127.0.0.1", echo.getLocalPort())).start();
    }

    @AfterEach
    void stop() throws IOException {
        proxy.close();
        echo.close();
    }

    private Socket connect() throws IOException {
        Socket s = new Socket();
        s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), proxy.port()), 2000);
        s.setSoTimeout(3000);
        return s;
    }

    private static int roundTrip(Socket s, int b) throws IOException {
        s.getOutputStream().write(b);
        s.getOutputStream().flush();
        return s.getInputStream().read();
    }

    @Test
    void forwardsBothWays() throws IOException {
        try (Socket s = connect()) {
            assertThat(roundTrip(s, 'a')).isEqualTo('a');
            assertThat(roundTrip(s, 'b')).isEqualTo('b');
        }
    }

    @Test
    void refuseClosesTheListenerButKeepsExistingConnectionsAndHealReopens() throws IOException {
        try (Socket existing = connect()) {
            assertThat(roundTrip(existing, 'x')).isEqualTo('x');
            proxy.apply("refuse", 0);
            assertThatThrownBy(this::connect).isInstanceOf(ConnectException.class);
            assertThat(roundTrip(existing, 'y')).isEqualTo('y');
            proxy.heal();
            try (Socket again = connect()) {
                assertThat(roundTrip(again, 'z')).isEqualTo('z');
            }
        }
    }

    @Test
    void cutResetsExistingConnectionsOnly() throws Exception {
        Socket existing = connect();
        assertThat(roundTrip(existing, 'x')).isEqualTo('x');
        proxy.apply("cut", 0);
        assertThatThrownBy(() -> {
            for (int i = 0; i < 50; i++) { // the RST may take a write or two to surface
                if (roundTrip(existing, 'y') < 0) {
                    throw new IOException("closed");
                }
                Thread.sleep(20);
            }
        }).isInstanceOf(IOException.class);
        existing.close();
        try (Socket fresh = connect()) {
            assertThat(roundTrip(fresh, 'z')).isEqualTo('z');
        }
    }

    @Test
    void blackholeAcceptsButNeverAnswersLikeADeadPeerUntilHealed() throws IOException {
        try (Socket existing = connect()) {
            assertThat(roundTrip(existing, 'a')).isEqualTo('a');
            proxy.apply("blackhole", 0);
            existing.setSoTimeout(700);
            assertThatThrownBy(() -> roundTrip(existing, 'b')).isInstanceOf(SocketTimeoutException.class);
            try (Socket fresh = connect()) { // the handshake still completes
                fresh.setSoTimeout(700);
                assertThatThrownBy(() -> roundTrip(fresh, 'c')).isInstanceOf(SocketTimeoutException.class);
                proxy.heal();
                fresh.setSoTimeout(3000);
                assertThat(fresh.getInputStream().read()).isEqualTo('c'); // held data flows after heal
            }
            existing.setSoTimeout(3000);
            assertThat(existing.getInputStream().read()).isEqualTo('b');
        }
    }

    @Test
    void latencyDelaysEachDirectionAndHealRemovesIt() throws IOException {
        // 1 s each way: a delayed round trip takes ≥ 2 s, so a healed one that finishes under
        // 1.5 s cannot have been delayed, with a wide margin for a loaded machine (load 5–20).
        try (Socket s = connect()) {
            s.setSoTimeout(15_000);
            proxy.latency(Duration.ofMillis(1000));
            long t0 = System.nanoTime();
            assertThat(roundTrip(s, 'a')).isEqualTo('a');
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertThat(ms).isGreaterThanOrEqualTo(1950).isLessThan(12_000);
            proxy.heal();
            t0 = System.nanoTime();
            assertThat(roundTrip(s, 'b')).isEqualTo('b');
            assertThat((System.nanoTime() - t0) / 1_000_000).isLessThan(1500);
        }
    }

    @Test
    void badSpecsAndFaultsAreClearErrors() {
        assertThatThrownBy(() -> FaultProxy.Spec.parse("db:1:2")).isInstanceOf(InvalidInputException.class)
                .hasMessageContaining("name=LISTEN_PORT:TARGET_HOST:TARGET_PORT");
        assertThat(FaultProxy.Spec.parse("db=15432:127.0.0.1:5432")).isEqualTo(new FaultProxy.Spec("db", 15432, "127.0.0.1", 5432));
        assertThatThrownBy(() -> proxy.apply("explode", 0)).isInstanceOf(InvalidInputException.class);
    }
}
