package dev.vitals.server;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A hostile client for the flood tests (issue 19): one thread and one selector holding thousands
 * of real loopback connections of one shape, re-opening every connection the server closes, with
 * at most {@link #MAX_CONNECTING} connects pending at once. Every loop is bounded: by the number
 * of connections, by {@code maxOpens} in all, and by {@link #close()}.
 */
final class Flood implements AutoCloseable {
    enum Shape {
        /** Connects and sends nothing. */
        IDLE,
        /** Sends the request line and one header, never the blank line. */
        HALF_SENT,
        /** Sends a request one byte every {@link #DRIP_MILLIS}. */
        SLOW_DRIP,
        /** A third of each, in turn. */
        MIXED
    }

    static final int MAX_CONNECTING = 256;
    static final long DRIP_MILLIS = 500;
    private static final byte[] REQUEST = "GET /livez HTTP/1.1\r\nHost: probe\r\nUser-Agent: flood\r\n\r\n"
            .getBytes(StandardCharsets.US_ASCII);
    private static final int HALF = "GET /livez HTTP/1.1\r\nHost: probe\r\n".length();

    private final InetSocketAddress target;
    private final List<InetAddress> sources;
    private final Shape shape;
    private final int connections;
    private final long maxOpens;
    private final long opensPerSecond;
    private final Thread thread;
    private volatile boolean stop;

    final AtomicLong established = new AtomicLong();
    final AtomicLong closedByServer = new AtomicLong();
    final AtomicLong failed = new AtomicLong();
    final AtomicLong openNow = new AtomicLong();
    private long opens;
    private int next;

    private static final class Conn {
        final Shape shape;
        int sent;

        Conn(Shape shape) {
            this.shape = shape;
        }
    }

    /**
     * @param opensPerSecond the pace of new connections (first opens and re-opens alike); 0 for
     *     as fast as the machine allows
     */
    Flood(InetSocketAddress target, List<InetAddress> sources, Shape shape, int connections, long maxOpens,
          long opensPerSecond) {
        this.opensPerSecond = opensPerSecond;
        this.target = target;
        this.sources = List.copyOf(sources);
        this.shape = shape;
        this.connections = connections;
        this.maxOpens = maxOpens;
        this.thread = new Thread(this::run, "flood-" + shape);
        this.thread.setDaemon(true);
    }

    Flood start() {
        thread.start();
        return this;
    }

    private void run() {
        try (Selector selector = Selector.open()) {
            List<SocketChannel> dripping = new ArrayList<>();
            int connecting = 0;
            long nextDrip = System.nanoTime();
            ByteBuffer sink = ByteBuffer.allocate(4096);
            long t0 = System.nanoTime();
            while (!stop) {
                long allowed = opensPerSecond == 0 ? Long.MAX_VALUE
                        : opensPerSecond * (System.nanoTime() - t0) / 1_000_000_000L + 1;
                while (openNow.get() + connecting < connections && connecting < MAX_CONNECTING && opens < maxOpens
                        && opens < allowed) {
                    if (open(selector)) {
                        connecting++;
                    }
                }
                selector.select(opensPerSecond == 0 ? 20 : 2);
                for (SelectionKey k : selector.selectedKeys()) {
                    SocketChannel ch = (SocketChannel) k.channel();
                    Conn c = (Conn) k.attachment();
                    if (!k.isValid()) {
                        continue;
                    }
                    if (k.isConnectable()) {
                        connecting--;
                        try {
                            ch.finishConnect();
                        } catch (IOException e) {
                            failed.incrementAndGet();
                            close(ch);
                            continue;
                        }
                        established.incrementAndGet();
                        openNow.incrementAndGet();
                        int first = c.shape == Shape.HALF_SENT ? HALF : c.shape == Shape.SLOW_DRIP ? 1 : 0;
                        if (first > 0) {
                            write(ch, c, first);
                        }
                        if (c.shape == Shape.SLOW_DRIP) {
                            dripping.add(ch);
                        }
                        k.interestOps(SelectionKey.OP_READ);
                    } else if (k.isReadable()) {
                        sink.clear();
                        int n;
                        try {
                            n = ch.read(sink);
                        } catch (IOException e) {
                            n = -1;
                        }
                        if (n < 0) {
                            closedByServer.incrementAndGet();
                            openNow.decrementAndGet();
                            close(ch);
                        }
                    }
                }
                selector.selectedKeys().clear();
                if (System.nanoTime() - nextDrip >= 0) {
                    nextDrip = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DRIP_MILLIS);
                    dripping.removeIf(ch -> !ch.isOpen());
                    for (SocketChannel ch : dripping) {
                        SelectionKey k = ch.keyFor(selector);
                        if (k != null && k.attachment() != null) {
                            Conn c = (Conn) k.attachment();
                            if (c.sent < REQUEST.length - 2) { // never the final CRLF
                                write(ch, c, 1);
                            }
                        }
                    }
                }
            }
            for (SelectionKey k : selector.keys()) {
                close((SocketChannel) k.channel());
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private boolean open(Selector selector) {
        opens++;
        Shape s = shape == Shape.MIXED ? Shape.values()[next % 3] : shape;
        InetAddress from = sources.get(next % sources.size());
        next++;
        SocketChannel ch = null;
        try {
            ch = SocketChannel.open();
            ch.configureBlocking(false);
            ch.setOption(StandardSocketOptions.SO_LINGER, 0); // a reset on close: no TIME_WAIT left on this side
            ch.bind(new InetSocketAddress(from, 0));
            ch.connect(target);
            ch.register(selector, SelectionKey.OP_CONNECT, new Conn(s));
            return true;
        } catch (IOException e) {
            failed.incrementAndGet();
            if (ch != null) {
                close(ch);
            }
            return false;
        }
    }

    private void write(SocketChannel ch, Conn c, int n) {
        try {
            ch.write(ByteBuffer.wrap(REQUEST, c.sent, n));
            c.sent += n;
        } catch (IOException e) {
            // closed by the server: the read side notices
        }
    }

    private static void close(SocketChannel ch) {
        try {
            ch.close();
        } catch (IOException e) {
            // nothing to do
        }
    }

    @Override
    public void close() throws InterruptedException {
        stop = true;
        thread.join(10_000);
    }

    @Override
    public String toString() {
        return shape + " from " + sources.size() + " address(es): established " + established + ", closed by server "
                + closedByServer + ", failed " + failed + ", open now " + openNow;
    }
}
