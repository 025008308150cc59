package dev.vitals.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.vitals.Groups;
import dev.vitals.HealthRegistry;
import dev.vitals.Status;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The table of {@link Heads} over real sockets, on each transport: the same statuses in the same
 * order, and the connection closed or kept alive alike (a kept-alive one answers one more
 * request). Each row is sent whole, then byte by byte on a fresh connection.
 */
@ParameterizedClass
@EnumSource(ProbeServer.Transport.class)
class TransportAgreementTest {
    @Parameter
    ProbeServer.Transport transport;

    HealthRegistry registry;
    ProbeServer server;

    @BeforeEach
    void setUp() {
        registry = Heads.registry();
        await().atMost(Duration.ofSeconds(10)).until(() -> registry.report(Groups.LIVENESS).status() == Status.UP
                && registry.report(Groups.READINESS).status() == Status.DOWN);
        server = ProbeServer.builder(registry).transport(transport).bindAddress(InetAddress.getLoopbackAddress()).port(0)
                .maxHeaderSize(Heads.MAX_HEADER_SIZE).build().start();
    }

    @AfterEach
    void tearDown() {
        server.stop(Duration.ZERO);
        registry.close();
    }

    @Test
    void everyRowIsAnsweredAsTheTableSays() throws Exception {
        for (Heads.Row row : Heads.ROWS) {
            for (boolean oneByOne : new boolean[] {false, true}) {
                String as = transport + ", " + row.name() + (oneByOne ? ", byte by byte" : "");
                try (RawHttp c = new RawHttp(server.port(), 10_000)) {
                    if (oneByOne) {
                        for (byte b : row.request()) {
                            c.send(new byte[] {b});
                        }
                    } else {
                        c.send(row.request());
                    }
                    List<Integer> statuses = new ArrayList<>();
                    for (int i = 0; i < row.statuses().size(); i++) {
                        statuses.add(c.read(row.head()).status);
                    }
                    assertThat(statuses).as(as).isEqualTo(row.statuses());
                    if (row.closes()) {
                        assertThat(c.awaitsEof()).as(as + ": closed").isTrue();
                    } else {
                        c.send("GET /livez HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
                        assertThat(c.read(false).status).as(as + ": kept alive").isEqualTo(200);
                    }
                }
            }
        }
    }
}
