package dev.vitals.agent.impl;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.locks.LockSupport;

/**
 * One HTTP/1.1 {@code GET} to the application on loopback, on a kept-alive connection: the
 * response is read whole (status line, headers, a body by {@code Content-Length}, chunks or until
 * close; at most {@link #MAX_READ} bytes), and the next call ({@link #next}) reuses the socket
 * unless the application closed it or asked to ({@code Connection: close}). One connection for
 * every poll, so the application's server grows no pool for the agent (a fresh connection per
 * poll made Jetty and Netty start threads for it: issue 24). A {@link SocketChannel} in
 * non-blocking mode rather than {@code HttpURLConnection} or {@code HttpClient}: no shared cache,
 * no extra thread, and no call that waits (issue 37).
 *
 * <p>Non-blocking: {@link #poll} connects, writes the request and reads whatever has arrived,
 * feeding the incremental parser, and returns at once, {@code null} while the answer is not
 * whole. The readiness check calls it from Vitals' scheduler thread, step by step ({@link
 * AppReadiness}); {@link #await} is the blocking form (a short pause between polls) for the
 * warm-up's own thread and tests. An exchange outlives a wait that ran out: the caller may poll
 * again later on the same connection. This is what lets a hung framework check cost one
 * connection (and one of the application's threads) rather than one per poll. Not thread-safe:
 * one caller at a time (the readiness check runs single flight).
 */
final class LoopbackGet implements AutoCloseable {
    /** The most bytes one response may have; a longer one is answered from its status and the connection closed. */
    static final int MAX_READ = 64 * 1024;
    /** The pause between two polls of a blocking {@link #await}. */
    private static final long AWAIT_PAUSE_NANOS = 1_000_000L;

    /** The outcome of one call: an HTTP status, or none and a reason. */
    static final class Answer {
        final int status; // -1: no answer
        final String failure; // null when status > 0
        final boolean refused;
        private boolean closedEmpty;

        Answer(int status, String failure, boolean refused) {
            this.status = status;
            this.failure = failure;
            this.refused = refused;
        }

        private Answer emptyIf(boolean empty) {
            closedEmpty = empty;
            return this;
        }

        boolean http() {
            return status > 0;
        }

        /**
         * @return whether the connection was closed or reset before a single byte came back: no
         *     sign of what the port speaks (a server still starting may close connections)
         */
        boolean closedEmpty() {
            return closedEmpty;
        }
    }

    private enum Part { STATUS, HEADERS, BODY, CHUNK_SIZE, CHUNK_DATA, CHUNK_END, TRAILERS, UNTIL_CLOSE, DONE }

    final int port;
    final String path;
    final long startedNanos = System.nanoTime();
    private SocketChannel channel; // null when none could be opened
    /** Sent on a connection kept from an earlier answer: closed by the application meanwhile, it is asked again on a new one. */
    private boolean reused;
    private final InetAddress to;
    private final long connectMillis;
    private boolean connecting;
    private int localPort; // 0 until connected
    private ByteBuffer request; // what is left to write; null once sent
    private final StringBuilder line = new StringBuilder();
    private final byte[] buf = new byte[1024];
    private final ByteBuffer in = ByteBuffer.wrap(buf);
    private Part part = Part.STATUS;
    private int status = -1;
    private long remaining;
    private boolean close;
    private boolean chunked;
    private boolean lengthKnown;
    private int total;
    private Answer immediate;
    private boolean reusable;

    private LoopbackGet(int port, String path, SocketChannel channel, InetAddress to, long connectMillis, int localPort) {
        this.port = port;
        this.path = path;
        this.channel = channel;
        this.to = to;
        this.connectMillis = Math.max(1, connectMillis);
        this.localPort = localPort;
    }

    /**
     * Starts connecting to {@code port} on loopback (or on the one address the port listens on,
     * {@link AppPorts#address}) without waiting; the request is written once connected, by
     * {@link #poll}.
     *
     * @param port the application's port
     * @param path absolute path with an optional query, e.g. {@code /q/health/ready}
     * @param connectMillis connect bound, at least 1: a connect still pending after it (a full
     *     accept backlog drops the handshake) is answered "connect timed out"
     * @return the exchange; a failed connect yields an exchange whose {@link #poll} returns the failure
     */
    static LoopbackGet start(int port, String path, long connectMillis) {
        InetAddress to = AppPorts.address(port); // loopback unless the port listens on one other address only
        LoopbackGet g = new LoopbackGet(port, path, null, to, connectMillis, 0);
        g.connectNew();
        return g;
    }

    /** Opens a new connection and starts connecting, the request to be written once connected; a failure is the answer. */
    private void connectNew() {
        request = requestBytes();
        try {
            channel = SocketChannel.open();
        } catch (IOException e) {
            finish(new Answer(-1, describe(e), false), false);
            return;
        }
        try {
            channel.configureBlocking(false);
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            channel.setOption(StandardSocketOptions.SO_KEEPALIVE, true);
            connecting = true;
            if (channel.connect(new InetSocketAddress(to, port))) {
                connected();
            }
        } catch (ConnectException e) {
            finish(new Answer(-1, "connection refused", true), false);
        } catch (IOException e) {
            finish(new Answer(-1, describe(e), false), false);
        }
    }

    /** @return what went wrong, in words: the exception's message ("Connection reset"), else its class */
    private static String describe(IOException e) {
        String m = e.getMessage();
        return m != null && !m.isBlank() ? m.toLowerCase(Locale.ROOT) : e.getClass().getSimpleName();
    }

    private void connected() throws IOException {
        connecting = false;
        localPort = ((InetSocketAddress) channel.getLocalAddress()).getPort();
        opened(localPort);
    }

    /**
     * The next call: on this exchange's connection when it is answered and kept alive, else on a
     * new one ({@link #start}).
     *
     * @param nextPort the port to call
     * @param nextPath the path to call
     * @param connectMillis connect bound for a new connection
     * @return the new exchange
     */
    LoopbackGet next(int nextPort, String nextPath, long connectMillis) {
        if (reusable && nextPort == port && channel != null && channel.isOpen()) {
            reusable = false;
            LoopbackGet g = new LoopbackGet(nextPort, nextPath, channel, to, connectMillis, localPort);
            g.request = g.requestBytes();
            g.reused = true;
            try {
                g.write(); // a few hundred bytes into an idle connection's send buffer: written at once
                return g;
            } catch (IOException e) {
                close(); // closed by the application meanwhile: a new connection
            }
        } else {
            close();
        }
        return start(nextPort, nextPath, connectMillis);
    }

    private ByteBuffer requestBytes() {
        String host = to instanceof java.net.Inet6Address ? "[" + to.getHostAddress() + "]" : to.getHostAddress();
        return ByteBuffer.wrap(("GET " + path + " HTTP/1.1\r\nHost: " + host + ":" + port
                + "\r\nUser-Agent: vitals-agent\r\nAccept: */*\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
    }

    /** Writes what is left of the request, as much as the socket takes now. */
    private void write() throws IOException {
        if (request != null) {
            channel.write(request);
            if (!request.hasRemaining()) {
                request = null;
            }
        }
    }

    /** @return the agent's local port of this exchange's connection; 0 until connected */
    int localPort() {
        return localPort;
    }

    /** @return milliseconds since the request was sent */
    long ageMillis() {
        return (System.nanoTime() - startedNanos) / 1_000_000L;
    }

    /**
     * @return whether the connection is established and the whole request written, with no
     *     answer yet: the application's port took the request and holds it
     */
    boolean sent() {
        return immediate == null && channel != null && channel.isOpen() && !connecting && request == null;
    }

    /** @return whether the connection stays open for {@link #next} */
    boolean reusable() {
        return reusable;
    }

    /**
     * One non-blocking step: finishes the connect, writes what is left of the request and reads
     * what has arrived, never waiting. An answer is on time when it reached the agent's socket:
     * a caller that polls once more at its deadline reads everything that arrived before it, even
     * if the agent's thread (on a machine loaded by a flood of the probe port) got there late.
     *
     * @return the answer (also a failure: refused, connect timed out past the connect bound,
     *     closed), or {@code null} while it has not arrived whole
     */
    Answer poll() {
        if (immediate != null) {
            return immediate;
        }
        try {
            if (connecting) {
                if (!channel.finishConnect()) {
                    if (ageMillis() >= connectMillis) {
                        return finish(new Answer(-1, "connect timed out after " + connectMillis + " ms", false), false);
                    }
                    return null;
                }
                connected();
            }
            write();
            if (request != null) {
                return null; // the socket's send buffer is full: the rest on the next poll
            }
            while (true) {
                in.clear();
                int n = channel.read(in);
                if (n == 0) {
                    return null;
                }
                if (n < 0) {
                    if (staleConnection()) {
                        return poll(); // once: the new exchange is not 'reused'
                    }
                    if (status > 0 && (part == Part.UNTIL_CLOSE || part == Part.DONE)) {
                        return finish(new Answer(status, null, false), false);
                    }
                    // Headers or a body cut short: kubelet's prober fails on the read error too
                    // (pkg/probe/http/http.go: a body read error other than the size limit is a failure).
                    return finish(new Answer(-1, status > 0 ? "answer cut short: connection closed in the "
                            + (part == Part.HEADERS ? "headers" : "body") + " after " + total + " bytes"
                            : "connection closed before a status line", false).emptyIf(total == 0), false);
                }
                Answer a = took(n);
                if (a != null) {
                    return a;
                }
            }
        } catch (ConnectException e) {
            return finish(new Answer(-1, "connection refused", true), false);
        } catch (IOException e) {
            if (staleConnection()) {
                return poll();
            }
            return finish(new Answer(-1, describe(e), false).emptyIf(total == 0 && !connecting), false);
        }
    }

    /**
     * A kept connection that the application closed while it was idle (a keep-alive timeout
     * shorter than the readiness interval) ends before the first byte of the answer: the request
     * goes again on a new connection, as HTTP clients retry an idempotent request on a reused
     * connection that closed before answering. Without it every other poll read DOWN.
     *
     * @return whether this exchange moved to a new connection
     */
    private boolean staleConnection() {
        if (!reused || total > 0) {
            return false;
        }
        reused = false;
        close();
        connectNew();
        return true;
    }

    /**
     * Blocking form of {@link #poll} (the warm-up's own thread, tests): polls until the answer
     * has come or {@code waitMillis} passed, reading at the deadline what has already arrived.
     *
     * @param waitMillis at least 1
     * @return the answer, or {@code null} if it has not come yet
     */
    Answer await(long waitMillis) {
        return pollUntil(this::poll, waitMillis);
    }

    /**
     * Calls {@code poll} every millisecond until it returns an answer or {@code waitMillis} passed,
     * then once more at the deadline (what has arrived by then counts). Blocks the calling thread:
     * never on the scheduler.
     *
     * @param poll one non-blocking step: the answer, or null while none has come
     * @param waitMillis at least 1
     * @return the answer, or {@code null} if none came in time
     */
    static <A> A pollUntil(java.util.function.Supplier<A> poll, long waitMillis) {
        long end = System.nanoTime() + Math.max(1, waitMillis) * 1_000_000L;
        while (true) {
            long left = end - System.nanoTime();
            A a = poll.get();
            if (a != null || left <= 0) {
                return a;
            }
            LockSupport.parkNanos(Math.min(AWAIT_PAUSE_NANOS, left));
        }
    }

    /**
     * Counts {@code n} bytes just read into {@link #buf} and feeds them to the parser.
     *
     * @return the answer once the response is complete or past {@link #MAX_READ}, else null
     */
    private Answer took(int n) {
        total += n;
        Answer a = consume(n);
        if (a != null) {
            return a;
        }
        if (total > MAX_READ) {
            return finish(status > 0 ? new Answer(status, null, false)
                    : new Answer(-1, "no status line in " + MAX_READ + " bytes", false), false);
        }
        return null;
    }

    /** Feeds {@code n} bytes of {@link #buf} to the parser; the answer once the response is complete. */
    private Answer consume(int n) {
        int i = 0;
        while (i < n) {
            switch (part) {
                case BODY:
                case CHUNK_DATA: {
                    int take = (int) Math.min(remaining, n - i);
                    remaining -= take;
                    i += take;
                    if (remaining == 0) {
                        if (part == Part.BODY) {
                            return complete();
                        }
                        part = Part.CHUNK_END;
                    }
                    break;
                }
                case UNTIL_CLOSE:
                    return null; // read to the end of the stream
                case DONE:
                    return complete();
                default: {
                    char c = (char) (buf[i++] & 0xff);
                    if (c != '\n') {
                        line.append(c);
                        if (line.length() > 8192) {
                            return finish(status > 0 ? new Answer(status, null, false)
                                    : new Answer(-1, "not an HTTP answer", false), false);
                        }
                        break;
                    }
                    String l = line.toString().trim();
                    line.setLength(0);
                    Answer a = onLine(l);
                    if (a != null) {
                        return a;
                    }
                }
            }
        }
        return part == Part.DONE ? complete() : null;
    }

    private Answer onLine(String l) {
        switch (part) {
            case STATUS: {
                status = parseStatus(l);
                if (status < 0) {
                    return finish(new Answer(-1, "not an HTTP answer", false), false);
                }
                part = Part.HEADERS;
                return null;
            }
            case HEADERS: {
                if (!l.isEmpty()) {
                    int colon = l.indexOf(':');
                    if (colon > 0) {
                        String name = l.substring(0, colon).trim().toLowerCase(Locale.ROOT);
                        String value = l.substring(colon + 1).trim().toLowerCase(Locale.ROOT);
                        if (name.equals("content-length")) {
                            try {
                                remaining = Long.parseLong(value);
                            } catch (NumberFormatException e) {
                                remaining = -1;
                            }
                            if (remaining < 0) {
                                return finish(new Answer(-1, "answered with an invalid Content-Length: " + value, false), false);
                            }
                            lengthKnown = true;
                        } else if (name.equals("transfer-encoding") && value.contains("chunked")) {
                            chunked = true;
                        } else if (name.equals("connection") && value.contains("close")) {
                            close = true;
                        }
                    }
                    return null;
                }
                if (status >= 100 && status < 200 && status != 101) {
                    // An interim answer (100 Continue, 103 Early Hints): the final one follows, as
                    // HTTP clients read it (RFC 9110 section 15.2; kubelet's Go client does).
                    status = -1;
                    part = Part.STATUS;
                    remaining = 0;
                    lengthKnown = false;
                    chunked = false;
                    close = false;
                    return null;
                }
                if (status == 204 || status == 304 || status == 101) {
                    return complete();
                }
                if (chunked) {
                    part = Part.CHUNK_SIZE;
                } else if (remaining > 0) {
                    part = Part.BODY;
                } else if (lengthKnown && remaining == 0) {
                    return complete(); // Content-Length: 0
                } else {
                    close = true;
                    part = Part.UNTIL_CLOSE;
                }
                return null;
            }
            case CHUNK_SIZE: {
                int semi = l.indexOf(';');
                try {
                    remaining = Long.parseLong(semi >= 0 ? l.substring(0, semi).trim() : l, 16);
                } catch (NumberFormatException e) {
                    return finish(new Answer(status, null, false), false);
                }
                part = remaining == 0 ? Part.TRAILERS : Part.CHUNK_DATA;
                return null;
            }
            case CHUNK_END:
                part = Part.CHUNK_SIZE;
                return null;
            case TRAILERS:
                return l.isEmpty() ? complete() : null;
            default:
                return null;
        }
    }

    private Answer complete() {
        part = Part.DONE;
        return finish(new Answer(status, null, false), !close);
    }

    private Answer finish(Answer a, boolean keep) {
        immediate = a;
        reusable = keep;
        if (!keep) {
            close();
        }
        return a;
    }

    @Override
    public void close() {
        reusable = false;
        if (channel == null) {
            return;
        }
        if (channel.isOpen() && localPort > 0) {
            closed(localPort);
        }
        try {
            channel.close();
        } catch (IOException e) {
            // nothing to do
        }
    }

    // ---- the agent's own connections ------------------------------------------------------

    /** How long a closed connection's port still counts as the agent's: its server thread may be sampled later. */
    private static final long OWN_AFTER_CLOSE_NANOS = 30_000_000_000L;
    private static final int OWN_MAX = 256;
    /** Local port of each connection the agent opened to the application → when it closed (MAX_VALUE: open). */
    private static final java.util.concurrent.ConcurrentHashMap<Integer, Long> OWN = new java.util.concurrent.ConcurrentHashMap<>();

    private static void opened(int localPort) {
        if (OWN.size() >= OWN_MAX) {
            long now = System.nanoTime();
            OWN.values().removeIf(t -> t != Long.MAX_VALUE && now - t >= OWN_AFTER_CLOSE_NANOS);
        }
        OWN.put(localPort, Long.MAX_VALUE);
    }

    private static void closed(int localPort) {
        long now = System.nanoTime();
        OWN.computeIfPresent(localPort, (k, v) -> now);
    }

    /**
     * Whether a client port on loopback is one of the agent's own connections to the application
     * (open, or closed within the last 30 s): its requests are the agent's polls, not the
     * application's work ({@link WorkerPools}, requests on virtual threads). Thread-safe.
     *
     * @param port a client's port as the application sees it
     * @return whether the agent opened it
     */
    static boolean isOwnPort(int port) {
        Long t = OWN.get(port);
        return t != null && (t == Long.MAX_VALUE || System.nanoTime() - t < OWN_AFTER_CLOSE_NANOS);
    }

    private static int parseStatus(String statusLine) {
        // HTTP/1.1 200 OK
        String[] parts = statusLine.split(" ", 3);
        if (parts.length >= 2 && parts[0].startsWith("HTTP/")) {
            try {
                int code = Integer.parseInt(parts[1]);
                if (code >= 100 && code <= 599) {
                    return code;
                }
            } catch (NumberFormatException e) {
                // below
            }
        }
        return -1;
    }
}
