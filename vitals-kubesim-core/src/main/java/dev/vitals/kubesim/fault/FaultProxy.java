package dev.vitals.kubesim.fault;

import dev.vitals.kubesim.input.InvalidInputException;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A TCP proxy on loopback placed in front of a dependency, with injectable faults:
 * <ul>
 *   <li>{@code refuse}: stop listening, so new connections are refused (existing ones go on);</li>
 *   <li>{@code cut}: reset every existing connection (RST to both sides), once;</li>
 *   <li>{@code blackhole}: accept new connections but never connect or answer, and stop
 *       forwarding on existing ones: a dead peer;</li>
 *   <li>{@code latency <ms>}: delay every chunk forwarded, in each direction, by that much;</li>
 *   <li>{@code heal}: back to normal (listen again, forward held and buffered data, no delay).</li>
 * </ul>
 * Threads are daemons named {@code vitals-kubesim-proxy-<name>-…}: one acceptor, and per
 * connection one reader and one writer per direction. Thread-safe.
 */
public final class FaultProxy implements AutoCloseable {
    private static final Pattern SPEC = Pattern.compile("([A-Za-z0-9_.-]+)=(\\d+):([^:]+|\\[[^]]+\\]):(\\d+)");
    private static final byte[] EOF = new byte[0];
    private final Spec spec;
    private final List<Conn> conns = new CopyOnWriteArrayList<>();
    private final Object gate = new Object();
    private volatile ServerSocket server;
    private volatile Thread acceptor;
    private volatile boolean blackholed;
    private volatile long latencyNanos;
    private volatile boolean closed;
    private volatile int port;

    /**
     * Where a proxy listens and where it forwards.
     *
     * @param name the name scenarios use
     * @param listenPort loopback port to listen on (0 = any free port)
     * @param targetHost dependency host
     * @param targetPort dependency port
     */
    public record Spec(String name, int listenPort, String targetHost, int targetPort) {
        /**
         * Validates the components.
         *
         * @param name the name scenarios use
         * @param listenPort loopback port to listen on (0 = any free port)
         * @param targetHost dependency host
         * @param targetPort dependency port
         * @throws InvalidInputException if a component is outside its documented range
         * @throws NullPointerException if a required component is null
         */
        public Spec {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(targetHost, "targetHost");
            if (listenPort < 0 || listenPort > 65535 || targetPort < 1 || targetPort > 65535) {
                throw new InvalidInputException("proxy '" + name + "': ports must be 1-65535 (listen may be 0)");
            }
        }

        /**
         * @param text {@code name=LISTEN_PORT:TARGET_HOST:TARGET_PORT}
         * @return the spec
         * @throws InvalidInputException when the text does not match
         */
        public static Spec parse(String text) {
            Matcher m = SPEC.matcher(text.trim());
            if (!m.matches()) {
                throw new InvalidInputException("--proxy '" + text + "': expected name=LISTEN_PORT:TARGET_HOST:TARGET_PORT, "
                        + "e.g. db=15432:127.0.0.1:5432");
            }
            try {
                return new Spec(m.group(1), Integer.parseInt(m.group(2)), m.group(3), Integer.parseInt(m.group(4)));
            } catch (NumberFormatException e) {
                throw new InvalidInputException("--proxy '" + text + "': port out of range");
            }
        }
    }

    /** @param spec where to listen and forward */
    public FaultProxy(Spec spec) {
        this.spec = Objects.requireNonNull(spec, "spec");
    }

    /**
     * Starts listening on 127.0.0.1.
     *
     * @return this
     * @throws IllegalStateException when the port cannot be bound
     */
    public FaultProxy start() {
        bind(spec.listenPort());
        return this;
    }

    /** @return the spec */
    public Spec spec() {
        return spec;
    }

    /** @return the port actually listened on */
    public int port() {
        return port;
    }

    /** @return open proxied connections (held blackhole connections included) */
    public int connections() {
        return conns.size();
    }

    private synchronized void bind(int p) {
        if (closed || server != null) {
            return;
        }
        try {
            ServerSocket ss = new ServerSocket();
            ss.setReuseAddress(true);
            ss.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), p), 128);
            server = ss;
            port = ss.getLocalPort();
            Thread t = new Thread(() -> acceptLoop(ss), "vitals-kubesim-proxy-" + spec.name() + "-accept");
            t.setDaemon(true);
            acceptor = t;
            t.start();
        } catch (IOException e) {
            throw new IllegalStateException("proxy '" + spec.name() + "': cannot listen on 127.0.0.1:" + p + ": "
                    + e.getMessage(), e);
        }
    }

    private void acceptLoop(ServerSocket ss) {
        while (!ss.isClosed()) {
            Socket client;
            try {
                client = ss.accept();
            } catch (IOException e) {
                return;
            }
            Conn c = new Conn(client);
            conns.add(c);
            if (!blackholed) {
                c.connectUpstream();
            }
        }
    }

    /**
     * Fault {@code refuse}: closes the listener so new connections are refused. Returns once the
     * acceptor thread has left {@code accept()}: until then the kernel keeps the listening
     * socket (the blocked call holds it) and would still complete handshakes.
     */
    public synchronized void refuse() {
        ServerSocket ss = server;
        Thread t = acceptor;
        server = null;
        acceptor = null;
        if (ss != null) {
            try {
                ss.close();
            } catch (IOException ignored) {
                // closing
            }
        }
        if (t != null && t != Thread.currentThread()) {
            try {
                t.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Fault {@code cut}: resets every existing connection. New connections work as before. */
    public void cut() {
        for (Conn c : conns) {
            c.reset();
        }
    }

    /** Fault {@code blackhole}: a dead peer: nothing is answered or forwarded. */
    public void blackhole() {
        blackholed = true;
    }

    /**
     * Fault {@code latency}.
     *
     * @param delay added to every forwarded chunk, in each direction (≥ 0)
     */
    public void latency(Duration delay) {
        if (delay.isNegative()) {
            throw new IllegalArgumentException("latency must be ≥ 0, was " + delay);
        }
        latencyNanos = delay.toNanos();
        wake();
    }

    /**
     * Applies a fault by name, as written in scenarios: {@code refuse}, {@code cut},
     * {@code blackhole}, {@code latency} (with {@code ms}) or {@code heal}.
     *
     * @param fault the fault's name
     * @param ms the added latency in milliseconds, for {@code latency} (ignored by the others)
     * @throws InvalidInputException for another name
     */
    public void apply(String fault, long ms) {
        switch (fault.toLowerCase(Locale.ROOT)) {
            case "refuse":
                refuse();
                break;
            case "cut":
                cut();
                break;
            case "blackhole":
                blackhole();
                break;
            case "latency":
                latency(Duration.ofMillis(ms));
                break;
            case "heal":
                heal();
                break;
            default:
                throw new InvalidInputException("unknown fault '" + fault + "' (refuse, cut, blackhole, latency, heal)");
        }
    }

    /** Ends every fault: listens again, forwards held and buffered data, removes latency. */
    public void heal() {
        latencyNanos = 0;
        blackholed = false;
        for (Conn c : conns) {
            c.connectUpstream();
        }
        wake();
        if (server == null && !closed) {
            bind(port);
        }
    }

    private void wake() {
        synchronized (gate) {
            gate.notifyAll();
        }
    }

    @Override
    public void close() {
        closed = true;
        refuse();
        for (Conn c : conns) {
            c.close();
        }
        wake();
    }

    private final class Conn {
        final Socket client;
        volatile Socket upstream;
        volatile boolean done;
        private boolean connecting;

        Conn(Socket client) {
            this.client = client;
        }

        synchronized void connectUpstream() {
            if (connecting || done) {
                return;
            }
            connecting = true;
            Thread t = new Thread(() -> {
                Socket up = new Socket();
                try {
                    up.setTcpNoDelay(true);
                    client.setTcpNoDelay(true);
                    up.connect(new InetSocketAddress(spec.targetHost(), spec.targetPort()), 5000);
                } catch (IOException e) {
                    closeQuietly(up);
                    reset();
                    return;
                }
                upstream = up;
                if (done) {
                    close();
                    return;
                }
                pipe(client, up, "up");
                pipe(up, client, "down");
            }, "vitals-kubesim-proxy-" + spec.name() + "-connect");
            t.setDaemon(true);
            t.start();
        }

        private void pipe(Socket from, Socket to, String dir) {
            BlockingQueue<Object[]> q = new ArrayBlockingQueue<>(256);
            Thread reader = new Thread(() -> {
                byte[] buf = new byte[16 * 1024];
                try {
                    InputStream in = from.getInputStream();
                    int n;
                    while ((n = in.read(buf)) >= 0) {
                        q.put(new Object[] {System.nanoTime(), Arrays.copyOf(buf, n)});
                    }
                    q.put(new Object[] {System.nanoTime(), EOF});
                } catch (IOException | InterruptedException e) {
                    close();
                }
            }, "vitals-kubesim-proxy-" + spec.name() + "-" + dir + "-read");
            Thread writer = new Thread(() -> {
                try {
                    OutputStream out = to.getOutputStream();
                    while (!done) {
                        Object[] item = q.poll(200, TimeUnit.MILLISECONDS);
                        if (item == null) {
                            continue;
                        }
                        waitUntilDeliverable((Long) item[0]);
                        if (done) {
                            return;
                        }
                        byte[] data = (byte[]) item[1];
                        if (data == EOF) {
                            to.shutdownOutput();
                            if (from.isOutputShutdown() || to.isInputShutdown()) {
                                close();
                            }
                            return;
                        }
                        out.write(data);
                        out.flush();
                    }
                } catch (IOException | InterruptedException e) {
                    close();
                }
            }, "vitals-kubesim-proxy-" + spec.name() + "-" + dir + "-write");
            reader.setDaemon(true);
            writer.setDaemon(true);
            reader.start();
            writer.start();
        }

        private void waitUntilDeliverable(long readAt) throws InterruptedException {
            synchronized (gate) {
                while (!done) {
                    if (blackholed) {
                        gate.wait(200);
                        continue;
                    }
                    long due = readAt + latencyNanos - System.nanoTime();
                    if (due <= 0) {
                        return;
                    }
                    TimeUnit.NANOSECONDS.timedWait(gate, due);
                }
            }
        }

        void reset() {
            for (Socket s : new Socket[] {client, upstream}) {
                if (s != null) {
                    try {
                        s.setSoLinger(true, 0);
                    } catch (IOException ignored) {
                        // already closed
                    }
                }
            }
            close();
        }

        void close() {
            done = true;
            conns.remove(this);
            closeQuietly(client);
            Socket up = upstream;
            if (up != null) {
                closeQuietly(up);
            }
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing
        }
    }
}
