package dev.vitals.agent.impl;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.Set;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

class AppPortsTest {
    // Lines in the shape of /proc/net/tcp and tcp6 (Linux, net/ipv4/tcp_ipv4.c get_tcp4_sock).
    private static final String LISTEN_V4 =
            "   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 4242 1 0000000000000000 100 0 0 10 0";
    private static final String ESTABLISHED_V4 =
            "   1: 0100007F:1F90 0100007F:D3B2 01 00000000:00000000 00:00000000 00000000  1000        0 4343 1 0000000000000000 20 4 30 10 -1";
    private static final String LISTEN_V6 =
            "   2: 00000000000000000000000000000000:2382 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 777 1 0000000000000000 100 0 0 10 0";

    @Test
    void aListeningSocketOfThisProcessGivesItsPort() {
        assertThat(AppPorts.listeningPort(LISTEN_V4, Set.of(4242L))).isEqualTo(8080);
        assertThat(AppPorts.listeningPort(LISTEN_V6, Set.of(777L))).isEqualTo(9090);
    }

    @Test
    void otherStatesOtherProcessesAndMalformedLinesGiveNothing() {
        assertThat(AppPorts.listeningPort(ESTABLISHED_V4, Set.of(4343L))).isEqualTo(-1);
        assertThat(AppPorts.listeningPort(LISTEN_V4, Set.of(1L))).as("inode of another process").isEqualTo(-1);
        assertThat(AppPorts.listeningPort("", Set.of(4242L))).isEqualTo(-1);
        assertThat(AppPorts.listeningPort("   0: 0100007F:1F90 00000000:0000 0A", Set.of(4242L))).as("truncated").isEqualTo(-1);
        assertThat(AppPorts.listeningPort("   0: 0100007F:zzzz 00000000:0000 0A 0:0 0:0 0 1000 0 4242", Set.of(4242L)))
                .as("bad port").isEqualTo(-1);
        assertThat(AppPorts.listeningPort("   0: 0100007F:1F90 00000000:0000 0A 0:0 0:0 0 1000 0 x42", Set.of(4242L)))
                .as("bad inode").isEqualTo(-1);
    }

    @Test
    void anEstablishedRowTellsWhetherTheApplicationAcceptedAndReadTheRequest() {
        // application side of 127.0.0.1:8080 <- 127.0.0.1:54194 (0x1F90, 0xD3B2)
        String read = "   1: 0100007F:1F90 0100007F:D3B2 01 00000000:00000000 00:00000000 00000000  1000        0 4343 1";
        String unread = "   1: 0100007F:1F90 0100007F:D3B2 01 00000000:0000004E 00:00000000 00000000  1000        0 4343 1";
        String notAccepted = "   1: 0100007F:1F90 0100007F:D3B2 01 00000000:0000004E 00:00000000 00000000  1000        0 0 1";
        assertThat(AppPorts.serverSide(read, ":1F90", ":D3B2")).isEqualTo(AppPorts.ServerSide.READ);
        assertThat(AppPorts.serverSide(unread, ":1F90", ":D3B2")).isEqualTo(AppPorts.ServerSide.UNREAD);
        assertThat(AppPorts.serverSide(notAccepted, ":1F90", ":D3B2")).isEqualTo(AppPorts.ServerSide.NOT_ACCEPTED);
        assertThat(AppPorts.serverSide(read, ":D3B2", ":1F90")).as("the client's side of it").isNull();
        assertThat(AppPorts.serverSide(read, ":1F90", ":D3B3")).as("another connection").isNull();
        assertThat(AppPorts.serverSide(LISTEN_V4, ":1F90", ":0000")).as("not established").isNull();
        assertThat(AppPorts.serverSide("   1: 0100007F:1F90 0100007F:D3B2 01 00000000:0000004E", ":1F90", ":D3B2"))
                .as("truncated").isNull();
        assertThat(AppPorts.serverSide("", ":1F90", ":D3B2")).isNull();
        assertThat(AppPorts.serverSide(
                        "   1: 0100007F:1F90 0100007F:D3B2 01 00000000:zz 00:00000000 00000000  1000        0 4343 1", ":1F90", ":D3B2"))
                .as("unreadable queue").isEqualTo(AppPorts.ServerSide.UNKNOWN);
    }

    @Test
    void theLocalAddressIsTheHexBeforeThePort() {
        assertThat(AppPorts.localAddress(LISTEN_V4)).isEqualTo("0100007F");
        assertThat(AppPorts.localAddress(LISTEN_V6)).isEqualTo("00000000000000000000000000000000");
        assertThat(AppPorts.localAddress("   0:")).isEmpty();
        assertThat(AppPorts.localAddress("   0: nocolon 00000000:0000")).isEmpty();
        assertThat(AppPorts.localAddress("")).isEmpty();
    }

    @Test
    void findsAPortThisJvmListensOn() throws Exception {
        Assumptions.assumeTrue(AppPorts.supported(), "needs /proc (Linux)");
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            assertThat(AppPorts.listening(Set.of())).contains(s.getLocalPort());
            assertThat(AppPorts.listening(Set.of(s.getLocalPort()))).doesNotContain(s.getLocalPort());
        }
    }

    @Test
    void aPortBoundToOneAddressIsCalledOnThatAddressAWildcardOnLoopback() throws Exception {
        // QA: an application listening only on ::1 (or on its pod IP) was called on 127.0.0.1:
        // readiness and startup never passed and the listener check turned liveness DOWN.
        assertThat(AppPorts.connectAddress("0100007F")).isEqualTo(InetAddress.getByName("127.0.0.1"));
        assertThat(AppPorts.connectAddress("0302010A")).isEqualTo(InetAddress.getByName("10.1.2.3"));
        assertThat(AppPorts.connectAddress("00000000")).isEqualTo(InetAddress.getLoopbackAddress());
        assertThat(AppPorts.connectAddress("00000000000000000000000000000000")).isEqualTo(InetAddress.getLoopbackAddress());
        assertThat(AppPorts.connectAddress("00000000000000000000000001000000")).isEqualTo(InetAddress.getByName("::1"));
        assertThat(AppPorts.connectAddress("0000000000000000FFFF00000100007F")).isEqualTo(InetAddress.getByName("127.0.0.1"));
        assertThat(AppPorts.connectAddress("zz")).isEqualTo(InetAddress.getLoopbackAddress());

        Assumptions.assumeTrue(AppPorts.supported(), "Linux /proc only");
        InetAddress v6 = InetAddress.getByName("::1");
        try (ServerSocket only = new ServerSocket()) {
            try {
                only.bind(new InetSocketAddress(v6, 0));
            } catch (java.io.IOException e) {
                Assumptions.abort("no IPv6 loopback here: " + e);
            }
            assertThat(AppPorts.listening(Set.of())).contains(only.getLocalPort());
            assertThat(AppPorts.address(only.getLocalPort())).isEqualTo(v6);
            try (LoopbackGet g = LoopbackGet.start(only.getLocalPort(), "/", 2000);
                    java.net.Socket accepted = acceptWithin(only)) {
                assertThat(accepted).as("the call reached the ::1-only listener").isNotNull();
            }
        }
    }

    private static java.net.Socket acceptWithin(ServerSocket s) throws java.io.IOException {
        s.setSoTimeout(5000);
        return s.accept();
    }
}
