package dev.vitals.bench.suite;

import dev.vitals.testing.HostileClient;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The soak's traffic besides the probes, every part bounded in count and stopped by
 * {@link #close()}: application load (a steady closed loop of slow exports and fast reads, and a
 * burst of exports in each cycle that outnumbers the workers) and hostile clients on every port
 * (slow drip heads, HostileClient's bad shapes, and a flood of idle connections at each cycle's
 * start). Every thread is a daemon named {@code soak-…}. Thread-safe.
 *
 * <p>Cycles of {@code cycle} length follow each other from the moment the demo is ready, the
 * warm-up included (so the first flood's cold code paths are warm-up): at 0 the quiet sample is
 * taken (by {@link SoakRun}, from the first cycle after the warm-up) and half a second later the
 * flood opens its connections, holds them {@link #FLOOD_HOLD} and closes them; from a third to two
 * thirds of the cycle the burst runs; the last third is for the burst's exports to end.
 */
final class SoakLoad implements AutoCloseable {
    static final Duration FLOOD_HOLD = Duration.ofSeconds(3);
    /** The application's requests: an export holds a worker for the demo's export time. */
    static final String EXPORT = "/reports/export?costCenter=CC-7";

    /** What to send where, and how much. */
    record Plan(int appPort, int probePort, int grpcPort, int steadyExports, int steadyReads, int burstExports,
            int slowClientsProbe, int slowClientsApp, int floodConnections, int hostileAddresses, Duration cycle) {
    }

    private final Plan plan;
    /** Where hostile connections come from: 127.0.0.2 … (other pods), or 127.0.0.1 (the probes' own) when none. */
    private final List<InetAddress> hostile = new ArrayList<>();
    private final AtomicLong nextHostile = new AtomicLong();
    private final LongSupplier sinceReadyNanos;
    private final List<Thread> threads = new ArrayList<>();
    private final List<Socket> open = new ArrayList<>();
    private volatile boolean stopped;
    final AtomicLong appOk = new AtomicLong();
    final AtomicLong appFailed = new AtomicLong();
    final AtomicLong burstRequests = new AtomicLong();
    final AtomicLong slowConnections = new AtomicLong();
    final AtomicLong badConnections = new AtomicLong();
    final AtomicLong floodConnections = new AtomicLong();
    final AtomicLong floodRefused = new AtomicLong();

    /** @param sinceReadyNanos the soak's clock: nanoseconds since the demo was ready */
    SoakLoad(Plan plan, LongSupplier sinceReadyNanos) {
        this.plan = plan;
        this.sinceReadyNanos = sinceReadyNanos;
        for (int i = 0; i < Math.max(1, plan.hostileAddresses()); i++) {
            byte[] a = {127, 0, 0, (byte) (plan.hostileAddresses() == 0 ? 1 : 2 + i)};
            try {
                hostile.add(InetAddress.getByAddress(a));
            } catch (java.net.UnknownHostException e) {
                throw new IllegalStateException(e); // four bytes are always an address
            }
        }
    }

    /** @return the next hostile source address, round robin */
    private InetAddress from() {
        return hostile.get((int) (nextHostile.getAndIncrement() % hostile.size()));
    }

    /** Starts every generator. */
    void start() {
        for (int i = 0; i < plan.steadyExports(); i++) {
            spawn("soak-export-" + i, () -> loop(() -> request(EXPORT)));
        }
        for (int i = 0; i < plan.steadyReads(); i++) {
            int n = i;
            spawn("soak-read-" + i, () -> loop(() -> {
                request("/orders/" + (1 + (System.nanoTime() + n) % 1000));
                pause(50);
            }));
        }
        for (int i = 0; i < plan.burstExports(); i++) {
            spawn("soak-burst-" + i, () -> loop(this::burstTurn));
        }
        int[] httpPorts = {plan.appPort(), plan.probePort()};
        spawn("soak-slow-probe", () -> slowDrip(plan.probePort(), plan.slowClientsProbe(), httpHead()));
        spawn("soak-slow-app", () -> slowDrip(plan.appPort(), plan.slowClientsApp(), httpHead()));
        if (plan.grpcPort() > 0) {
            spawn("soak-slow-grpc", () -> slowDrip(plan.grpcPort(), plan.slowClientsProbe(), http2Preface()));
        }
        for (int port : httpPorts) {
            spawn("soak-bad-" + port, () -> badShapes(port, true));
        }
        if (plan.grpcPort() > 0) {
            spawn("soak-bad-" + plan.grpcPort(), () -> badShapes(plan.grpcPort(), false));
        }
        spawn("soak-flood", this::flood);
    }

    private void spawn(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        threads.add(t);
        t.start();
    }

    private interface Step {
        void run() throws Exception;
    }

    private void loop(Step step) {
        while (!stopped) {
            try {
                step.run();
            } catch (InterruptedException e) {
                return;
            } catch (Exception e) {
                pause(100); // counted by the step; never spin
            }
        }
    }

    private void request(String path) {
        HttpProbe.Result r = HttpProbe.get(plan.appPort(), path, Duration.ofSeconds(30));
        if (stopped) {
            return;
        }
        (r.ok() ? appOk : appFailed).incrementAndGet();
    }

    private double cycleOffsetSeconds() {
        return (sinceReadyNanos.getAsLong() / 1e9) % (plan.cycle().toMillis() / 1000.0);
    }

    /** One burst thread's turn: an export while inside the burst window (a third to two thirds of the cycle), else wait. */
    private void burstTurn() throws InterruptedException {
        double c = plan.cycle().toMillis() / 1000.0;
        double at = cycleOffsetSeconds();
        if (at >= c / 3 && at < 2 * c / 3) {
            burstRequests.incrementAndGet();
            request(EXPORT);
        } else {
            Thread.sleep(200);
        }
    }

    /**
     * Holds {@code count} connections that each send one byte of {@code bytes} a second, never
     * finishing; a connection the server closes is replaced (counted in {@link #slowConnections}).
     */
    private void slowDrip(int port, int count, byte[] bytes) {
        Socket[] socks = new Socket[count];
        int[] pos = new int[count];
        try {
            while (!stopped) {
                for (int i = 0; i < count && !stopped; i++) {
                    try {
                        if (socks[i] == null) {
                            socks[i] = connect(from(), port);
                            pos[i] = 0;
                            slowConnections.incrementAndGet();
                        }
                        OutputStream out = socks[i].getOutputStream();
                        out.write(bytes[pos[i] % bytes.length]);
                        out.flush();
                        pos[i]++;
                    } catch (IOException e) {
                        closeQuietly(socks[i]);
                        socks[i] = null; // the server closed it: replace it next round
                    }
                }
                pause(1_000);
            }
        } finally {
            for (Socket s : socks) {
                closeQuietly(s);
            }
        }
    }

    /** HostileClient's shapes and a few more, one connection at a time, five a second. */
    private void badShapes(int port, boolean http1) {
        List<byte[]> shapes = new ArrayList<>();
        shapes.add(HostileClient.garbage());
        shapes.add(HostileClient.tlsClientHello());
        shapes.add(("GET /livez HTTP/1.1\r\nHost: x\r\nX-Big: " + "a".repeat(20_000) + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        shapes.add("GET\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        shapes.add(http1 ? http2Preface() : "GET /livez HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        shapes.add(new byte[0]); // connect, send nothing, leave (half-open below)
        int i = 0;
        while (!stopped) {
            byte[] b = shapes.get(i % shapes.size());
            try {
                HostileClient.send(from(), port, b, b.length == 0);
                badConnections.incrementAndGet();
            } catch (IOException e) {
                // refused or reset at connect: counted as sent all the same
                badConnections.incrementAndGet();
            }
            i++;
            pause(200);
        }
    }

    /** At each cycle's start: {@code floodConnections} idle connections to every port at full speed, held, then closed. */
    private void flood() {
        long cycle = plan.cycle().toNanos();
        long next = 0;
        List<Integer> ports = new ArrayList<>(List.of(plan.probePort(), plan.appPort()));
        if (plan.grpcPort() > 0) {
            ports.add(plan.grpcPort());
        }
        while (!stopped) {
            long wait = next - sinceReadyNanos.getAsLong();
            if (wait > 0) {
                pause(Math.min(200, wait / 1_000_000 + 1));
                continue;
            }
            // the quiet sample is taken at the cycle's start: leave it a moment
            pause(500);
            List<Socket> held = new ArrayList<>();
            for (int i = 0; i < plan.floodConnections() && !stopped; i++) {
                for (int port : ports) {
                    try {
                        Socket s = connect(from(), port);
                        held.add(s);
                        floodConnections.incrementAndGet();
                    } catch (IOException e) {
                        floodRefused.incrementAndGet();
                    }
                }
            }
            synchronized (open) {
                open.addAll(held);
            }
            pause(FLOOD_HOLD.toMillis());
            for (Socket s : held) {
                closeQuietly(s);
            }
            synchronized (open) {
                open.removeAll(held);
            }
            next += cycle;
        }
    }

    private static Socket connect(InetAddress from, int port) throws IOException {
        Socket s = new Socket();
        try {
            s.bind(new InetSocketAddress(from, 0));
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5_000);
            s.setSoLinger(true, 0); // closed with a reset: no TIME_WAIT pile-up over a long soak
            return s;
        } catch (IOException e) {
            closeQuietly(s);
            throw e;
        }
    }

    private static byte[] httpHead() {
        return ("GET /livez HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + "a".repeat(4_000)).getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] http2Preface() {
        return "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    }

    private static void closeQuietly(Socket s) {
        if (s != null) {
            try {
                s.close();
            } catch (IOException e) {
                // closing anyway
            }
        }
    }

    private void pause(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            stopped = true;
            Thread.currentThread().interrupt();
        }
    }

    /** @return the traffic sent, for the report */
    Map<String, Object> counts() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("appRequestsOk", appOk.get());
        m.put("appRequestsFailed", appFailed.get());
        m.put("burstRequests", burstRequests.get());
        m.put("slowDripConnections", slowConnections.get());
        m.put("badShapeConnections", badConnections.get());
        m.put("floodConnections", floodConnections.get());
        m.put("floodConnectFailures", floodRefused.get());
        return m;
    }

    /**
     * Stops every generator and closes what it holds; waits at most 5 s for the threads (a request
     * still in flight then is abandoned: its daemon thread ends at its 30 s timeout or when the demo
     * is stopped).
     */
    @Override
    public void close() {
        stopped = true;
        synchronized (open) {
            for (Socket s : open) {
                closeQuietly(s);
            }
        }
        long end = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        for (Thread t : threads) {
            t.interrupt();
        }
        for (Thread t : threads) {
            long left = (end - System.nanoTime()) / 1_000_000;
            if (left <= 0) {
                break;
            }
            try {
                t.join(left);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
