package dev.vitals.server;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A deliberately small HTTP/1.x client on a raw socket, so tests control every byte (keep-alive,
 * pipelining, half requests, garbage) and see exactly what the server wrote. Not thread-safe.
 */
final class RawHttp implements AutoCloseable {
    final Socket socket;
    private final InputStream in;

    RawHttp(int port, int timeoutMillis) throws IOException {
        socket = new Socket();
        socket.setTcpNoDelay(true);
        socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), timeoutMillis);
        socket.setSoTimeout(timeoutMillis);
        in = socket.getInputStream();
    }

    /** One request with {@code Connection: close} on a fresh connection. */
    static Response get(int port, String target) throws IOException {
        return exchange(port, "GET " + target + " HTTP/1.1\r\nHost: probe\r\nConnection: close\r\n\r\n", 5000);
    }

    static Response exchange(int port, String request, int timeoutMillis) throws IOException {
        try (RawHttp c = new RawHttp(port, timeoutMillis)) {
            c.send(request);
            return c.read(request.startsWith("HEAD "));
        }
    }

    void send(String text) throws IOException {
        send(text.getBytes(StandardCharsets.ISO_8859_1));
    }

    void send(byte[] bytes) throws IOException {
        socket.getOutputStream().write(bytes);
        socket.getOutputStream().flush();
    }

    /** Reads one response; its body by Content-Length (none for HEAD). */
    Response read(boolean head) throws IOException {
        String statusLine = line();
        if (statusLine == null) {
            throw new IOException("connection closed before a response");
        }
        Map<String, String> headers = new LinkedHashMap<>();
        for (String l = line(); l != null && !l.isEmpty(); l = line()) {
            int colon = l.indexOf(':');
            headers.put(l.substring(0, colon).trim().toLowerCase(Locale.ROOT), l.substring(colon + 1).trim());
        }
        int length = head ? 0 : Integer.parseInt(headers.getOrDefault("content-length", "0"));
        byte[] body = in.readNBytes(length);
        if (body.length != length) {
            throw new IOException("body cut short: " + body.length + " of " + length + " bytes");
        }
        int status = Integer.parseInt(statusLine.split(" ")[1]);
        return new Response(statusLine, status, headers, new String(body, StandardCharsets.UTF_8));
    }

    /** @return true when the server has closed its side (EOF), false if data came instead */
    boolean awaitsEof() throws IOException {
        try {
            return in.read() < 0;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException reset) {
            return true;
        }
    }

    private String line() throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) >= 0) {
            if (c == '\n') {
                String s = b.toString(StandardCharsets.ISO_8859_1);
                return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
            }
            b.write(c);
        }
        return b.size() == 0 ? null : b.toString(StandardCharsets.ISO_8859_1);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }

    static final class Response {
        final String statusLine;
        final int status;
        final Map<String, String> headers;
        final String body;

        Response(String statusLine, int status, Map<String, String> headers, String body) {
            this.statusLine = statusLine;
            this.status = status;
            this.headers = headers;
            this.body = body;
        }

        String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }

        @Override
        public String toString() {
            return statusLine + " " + headers + " " + body;
        }
    }
}
