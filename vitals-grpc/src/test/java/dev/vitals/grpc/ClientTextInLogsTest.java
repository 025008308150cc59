package dev.vitals.grpc;

import static dev.vitals.testing.HostileClient.send;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.vitals.Check;
import dev.vitals.Groups;
import dev.vitals.Health;
import dev.vitals.HealthRegistry;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;
import org.junit.jupiter.api.Test;

/**
 * Issue 40: anyone on the gRPC port wrote into the application's log: the once-a-minute summary
 * of bad connections carried the client's HTTP/1.x request line, CR LF and terminal escapes
 * included. Now what a client chose is escaped ({@code \xNN}) and cut before it is logged.
 */
class ClientTextInLogsTest {
    @Test
    void crLfAndAnsiEscapesFromTheGrpcPortReachTheLogEscapedAndCut() throws Exception {
        List<String> lines = new CopyOnWriteArrayList<>();
        SimpleFormatter format = new SimpleFormatter();
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord r) {
                lines.add(format.formatMessage(r) + (r.getThrown() == null ? "" : " " + r.getThrown()));
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger root = Logger.getLogger("");
        Level before = root.getLevel();
        root.setLevel(Level.INFO); // as a production log: grpc-java's frame traces stay off
        root.addHandler(capture);
        String evil = "GET /\u001b[2J\u001b[31mowned\rINFO: forged line " + "x".repeat(400) + " HTTP/1.1\r\nHost: x\r\n\r\n";
        try (HealthRegistry r = HealthRegistry.builder()
                .register(Check.builder("loop", Health::up).groups(Groups.LIVENESS).build()).build()) {
            r.start();
            GrpcHealthServer s = GrpcHealthServer.builder(r).port(0).bindAddress(InetAddress.getLoopbackAddress())
                    .handshakeTimeout(Duration.ofMillis(200)).build().start();
            try {
                long failuresBefore = s.clientFailures();
                TransportLogs.summariseNextAtOnce(); // another test in this JVM may have had this minute's line
                send(s.port(), evil.getBytes(StandardCharsets.ISO_8859_1), false);
                await().atMost(Duration.ofSeconds(30)).until(() -> s.clientFailures() > failuresBefore);
                await().atMost(Duration.ofSeconds(30)).until(() -> lines.stream().anyMatch(l -> l.contains("latest:")));
            } finally {
                s.close();
            }
        } finally {
            root.removeHandler(capture);
            root.setLevel(before);
        }
        for (String line : lines) {
            assertThat(line).as("a logged line").doesNotContain("\u001b").doesNotContain("\r").doesNotContain("\n");
        }
        String summary = lines.stream().filter(l -> l.contains("latest:")).findFirst().orElseThrow();
        assertThat(summary).as(summary).contains("\\x1b[2J\\x1b[31mowned\\x0dINFO: forged line").contains("more chars)")
                .doesNotContain("x".repeat(300));
    }
}
