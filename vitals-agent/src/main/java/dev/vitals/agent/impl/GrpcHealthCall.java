package dev.vitals.agent.impl;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;

/**
 * One unary {@code grpc.health.v1.Health/Check} (service {@code ""}) to the application on
 * loopback over HTTP/2 with prior knowledge (h2c), on a kept connection: each call is a new
 * stream on it. No HTTP/1 byte is ever sent, so a gRPC server (grpc-java on Netty) never sees a
 * request it cannot parse; no Netty in the agent either: this is the smallest HTTP/2 client that
 * one unary call needs (RFC 9113 framing; gRPC over HTTP/2, grpc/doc/PROTOCOL-HTTP2.md).
 *
 * <ul>
 *   <li>Connection: the preface and an empty SETTINGS; the server's SETTINGS and PINGs are
 *       acknowledged; a GOAWAY or a closed socket ends the connection (the next call opens a new
 *       one).</li>
 *   <li>Request: HEADERS (HPACK literals without indexing or Huffman, so the agent keeps no
 *       HPACK state) and one DATA frame with the empty {@code HealthCheckRequest}.</li>
 *   <li>Response: the server's header blocks are not decoded (they are never needed): a DATA
 *       message carries {@code HealthCheckResponse.status} (field 1: 1 SERVING, 2 NOT_SERVING, 0
 *       UNKNOWN, 3 SERVICE_UNKNOWN); a stream that ends with no message is a gRPC error, in
 *       practice UNIMPLEMENTED: the server has no health service. The connection's receive window
 *       is given back after each message (WINDOW_UPDATE), so a kept connection never runs dry.</li>
 * </ul>
 * Non-blocking (issue 37): a {@link SocketChannel} in non-blocking mode; {@link #poll} finishes
 * the connect, writes what is queued (preface, requests, acknowledgements) and reads the frames
 * that have arrived, never waiting, so the readiness check runs on Vitals' scheduler thread
 * ({@link AppReadiness}); {@link #await} is its blocking form, for tests. Not thread-safe: one
 * caller at a time (the readiness check runs single flight). A call that has not answered within
 * a wait is kept, and a later poll goes on reading for it.
 */
final class GrpcHealthCall implements AutoCloseable {
    static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1);
    static final String PATH = "/grpc.health.v1.Health/Check";
    private static final int DATA = 0x0, HEADERS = 0x1, RST_STREAM = 0x3, SETTINGS = 0x4, PING = 0x6, GOAWAY = 0x7,
            WINDOW_UPDATE = 0x8, CONTINUATION = 0x9;
    private static final int END_STREAM = 0x1, ACK = 0x1, END_HEADERS = 0x4, PADDED = 0x8, PRIORITY = 0x20;
    /** Our SETTINGS_MAX_FRAME_SIZE (the default): a larger frame is a protocol error. */
    private static final int MAX_FRAME = 16_384;

    /** The outcome of one call. */
    static final class Answer {
        /** the HealthCheckResponse status: 1 SERVING, 2 NOT_SERVING, 0 UNKNOWN, 3 SERVICE_UNKNOWN; -1: none */
        final int serving;
        /** the stream ended without a message: a gRPC error such as UNIMPLEMENTED (no health service) */
        final boolean noHealthService;
        /** not HTTP/2, refused, or broken; null otherwise */
        final String failure;
        final boolean refused;
        /** the port answered HTTP/2 frames */
        final boolean h2;

        Answer(int serving, boolean noHealthService, String failure, boolean refused, boolean h2) {
            this.serving = serving;
            this.noHealthService = noHealthService;
            this.failure = failure;
            this.refused = refused;
            this.h2 = h2;
        }

        static Answer failed(String why, boolean refused, boolean h2) {
            return new Answer(-1, false, why, refused, h2);
        }

        /** @return SERVING, NOT_SERVING... for messages */
        String statusName() {
            switch (serving) {
                case 0: return "UNKNOWN";
                case 1: return "SERVING";
                case 2: return "NOT_SERVING";
                case 3: return "SERVICE_UNKNOWN";
                default: return "status " + serving;
            }
        }
    }

    final int port;
    private final SocketChannel channel; // null when none could be opened
    private final InetAddress to;
    private final long connectMillis;
    private final long connectStartNanos = System.nanoTime();
    private boolean connecting;
    /** Bytes queued for the socket (preface, requests, acknowledgements), written by {@link #flush}. */
    private final ByteArrayOutputStream queued = new ByteArrayOutputStream();
    private ByteBuffer writing;
    /** What has been read and not parsed yet (read mode: position to limit). */
    private final ByteBuffer received = ByteBuffer.allocate(8192).flip();
    private boolean h2;
    private boolean dead;
    private int nextStream = 1;
    private int stream = -1;      // the call in flight, -1: none
    private long startedNanos;
    private Answer answer;        // of the call in flight, once known
    private final ByteArrayOutputStream message = new ByteArrayOutputStream();
    // frame being read: header then payload, possibly across polls
    private final byte[] head = new byte[9];
    private int headRead;
    private byte[] payload;
    private int payloadRead;

    private GrpcHealthCall(int port, SocketChannel channel, InetAddress to, long connectMillis) {
        this.port = port;
        this.channel = channel;
        this.to = to;
        this.connectMillis = Math.max(1, connectMillis);
    }

    /**
     * Starts connecting, without waiting, and queues the preface.
     *
     * @param port the application's port
     * @param connectMillis connect bound, at least 1: a connect still pending after it is a failure
     * @return the connection; when the connect failed, {@link #call()} answers the failure
     */
    static GrpcHealthCall connect(int port, long connectMillis) {
        InetAddress to = AppPorts.address(port);
        SocketChannel ch;
        try {
            ch = SocketChannel.open();
        } catch (IOException e) {
            GrpcHealthCall c = new GrpcHealthCall(port, null, to, connectMillis);
            c.fail(Answer.failed(e.getClass().getSimpleName(), false, false));
            return c;
        }
        GrpcHealthCall c = new GrpcHealthCall(port, ch, to, connectMillis);
        try {
            ch.configureBlocking(false);
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            ch.setOption(StandardSocketOptions.SO_KEEPALIVE, true);
            c.queued.write(PREFACE);
            frame(c.queued, SETTINGS, 0, 0, new byte[0]);
            c.connecting = !ch.connect(new InetSocketAddress(to, port));
        } catch (ConnectException e) {
            c.fail(Answer.failed("connection refused", true, false));
        } catch (IOException e) {
            c.fail(Answer.failed(e.getClass().getSimpleName(), false, false));
        }
        return c;
    }

    /** @return whether the connection can carry another call */
    boolean open() {
        return !dead && channel != null && channel.isOpen();
    }

    /** @return whether a call is in flight (sent, not answered) */
    boolean inFlight() {
        return stream > 0 && answer == null;
    }

    /** @return milliseconds since the call in flight was sent */
    long ageMillis() {
        return (System.nanoTime() - startedNanos) / 1_000_000L;
    }

    /**
     * Sends a new Check on this connection. Call {@link #await} for its answer.
     *
     * @throws IllegalStateException if a call is in flight
     */
    void call() {
        if (inFlight()) {
            throw new IllegalStateException("a call is in flight");
        }
        startedNanos = System.nanoTime();
        message.reset();
        if (dead) {
            stream = nextStream;
            if (answer == null) {
                answer = Answer.failed("connection closed", false, h2);
            }
            return;
        }
        answer = null;
        stream = nextStream;
        nextStream += 2;
        try {
            ByteArrayOutputStream block = new ByteArrayOutputStream();
            block.write(0x83); // :method POST (static index 3)
            block.write(0x86); // :scheme http (static index 6)
            literal(block, 0x04, PATH);         // :path, literal without indexing, name index 4
            literal(block, 0x01, (to instanceof java.net.Inet6Address ? "[" + to.getHostAddress() + "]" : to.getHostAddress()) + ":" + port); // :authority
            block.write(0x0f);                  // content-type: name index 31 = 15 + 16
            block.write(0x10);
            string(block, "application/grpc");
            block.write(0x00);                  // te: new name
            string(block, "te");
            string(block, "trailers");
            block.write(0x00);
            string(block, "user-agent");
            string(block, "vitals-agent");
            frame(queued, HEADERS, END_HEADERS, stream, block.toByteArray());
            frame(queued, DATA, END_STREAM, stream, new byte[] {0, 0, 0, 0, 0}); // uncompressed, empty HealthCheckRequest
            if (!connecting) {
                flush();
            }
        } catch (IOException e) {
            fail(Answer.failed("connection lost: " + e.getClass().getSimpleName(), false, h2));
        }
    }

    /**
     * One non-blocking step for the call in flight: finishes the connect, writes what is queued
     * and reads the frames that have arrived, never waiting.
     *
     * @return the answer, or {@code null} while none has come
     */
    Answer poll() {
        if (answer != null) {
            return answer;
        }
        try {
            if (connecting) {
                if (!channel.finishConnect()) {
                    if ((System.nanoTime() - connectStartNanos) / 1_000_000L >= connectMillis) {
                        fail(Answer.failed("connect timed out after " + connectMillis + " ms", false, false));
                    }
                    return answer;
                }
                connecting = false;
            }
            flush();
            while (answer == null) {
                if (!received.hasRemaining()) {
                    received.clear();
                    int n = channel.read(received);
                    received.flip();
                    if (n == 0) {
                        break;
                    }
                    if (n < 0) {
                        throw new java.io.EOFException();
                    }
                }
                if (!readFrame()) {
                    continue;
                }
                onFrame(head[3] & 0xff, head[4] & 0xff, ((head[5] & 0x7f) << 24) | ((head[6] & 0xff) << 16) | ((head[7] & 0xff) << 8) | (head[8] & 0xff), payload);
                headRead = 0;
                payload = null;
            }
            if (!dead) {
                flush(); // acknowledgements and window updates queued by the frames read
            }
        } catch (ConnectException e) {
            fail(Answer.failed("connection refused", true, false));
        } catch (IOException e) {
            fail(Answer.failed(h2 ? "connection lost: " + e.getClass().getSimpleName() : "not HTTP/2 (h2c)", false, h2));
        }
        return answer;
    }

    /**
     * Blocking form of {@link #poll} (tests): polls until the answer has come or
     * {@code waitMillis} passed.
     *
     * @param waitMillis at least 1
     * @return the answer, or {@code null} while none has come
     */
    Answer await(long waitMillis) {
        return LoopbackGet.pollUntil(this::poll, waitMillis);
    }

    /** Writes what is queued, as much as the socket takes now. */
    private void flush() throws IOException {
        while (true) {
            if (writing == null || !writing.hasRemaining()) {
                if (queued.size() == 0) {
                    writing = null;
                    return;
                }
                writing = ByteBuffer.wrap(queued.toByteArray());
                queued.reset();
            }
            if (channel.write(writing) == 0) {
                return; // the send buffer is full: the rest on the next poll
            }
        }
    }

    /** Takes bytes of {@link #received} into the current frame; true once header and payload are complete. */
    private boolean readFrame() {
        if (headRead < 9) {
            int n = Math.min(9 - headRead, received.remaining());
            received.get(head, headRead, n);
            headRead += n;
            if (!h2 && headRead >= 4 && head[3] != SETTINGS) {
                // An HTTP/2 server's first frame is SETTINGS; "HTTP/1.1 400" is not.
                fail(Answer.failed("not HTTP/2 (h2c): the port answered " + printable(head, headRead), false, false));
                return false;
            }
            if (headRead < 9) {
                return false;
            }
        }
        if (payload == null) {
            int length = ((head[0] & 0xff) << 16) | ((head[1] & 0xff) << 8) | (head[2] & 0xff);
            if (length > MAX_FRAME) {
                fail(Answer.failed(h2 ? "frame of " + length + " bytes over " + MAX_FRAME
                        : "not HTTP/2 (h2c): the port answered " + printable(head, headRead), false, h2));
                return false;
            }
            payload = new byte[length];
            payloadRead = 0;
            h2 = true;
        }
        int n = Math.min(payload.length - payloadRead, received.remaining());
        received.get(payload, payloadRead, n);
        payloadRead += n;
        return payloadRead == payload.length;
    }

    private void onFrame(int type, int flags, int id, byte[] p) throws IOException {
        switch (type) {
            case SETTINGS:
                if ((flags & ACK) == 0) {
                    write(SETTINGS, ACK, 0, new byte[0]);
                }
                break;
            case PING:
                if ((flags & ACK) == 0) {
                    write(PING, ACK, 0, p);
                }
                break;
            case GOAWAY:
                dead = true;
                if (id == 0 && stream > 0 && answer == null) {
                    int last = ((p[0] & 0x7f) << 24) | ((p[1] & 0xff) << 16) | ((p[2] & 0xff) << 8) | (p[3] & 0xff);
                    if (last < stream) {
                        fail(Answer.failed("the server sent GOAWAY", false, true));
                    }
                }
                break;
            case RST_STREAM:
                if (id == stream) {
                    done(Answer.failed("the server reset the stream", false, true));
                }
                break;
            case DATA: {
                int from = 0;
                int to = p.length;
                if ((flags & PADDED) != 0 && p.length > 0) {
                    from = 1;
                    to -= p[0] & 0xff;
                }
                if (p.length > 0) {
                    // Give the connection's window back at once; the stream's dies with the stream.
                    write(WINDOW_UPDATE, 0, 0, new byte[] {(byte) (p.length >>> 24), (byte) (p.length >>> 16), (byte) (p.length >>> 8), (byte) p.length});
                }
                if (id == stream && to > from) {
                    message.write(p, from, to - from);
                }
                if (id == stream && (flags & END_STREAM) != 0) {
                    streamEnded();
                }
                break;
            }
            case HEADERS:
            case CONTINUATION:
                if (id == stream && (flags & END_STREAM) != 0) {
                    streamEnded();
                }
                break;
            default:
                break; // WINDOW_UPDATE, PRIORITY, PUSH_PROMISE (disabled by no client SETTINGS? ignored), unknown
        }
    }

    private void streamEnded() {
        byte[] m = message.toByteArray();
        if (m.length < 5) {
            done(new Answer(-1, true, null, false, true));
            return;
        }
        // gRPC message: 1 byte compressed flag, 4 bytes length, then HealthCheckResponse.
        int serving = 0; // absent field 1: UNKNOWN (proto3 default)
        int i = 5;
        while (i < m.length) {
            int key = m[i++] & 0xff;
            if (key == 0x08 && i < m.length) { // field 1, varint
                serving = m[i++] & 0x7f;
            } else {
                break;
            }
        }
        done(new Answer(serving, false, null, false, true));
    }

    private void done(Answer a) {
        answer = a;
    }

    private void fail(Answer a) {
        answer = a;
        dead = true;
        close();
    }

    /** Queues a frame; written by the poll that read the frame it answers. */
    private void write(int type, int flags, int id, byte[] p) {
        frame(queued, type, flags, id, p);
    }

    /** Appends one HTTP/2 frame: a 9-byte header (length, type, flags, stream id), then {@code p} (RFC 9113 section 4.1). */
    static void frame(ByteArrayOutputStream b, int type, int flags, int id, byte[] p) {
        b.write(p.length >>> 16);
        b.write(p.length >>> 8);
        b.write(p.length);
        b.write(type);
        b.write(flags);
        b.write(id >>> 24);
        b.write(id >>> 16);
        b.write(id >>> 8);
        b.write(id);
        b.write(p, 0, p.length);
    }

    /** A header field "literal without indexing, indexed name" (RFC 7541 6.2.2) with a 4-bit prefix < 15. */
    private static void literal(ByteArrayOutputStream b, int nameIndex, String value) {
        b.write(nameIndex);
        string(b, value);
    }

    /** An HPACK string literal, no Huffman, 7-bit length prefix (values here are under 127 bytes). */
    private static void string(ByteArrayOutputStream b, String s) {
        byte[] v = s.getBytes(StandardCharsets.ISO_8859_1);
        if (v.length >= 127) {
            throw new IllegalArgumentException("header value too long: " + s);
        }
        b.write(v.length);
        b.write(v, 0, v.length);
    }

    private static String printable(byte[] b, int n) {
        StringBuilder s = new StringBuilder("\"");
        for (int i = 0; i < n; i++) {
            char c = (char) (b[i] & 0xff);
            s.append(c >= 32 && c < 127 ? c : '.');
        }
        return s.append('"').toString();
    }

    @Override
    public void close() {
        dead = true;
        if (channel == null) {
            return;
        }
        try {
            channel.close();
        } catch (IOException e) {
            // nothing to do
        }
    }
}
