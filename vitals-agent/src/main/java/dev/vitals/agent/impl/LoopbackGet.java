package dev.vitals.agent.impl;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;

/**
 * One HTTP/1.1 {@code GET} to the application on loopback: a fresh connection with
 * {@code Connection: close}, and only the status line read (at most 8 KiB, then the connection
 * is closed). A plain socket rather than {@code HttpURLConnection} or {@code HttpClient}: no
 * keep-alive cache, no extra thread, nothing shared with the application.
 *
 * <p>An exchange outlives a wait that ran out: {@link #await} returns {@code null} while no
 * status line has arrived, and the caller may wait again later on the same connection. This is
 * what lets a hung framework check cost one connection (and one of the application's threads)
 * rather than one per poll. Not thread-safe: one caller at a time (the readiness check runs
 * single flight).
 */
final class LoopbackGet implements AutoCloseable {
    private static final int MAX_READ = 8192;

    /** The outcome of one call: an HTTP status, or none and a reason. */
    static final class Answer {
        final int status; // -1: no answer
        final String failure; // null when status > 0
        final boolean refused;

        Answer(int status, String failure, boolean refused) {
            this.status = status;
            this.failure = failure;
            this.refused = refused;
        }

        boolean http() {
            return status > 0;
        }
    }

    final int port;
    final String path;
    final long startedNanos = System.nanoTime();
    private final Socket socket;
    private final StringBuilder line = new StringBuilder();
    private final byte[] buf = new byte[512];
    private int total;
    private Answer immediate;

    private LoopbackGet(int port, String path, Socket socket) {
        this.port = port;
        this.path = path;
        this.socket = socket;
    }

    /**
     * Connects to {@code port} on loopback (or on the one address the port listens on, {@link
     * AppPorts#address}) and sends the request.
     *
     * @param port the application's port
     * @param path absolute path with an optional query, e.g. {@code /q/health/ready}
     * @param connectMillis connect bound, at least 1
     * @return the exchange; a failed connect yields an exchange whose {@link #await} returns the failure
     */
    static LoopbackGet start(int port, String path, long connectMillis) {
        Socket s = new Socket();
        LoopbackGet g = new LoopbackGet(port, path, s);
        try {
            s.setTcpNoDelay(true);
            InetAddress to = AppPorts.address(port); // loopback unless the port listens on one other address only
            s.connect(new InetSocketAddress(to, port), (int) Math.max(1, Math.min(Integer.MAX_VALUE, connectMillis)));
            String host = to instanceof java.net.Inet6Address ? "[" + to.getHostAddress() + "]" : to.getHostAddress();
            OutputStream out = s.getOutputStream();
            out.write(("GET " + path + " HTTP/1.1\r\nHost: " + host + ":" + port
                    + "\r\nUser-Agent: vitals-agent\r\nAccept: */*\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
        } catch (java.net.ConnectException e) {
            g.finish(new Answer(-1, "connection refused", true));
        } catch (SocketTimeoutException e) {
            g.finish(new Answer(-1, "connect timed out after " + connectMillis + " ms", false));
        } catch (IOException e) {
            g.finish(new Answer(-1, e.getClass().getSimpleName(), false));
        }
        return g;
    }

    /** @return milliseconds since the request was sent */
    long ageMillis() {
        return (System.nanoTime() - startedNanos) / 1_000_000L;
    }

    /**
     * Waits up to {@code waitMillis} for the status line.
     *
     * @param waitMillis at least 1
     * @return the answer (the connection is then closed), or {@code null} if none has come yet
     */
    Answer await(long waitMillis) {
        if (immediate != null) {
            return immediate;
        }
        long end = System.nanoTime() + waitMillis * 1_000_000L;
        try {
            InputStream in = socket.getInputStream();
            while (true) {
                long left = (end - System.nanoTime()) / 1_000_000L;
                if (left <= 0) {
                    return null;
                }
                socket.setSoTimeout((int) Math.min(Integer.MAX_VALUE, left));
                int n;
                try {
                    n = in.read(buf);
                } catch (SocketTimeoutException e) {
                    return null;
                }
                if (n < 0) {
                    return finish(new Answer(-1, "connection closed before a status line", false));
                }
                total += n;
                for (int i = 0; i < n; i++) {
                    char c = (char) (buf[i] & 0xff);
                    if (c == '\n') {
                        return finish(parse(line.toString().trim()));
                    }
                    line.append(c);
                }
                if (total > MAX_READ) {
                    return finish(new Answer(-1, "status line longer than " + MAX_READ + " bytes", false));
                }
            }
        } catch (IOException e) {
            return finish(new Answer(-1, e.getClass().getSimpleName(), false));
        }
    }

    private Answer finish(Answer a) {
        immediate = a;
        close();
        return a;
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException e) {
            // nothing to do
        }
    }

    private static Answer parse(String statusLine) {
        // HTTP/1.1 200 OK
        String[] parts = statusLine.split(" ", 3);
        if (parts.length >= 2 && parts[0].startsWith("HTTP/")) {
            try {
                int code = Integer.parseInt(parts[1]);
                if (code >= 100 && code <= 599) {
                    return new Answer(code, null, false);
                }
            } catch (NumberFormatException e) {
                // below
            }
        }
        return new Answer(-1, "not an HTTP answer", false);
    }
}
