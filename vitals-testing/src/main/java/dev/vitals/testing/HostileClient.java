package dev.vitals.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Random;

/**
 * A hostile or confused client on a real loopback socket, for flood and bad-input tests of the
 * probe ports: what it sends ({@link #garbage()}, {@link #tlsClientHello()}) and how
 * ({@link #send}). Stateless; safe from any thread.
 */
public final class HostileClient {
    private HostileClient() {
    }

    /**
     * Connects to {@code port} on loopback, writes {@code bytes}, then either leaves at once
     * ({@code halfOpen}) or half-closes and drains what the server sends until it closes (a reset
     * or a 2 s read timeout also ends it).
     *
     * @param port the server's port
     * @param bytes what to send; may be empty
     * @param halfOpen true to connect, send and go without reading
     * @throws IOException when the connection cannot be made within 5 s
     */
    public static void send(int port, byte[] bytes, boolean halfOpen) throws IOException {
        send(null, port, bytes, halfOpen);
    }

    /**
     * As {@link #send(int, byte[], boolean)}, from a chosen local address: a loopback address
     * other than the probes' (127.0.0.2 …) stands for another pod, which a per-address
     * connection share tells apart from the kubelet.
     *
     * @param from the local address to bind, or {@code null} for any
     * @param port the loopback port
     * @param bytes what to send
     * @param halfOpen true to connect, send and go without reading
     * @throws IOException when the connection cannot be made within 5 s
     */
    public static void send(InetAddress from, int port, byte[] bytes, boolean halfOpen) throws IOException {
        try (Socket c = new Socket()) {
            if (from != null) {
                c.bind(new InetSocketAddress(from, 0));
            }
            c.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5_000);
            c.setSoTimeout(halfOpen ? 1 : 2_000);
            OutputStream out = c.getOutputStream();
            if (bytes.length > 0) {
                out.write(bytes);
                out.flush();
            }
            if (halfOpen) {
                return; // a connect, nothing sent, then gone
            }
            c.shutdownOutput();
            InputStream in = c.getInputStream();
            byte[] buf = new byte[4096];
            try {
                while (in.read(buf) >= 0) {
                    // drain until the server closes
                }
            } catch (IOException e) {
                // a reset or the read timeout: the server may answer either way
            }
        }
    }

    /** @return 512 random bytes, the same every run */
    public static byte[] garbage() {
        byte[] b = new byte[512];
        new Random(30).nextBytes(b);
        return b;
    }

    /** @return a minimal TLS 1.2 ClientHello record (what a TLS prober sends first) */
    public static byte[] tlsClientHello() {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.write(0x03);
        body.write(0x03); // client_version TLS 1.2
        body.writeBytes(new byte[32]); // random
        body.write(0); // session id length
        body.writeBytes(new byte[] {0, 2, (byte) 0xc0, 0x2f}); // one cipher suite
        body.writeBytes(new byte[] {1, 0}); // compression: null
        body.writeBytes(new byte[] {0, 0}); // no extensions
        byte[] b = body.toByteArray();
        ByteArrayOutputStream rec = new ByteArrayOutputStream();
        rec.writeBytes(new byte[] {0x16, 0x03, 0x01, (byte) ((b.length + 4) >> 8), (byte) (b.length + 4)});
        rec.writeBytes(new byte[] {0x01, 0, (byte) (b.length >> 8), (byte) b.length});
        rec.writeBytes(b);
        return rec.toByteArray();
    }

}
