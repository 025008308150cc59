package dev.vitals.kubesim.fleet;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The live engine's Service: one TCP listener on loopback that sends each new connection to a
 * Ready endpoint picked by kube-proxy's rule ({@link Routing}, the same {@link Balancer} the model
 * engine uses: iptables random by default, IPVS rr/lc/sh, {@code sessionAffinity: ClientIP} keyed
 * by the client's source address). Connections already open to an
 * endpoint that leaves stay open; they end when either side closes. While no endpoint is Ready
 * the listener is closed, so new connections are refused, and it is opened again on the same
 * port when one is. Thread-safe. Threads: {@code vitals-fleet-service-accept} and
 * {@code vitals-fleet-service-N} (daemons, two per open connection).
 */
final class ServiceProxy implements AutoCloseable {
    private final int port;
    private final Set<Integer> endpoints = ConcurrentHashMap.newKeySet();
    private final SplittableRandom rnd = new SplittableRandom();
    private final Balancer balancer; // used on the acceptor thread only
    private final boolean keyBySource;
    private final java.util.Map<Integer, AtomicInteger> active = new ConcurrentHashMap<>(); // open connections per endpoint (IPVS lc)
    private volatile Router router = (key, endpointPort) -> { };
    private final AtomicInteger threads = new AtomicInteger();
    private final ExecutorService pumps = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "vitals-fleet-service-" + threads.incrementAndGet());
        t.setDaemon(true);
        return t;
    });
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private final Object lock = new Object();
    private ServerSocket listener;
    private Thread acceptor;
    private boolean closed;
    private volatile Observer observer = (port, ok, seconds) -> { };

    /** Told about each relayed connection's answer; called on the Service's threads. */
    interface Observer {
        /**
         * @param endpointPort the endpoint the connection went to
         * @param ok true when the endpoint's first response line had status 200-399; false when
         *        the connection to it failed, it sent another status, or either side closed first
         * @param seconds from accepting the client's connection to the endpoint's first byte (or the failure)
         */
        void answered(int endpointPort, boolean ok, double seconds);
    }

    /** Told which endpoint each keyed connection was sent to; called on the acceptor thread. */
    interface Router {
        /**
         * @param key the connection's key (its source address as an int)
         * @param endpointPort the endpoint it went to
         */
        void routed(int key, int endpointPort);
    }

    /** @param r told about each keyed connection's endpoint from now on (the last one set wins) */
    void onRoute(Router r) {
        router = java.util.Objects.requireNonNull(r, "r");
    }

    /** @param o told about each relayed connection from now on (the last one set wins) */
    void observe(Observer o) {
        observer = java.util.Objects.requireNonNull(o, "o");
    }

    /**
     * @param port the port to listen on, 0 for a free one
     * @throws IOException when the port is in use
     */
    ServiceProxy(int port) throws IOException {
        this(port, Routing.DEFAULT, false);
    }

    /**
     * @param port the port to listen on, 0 for a free one
     * @param routing kube-proxy's mode and affinity (node policies need nodes, which loopback has one of)
     * @param keyBySource true: a connection's affinity key is its source address (all loopback clients
     *        share 127.0.0.1: one key, a script behind one NAT); false: each connection is its own key
     * @throws IOException when the port is in use
     * @throws IllegalArgumentException for an ingress's routing (per request: the live Service relays bytes, it
     *         does not parse HTTP)
     */
    ServiceProxy(int port, Routing routing, boolean keyBySource) throws IOException {
        if (routing.layer() != Routing.Layer.KUBE_PROXY) {
            throw new IllegalArgumentException("the live engine's Service is kube-proxy's (a pick per connection); an ingress's "
                    + "per-request balancing runs on the model engine");
        }
        this.balancer = Balancer.of(routing, 0, rnd);
        this.keyBySource = keyBySource;
        ServerSocket s = bind(port);
        this.port = s.getLocalPort();
        s.close(); // no endpoint yet: refused until one is Ready
    }

    private static ServerSocket bind(int port) throws IOException {
        ServerSocket s = new ServerSocket();
        s.setReuseAddress(true);
        s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 128);
        return s;
    }

    /** @return the Service's port */
    int port() {
        return port;
    }

    /** @return how many endpoints are Ready in the Service now */
    int endpoints() {
        return endpoints.size();
    }

    /**
     * Adds or removes an endpoint (after the propagation delay, which the caller applies).
     *
     * @param endpointPort the replica's application port
     * @param ready whether it is in the endpoints
     */
    void set(int endpointPort, boolean ready) {
        synchronized (lock) {
            if (closed) {
                return;
            }
            if (ready) {
                endpoints.add(endpointPort);
            } else {
                endpoints.remove(endpointPort);
            }
            if (endpoints.isEmpty() && listener != null) {
                closeListener();
            } else if (!endpoints.isEmpty() && listener == null) {
                openListener();
            }
        }
    }

    private void openListener() {
        try {
            ServerSocket s = bind(port);
            listener = s;
            acceptor = new Thread(() -> accept(s), "vitals-fleet-service-accept");
            acceptor.setDaemon(true);
            acceptor.start();
        } catch (IOException e) {
            System.getLogger("dev.vitals.kubesim.fleet").log(System.Logger.Level.WARNING,
                    "Service port " + port + " could not be opened again: " + e.getMessage());
        }
    }

    private void closeListener() {
        try {
            listener.close();
        } catch (IOException ignored) {
            // closing
        }
        listener = null;
        Thread a = acceptor;
        acceptor = null;
        if (a != null && a != Thread.currentThread()) {
            try {
                a.join(2000); // the kernel completes handshakes until the acceptor has left accept()
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void accept(ServerSocket s) {
        while (!s.isClosed()) {
            Socket client;
            try {
                client = s.accept();
            } catch (IOException e) {
                return;
            }
            List<Integer> now = new ArrayList<>(endpoints);
            if (now.isEmpty()) {
                reset(client);
                continue;
            }
            int[] ids = new int[now.size()];
            for (int i = 0; i < ids.length; i++) {
                ids[i] = now.get(i);
            }
            java.util.Arrays.sort(ids); // the set's order is arbitrary; the rules see the endpoints in port order
            int key = keyBySource ? java.nio.ByteBuffer.wrap(client.getInetAddress().getAddress(), 0, 4).getInt() : Balancer.NO_KEY;
            int target = balancer.pick(new Balancer.Candidates(ids, ids.length), key,
                    p -> { AtomicInteger a = active.get(p); return a == null ? 0 : a.get(); }, System.nanoTime() / 1e9);
            if (key != Balancer.NO_KEY) {
                router.routed(key, target);
            }
            long accepted = System.nanoTime();
            try {
                pumps.execute(() -> connect(client, target, accepted));
            } catch (java.util.concurrent.RejectedExecutionException closing) {
                reset(client); // the Service is closing
                return;
            }
        }
    }

    private void connect(Socket client, int target, long accepted) {
        Socket upstream = new Socket();
        try {
            upstream.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), target), 2000);
        } catch (IOException e) {
            reset(client); // the endpoint's process is gone: the client sees a reset
            close(upstream);
            observer.answered(target, false, (System.nanoTime() - accepted) / 1e9);
            return;
        }
        open.add(client);
        open.add(upstream);
        active.computeIfAbsent(target, p -> new AtomicInteger()).incrementAndGet();
        try {
            pumps.execute(() -> pump(client, upstream, -1, 0));
        } catch (java.util.concurrent.RejectedExecutionException closing) {
            close(client); // the Service is closing
            close(upstream);
            return;
        }
        pump(upstream, client, target, accepted);
    }

    /**
     * Copies {@code from} to {@code to} until either side closes. With {@code target} ≥ 0 this is
     * the endpoint's answer: its first bytes ("HTTP/1.1 200") tell the observer the status.
     */
    private void pump(Socket from, Socket to, int target, long accepted) {
        byte[] buf = new byte[16384];
        boolean told = target < 0;
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            int n;
            while ((n = in.read(buf)) >= 0) {
                if (!told && n > 0) {
                    told = true;
                    observer.answered(target, okStatus(buf, n), (System.nanoTime() - accepted) / 1e9);
                }
                out.write(buf, 0, n);
                out.flush();
            }
        } catch (IOException ignored) {
            // one side went away
        } finally {
            if (!told) {
                observer.answered(target, false, (System.nanoTime() - accepted) / 1e9);
            }
            if (target >= 0) {
                active.get(target).decrementAndGet();
            }
            close(from);
            close(to);
        }
    }

    /** @return whether the bytes start with an HTTP status line of 200-399 (kubelet's success range) */
    static boolean okStatus(byte[] b, int n) {
        String head = new String(b, 0, Math.min(n, 16), java.nio.charset.StandardCharsets.ISO_8859_1);
        if (!head.startsWith("HTTP/") || head.indexOf(' ') < 0 || head.length() < head.indexOf(' ') + 4) {
            return false;
        }
        int sp = head.indexOf(' ');
        char c = head.charAt(sp + 1);
        return c == '2' || c == '3';
    }

    private static void reset(Socket s) {
        try {
            s.setSoLinger(true, 0);
        } catch (SocketException ignored) {
            // closing anyway
        }
        close(s);
    }

    private static void close(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // best effort
        }
    }

    @Override
    public void close() {
        synchronized (lock) {
            closed = true;
            endpoints.clear();
            if (listener != null) {
                closeListener();
            }
        }
        for (Socket s : open) {
            close(s);
        }
        pumps.shutdownNow();
    }
}
