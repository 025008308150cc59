package dev.vitals.grpc;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * A hand-made HTTP/2 client that sends gRPC Check calls and never reads a byte of the answers:
 * the "never-reading" (and, sending in a loop, "flooding") client of the limits tests.
 */
final class RawHttp2 implements AutoCloseable {
    private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    private final Socket socket;
    private final OutputStream out;
    private int nextStream = 1;

    RawHttp2(int port) throws IOException {
        this(port, null);
    }

    /** As {@link #RawHttp2(int)}, from the local address {@code from} (e.g. 127.0.0.2); null: any. */
    RawHttp2(int port, InetAddress from) throws IOException {
        socket = new Socket();
        socket.setReceiveBufferSize(4096);
        if (from != null) {
            socket.bind(new InetSocketAddress(from, 0));
        }
        socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5000);
        out = socket.getOutputStream();
        out.write(PREFACE);
        frame(out, 4, 0, 0, new byte[0]); // SETTINGS, empty
        out.flush();
    }

    /** Writes {@code n} Check calls for service {@code ""}, HEADERS then DATA with END_STREAM each. */
    void sendChecks(int n) throws IOException {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        byte[] headers = headerBlock();
        for (int i = 0; i < n; i++) {
            int id = nextStream;
            nextStream += 2;
            frame(buf, 1, 0x4, id, headers);                  // HEADERS, END_HEADERS
            frame(buf, 0, 0x1, id, new byte[] {0, 0, 0, 0, 0}); // DATA: an empty gRPC message, END_STREAM
        }
        out.write(buf.toByteArray());
        out.flush();
    }

    /**
     * Reads (and drops) whatever the server sends until it closes the connection.
     *
     * @return how long that took
     * @throws java.net.SocketTimeoutException if the server keeps it open for {@code limit}
     */
    java.time.Duration awaitClosedByServer(java.time.Duration limit) throws IOException {
        long t0 = System.nanoTime();
        socket.setSoTimeout((int) limit.toMillis());
        java.io.InputStream in = socket.getInputStream();
        byte[] b = new byte[4096];
        try {
            while (in.read(b) >= 0) {
                // frames from the server: SETTINGS, GOAWAY
            }
        } catch (java.net.SocketException e) {
            // reset by the server: closed as well
        }
        return java.time.Duration.ofNanos(System.nanoTime() - t0);
    }

    /**
     * Drops what the server sent and tells whether it closed the connection; waits at most
     * {@code waitMillis} for more bytes.
     */
    boolean closedByServer(int waitMillis) throws IOException {
        socket.setSoTimeout(waitMillis);
        java.io.InputStream in = socket.getInputStream();
        byte[] b = new byte[4096];
        try {
            while (in.read(b) >= 0) {
                // frames from the server: SETTINGS, SETTINGS ack
            }
            return true;
        } catch (java.net.SocketTimeoutException e) {
            return false;
        } catch (java.net.SocketException e) {
            return true; // reset by the server
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }

    private static byte[] headerBlock() {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        literal(b, ":method", "POST");
        literal(b, ":scheme", "http");
        literal(b, ":path", "/grpc.health.v1.Health/Check");
        literal(b, ":authority", "localhost");
        literal(b, "content-type", "application/grpc");
        literal(b, "te", "trailers");
        return b.toByteArray();
    }

    /** HPACK literal header field without indexing, new name (RFC 7541 6.2.2); lengths below 127. */
    private static void literal(ByteArrayOutputStream b, String name, String value) {
        b.write(0);
        b.write(name.length());
        b.writeBytes(name.getBytes(StandardCharsets.US_ASCII));
        b.write(value.length());
        b.writeBytes(value.getBytes(StandardCharsets.US_ASCII));
    }

    private static void frame(OutputStream o, int type, int flags, int stream, byte[] payload) throws IOException {
        int len = payload.length;
        o.write(new byte[] {(byte) (len >>> 16), (byte) (len >>> 8), (byte) len, (byte) type, (byte) flags,
            (byte) (stream >>> 24), (byte) (stream >>> 16), (byte) (stream >>> 8), (byte) stream});
        o.write(payload);
    }
}
