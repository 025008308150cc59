package dev.vitals.demo;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP proxy on 127.0.0.1 for tests, in front of the demo's H2 TCP server: forwards, rejects
 * (accepts and closes at once, and cuts every open connection), or blackholes (accepts and
 * holds connections, new and open ones, but forwards nothing in either direction).
 */
final class FaultProxy implements AutoCloseable {
    enum Mode { FORWARD, REJECT, BLACKHOLE }

    private final ServerSocket listener;
    private final int targetPort;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private volatile Mode mode = Mode.FORWARD;
    private volatile boolean closed;

    FaultProxy(int listenPort, int targetPort) throws IOException {
        this.targetPort = targetPort;
        this.listener = new ServerSocket();
        listener.setReuseAddress(true);
        listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), listenPort));
        Thread t = new Thread(this::acceptLoop, "test-fault-proxy-accept");
        t.setDaemon(true);
        t.start();
    }

    int port() {
        return listener.getLocalPort();
    }

    /**
     * Switches mode. REJECT cuts every open connection; BLACKHOLE leaves them open but forwards
     * nothing more (a peer that stopped answering); FORWARD after BLACKHOLE closes the
     * blackholed connections (their bytes are lost) and forwards new ones.
     */
    synchronized void mode(Mode m) {
        Mode before = mode;
        mode = m;
        if (m == Mode.REJECT || (m == Mode.FORWARD && before == Mode.BLACKHOLE)) {
            cutAll();
        }
    }

    private void cutAll() {
        for (Socket s : open) {
            closeQuietly(s);
        }
        open.clear();
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                return;
            }
            Mode m = mode;
            if (m == Mode.REJECT) {
                closeQuietly(client);
                continue;
            }
            open.add(client);
            if (m == Mode.BLACKHOLE) {
                continue; // held open, never read or answered
            }
            try {
                Socket upstream = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                open.add(upstream);
                pump(client, upstream);
                pump(upstream, client);
            } catch (IOException e) {
                closeQuietly(client);
            }
        }
    }

    private void pump(Socket from, Socket to) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[8192];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buf)) >= 0) {
                    if (mode != Mode.FORWARD) {
                        return; // blackholed or rejected mid-stream: drop, the cut closes both ends
                    }
                    out.write(buf, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // one side closed
            } finally {
                if (mode == Mode.FORWARD) {
                    closeQuietly(from);
                    closeQuietly(to);
                }
            }
        }, "test-fault-proxy-pump");
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // closing anyway
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        listener.close();
        cutAll();
    }
}
