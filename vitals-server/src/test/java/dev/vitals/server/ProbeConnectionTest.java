package dev.vitals.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.vitals.Groups;
import dev.vitals.HealthRegistry;
import dev.vitals.Status;
import dev.vitals.internal.ConnectionTable;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The connection state machine alone, without a socket or a thread: bytes in, answers and
 * decisions out through {@link MemoryIo}, an in-memory {@link ProbeConnection.Io}, on a manual clock
 * ({@link ManualSettings}: its deadlines move only when the test says). The table of
 * {@link Heads} is checked once here, under every way of splitting each row's bytes into reads
 * (whole, in two at every position, byte by byte); both transports run this same machine.
 */
class ProbeConnectionTest {
    static HealthRegistry registry;
    static ProbeResponder responder;
    private static final Duration READ_TIMEOUT = Duration.ofMillis(200);

    @BeforeAll
    static void setUp() {
        registry = Heads.registry();
        await().atMost(Duration.ofSeconds(10)).until(() -> registry.report(Groups.LIVENESS).status() == Status.UP
                && registry.report(Groups.READINESS).status() == Status.DOWN);
        responder = new ProbeResponder(registry, new ProbeRouter(Catalog.of(registry), "", DetailsPolicy.never()));
    }

    @AfterAll
    static void tearDown() {
        registry.close();
    }

    @Test
    void everyRowOfTheTableUnderEverySplit() {
        int runs = 0;
        for (Heads.Row row : Heads.ROWS) {
            byte[] in = row.request();
            List<int[]> splits = new ArrayList<>();
            splits.add(new int[] {in.length});
            for (int i = 1; i < in.length; i++) {
                splits.add(new int[] {i, in.length - i});
            }
            int[] oneByOne = new int[in.length];
            java.util.Arrays.fill(oneByOne, 1);
            splits.add(oneByOne);
            for (int[] split : splits) {
                MemoryIo io = new MemoryIo();
                ProbeConnection c = io.connection;
                c.opened();
                int at = 0;
                for (int n : split) {
                    c.read(ByteBuffer.wrap(in, at, n));
                    at += n;
                }
                String as = row.name() + " split " + java.util.Arrays.toString(split.length > 3 ? new int[] {1} : split);
                assertThat(statuses(io.sent.toByteArray(), row.head())).as(as).isEqualTo(row.statuses());
                assertThat(io.lingering).as(as + ": closed after the last answer").isEqualTo(row.closes());
                assertThat(io.queued.size()).as(as + ": nothing left unflushed").isZero();
                assertThat(io.closedNow).as(as + ": never closed without an answer").isFalse();
                runs++;
            }
        }
        assertThat(runs).isGreaterThan(Heads.ROWS.size() * 10);
    }

    @Test
    void keptAliveAnswersCarryNoConnectionHeaderOnHttp11AndKeepAliveOnHttp10() {
        assertThat(exchange("GET /livez HTTP/1.1\r\nHost: x\r\n\r\n")).doesNotContain("Connection:").endsWith("\r\n\r\nok");
        assertThat(exchange("GET /livez HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")).contains("\r\nConnection: keep-alive\r\n\r\nok");
        assertThat(exchange("GET /livez HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")).contains("\r\nConnection: close\r\n\r\nok");
    }

    @Test
    void theReadDeadlineRunsFromTheFirstByteAndLaterBytesNeverPushItBack() {
        MemoryIo io = new MemoryIo();
        ProbeConnection c = io.connection;
        c.opened();
        assertThat(io.timers).hasSize(1);
        byte[] drip = "GET /livez HTTP/1.1\r\nHost: x\r\nX-A: ".getBytes(StandardCharsets.US_ASCII);
        for (byte b : drip) {
            c.read(ByteBuffer.wrap(new byte[] {b}));
        }
        assertThat(io.timers).as("bytes arm no later timer").hasSize(1);
        assertThat(c.phase()).isEqualTo(ProbeConnection.Phase.READING);
        io.advance(READ_TIMEOUT.minusMillis(1));
        assertThat(io.closedNow).as("open until the read deadline").isFalse();
        io.advance(Duration.ofMillis(1));
        assertThat(io.closedNow).as("closed at the read deadline, without an answer").isTrue();
        assertThat(c.phase()).isEqualTo(ProbeConnection.Phase.CLOSED);
        assertThat(io.sent.size()).isZero();
    }

    @Test
    void aKeptAliveConnectionGetsANewReadDeadlineAtItsNextFirstByte() {
        MemoryIo io = new MemoryIo();
        ProbeConnection c = io.connection;
        c.opened();
        c.read(ascii("GET /livez HTTP/1.1\r\nHost: x\r\n\r\n"));
        assertThat(statuses(io.sent.toByteArray(), false)).containsExactly(200);
        assertThat(c.phase()).isEqualTo(ProbeConnection.Phase.IDLE);
        io.advance(Duration.ofSeconds(30)); // idle, well within the idle timeout
        c.read(ascii("GET /li"));
        assertThat(c.phase()).isEqualTo(ProbeConnection.Phase.READING);
        io.advance(READ_TIMEOUT.minusMillis(1));
        assertThat(io.closedNow).isFalse();
        io.advance(Duration.ofMillis(1));
        assertThat(io.closedNow).as("closed 200 ms after the first byte of the half request").isTrue();
        assertThat(statuses(io.sent.toByteArray(), false)).as("no answer to the half request").containsExactly(200);
    }

    /** The idle deadline: a kept-alive connection that sends nothing is closed after the idle timeout. */
    @Test
    void aKeptAliveConnectionWithoutANextRequestIsClosedAtTheIdleTimeout() {
        MemoryIo io = new MemoryIo();
        ProbeConnection c = io.connection;
        c.opened();
        c.read(ascii("GET /livez HTTP/1.1\r\nHost: x\r\n\r\n"));
        assertThat(io.settings.table().size()).isEqualTo(1);
        io.advance(ManualSettings.IDLE_TIMEOUT.minusMillis(1));
        assertThat(io.closedNow).isFalse();
        io.advance(Duration.ofMillis(1));
        assertThat(io.closedNow).isTrue();
        assertThat(io.settings.table().size()).as("left the connection table").isZero();
    }

    @Test
    void evictionAndAGracefulStopCloseAnIdleConnection() {
        MemoryIo io = new MemoryIo();
        io.connection.opened();
        io.connection.evict();
        assertThat(io.closedNow).isTrue();
        io = new MemoryIo();
        io.connection.opened();
        io.connection.closeIfIdle();
        assertThat(io.closedNow).isTrue();
    }

    private static String exchange(String request) {
        MemoryIo io = new MemoryIo();
        io.connection.opened();
        io.connection.read(ascii(request));
        return io.sent.toString(StandardCharsets.ISO_8859_1);
    }

    private static ByteBuffer ascii(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.ISO_8859_1));
    }

    /** The statuses of the answers in {@code bytes}, each framed by its Content-Length (no body for HEAD). */
    static List<Integer> statuses(byte[] bytes, boolean head) {
        String s = new String(bytes, StandardCharsets.ISO_8859_1);
        List<Integer> out = new ArrayList<>();
        int at = 0;
        while (at < s.length()) {
            int end = s.indexOf("\r\n\r\n", at);
            assertThat(end).as("a complete head in " + s.substring(at)).isPositive();
            String headText = s.substring(at, end);
            out.add(Integer.parseInt(headText.substring(9, 12)));
            int cl = headText.indexOf("Content-Length: ");
            int length = Integer.parseInt(headText.substring(cl + 16, headText.indexOf("\r\n", cl)));
            at = end + 4 + (head ? 0 : length);
        }
        return out;
    }

    /** An in-memory adapter: writes go to {@link #sent} when flushed; timers run when the test says. */
    static final class MemoryIo implements ProbeConnection.Io {
        final ManualSettings settings = new ManualSettings();
        final ProbeConnection connection = new ProbeConnection(settings, responder, this, null);

        MemoryIo() {
            settings.table().admit(connection.entry()); // as a transport does on accept
        }
        final ByteArrayOutputStream queued = new ByteArrayOutputStream();
        final ByteArrayOutputStream sent = new ByteArrayOutputStream();
        final List<MemoryTimer> timers = new ArrayList<>();
        boolean lingering;
        boolean closedNow;

        @Override
        public void write(byte[] head, byte[] connectionLine, byte[] body) {
            queued.writeBytes(head);
            queued.writeBytes(connectionLine);
            queued.writeBytes(body);
        }

        @Override
        public void flush() {
            sent.writeBytes(queued.toByteArray());
            queued.reset();
        }

        @Override
        public void closeAfterWriting(long lingerMillis) {
            assertThat(lingerMillis).isPositive();
            flush();
            lingering = true;
        }

        @Override
        public void close() {
            closedNow = true;
            connection.closed();
        }

        @Override
        public ProbeConnection.Timer schedule(long delayNanos, Runnable task) {
            MemoryTimer t = new MemoryTimer(settings.clock.monotonicTime() + delayNanos, task);
            timers.add(t);
            return t;
        }

        /** Moves the manual clock on and runs the timers then due, in order (re-armed ones included). */
        void advance(Duration d) {
            settings.clock.add(d);
            while (true) {
                MemoryTimer due = timers.stream().filter(t -> !t.cancelled && settings.clock.monotonicTime() - t.at >= 0)
                        .min(java.util.Comparator.comparingLong(t -> t.at)).orElse(null);
                if (due == null) {
                    return;
                }
                timers.remove(due);
                due.task.run();
            }
        }

        @Override
        public void execute(Runnable task) {
            task.run();
        }

        @Override
        public boolean inLoop() {
            return true;
        }

        @Override
        public Object remote() {
            return "memory";
        }
    }

    /** The server's settings for one connection, on a manual clock, with a table of its own. */
    static final class ManualSettings implements ProbeConnection.Settings {
        static final Duration IDLE_TIMEOUT = Duration.ofSeconds(60);
        final dev.vitals.testing.ManualClock clock = dev.vitals.testing.ManualClock.create();
        private final ConnectionTable<ProbeConnection> table = new ConnectionTable<>(1024, 256);

        @Override
        public int maxHeaderSize() {
            return Heads.MAX_HEADER_SIZE;
        }

        @Override
        public long readTimeoutNanos() {
            return READ_TIMEOUT.toNanos();
        }

        @Override
        public long idleTimeoutNanos() {
            return IDLE_TIMEOUT.toNanos();
        }

        @Override
        public boolean stopping() {
            return false;
        }

        @Override
        public dev.vitals.Clock clock() {
            return clock;
        }

        @Override
        public ConnectionTable<ProbeConnection> table() {
            return table;
        }
    }

    static final class MemoryTimer implements ProbeConnection.Timer {
        final long at;
        final Runnable task;
        boolean cancelled;

        MemoryTimer(long at, Runnable task) {
            this.at = at;
            this.task = task;
        }

        @Override
        public void cancel() {
            cancelled = true;
        }
    }
}
