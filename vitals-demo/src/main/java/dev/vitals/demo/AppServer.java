package dev.vitals.demo;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.vitals.HealthCheck;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;

/**
 * The application listener: a JDK {@link HttpServer} whose exchanges all run on the bounded
 * worker pool. Routes:
 * <ul>
 *   <li>{@code GET|POST /reports/export?costCenter=<code>}: reads the cost center's row, then
 *       holds the worker for a seeded random time between {@code --export-min-ms} and
 *       {@code --export-max-ms} (mostly waiting, about 0.5 % CPU), and returns a small CSV;</li>
 *   <li>{@code GET /orders/<id>}: one indexed read, JSON;</li>
 *   <li>naive wiring only: {@code GET /healthz}, which pings the database and runs the
 *       synthetic checks one after another on the worker (the common mistake);</li>
 *   <li>{@code --chaos} only: {@code POST /chaos/deadlock-workers},
 *       {@code POST /chaos/close-listener}.</li>
 * </ul>
 * Unknown paths are 404, wrong methods 405, a database failure 503 with a body that carries no
 * error text.
 */
final class AppServer {
    private static final Pattern COST_CENTER = Pattern.compile("[A-Za-z0-9_.-]{1,64}");
    private static final System.Logger LOG = System.getLogger("dev.vitals.demo");

    private final DemoOptions options;
    private final Database db;
    private final ThreadPoolExecutor workers;
    private final Chaos chaos;
    private final Map<String, HealthCheck> synthetic;
    private final Random holdRandom;
    private final AtomicLong exportsDone = new AtomicLong();
    private volatile HttpServer server;
    private volatile boolean listenerClosed;

    AppServer(DemoOptions options, Database db, ThreadPoolExecutor workers, Chaos chaos, Map<String, HealthCheck> synthetic) {
        this.options = options;
        this.db = db;
        this.workers = workers;
        this.chaos = chaos;
        this.synthetic = synthetic;
        this.holdRandom = new Random(options.seed());
    }

    /** Binds and starts accepting; returns the bound port. */
    int start() throws IOException {
        HttpServer s = HttpServer.create(new InetSocketAddress(options.host(), options.port()), 1024);
        s.setExecutor(workers);
        s.createContext("/", this::handle);
        s.start();
        server = s;
        return s.getAddress().getPort();
    }

    /** @return the bound address, once started */
    Optional<InetSocketAddress> address() {
        HttpServer s = server;
        return s == null || listenerClosed ? Optional.empty() : Optional.of(s.getAddress());
    }

    /** @return exports completed with 200 so far */
    long exportsDone() {
        return exportsDone.get();
    }

    /**
     * Closes the listener, then waits up to {@code grace} for exchanges in progress to finish.
     * Idempotent.
     */
    void stop(Duration grace) {
        HttpServer s = server;
        if (s == null) {
            return;
        }
        listenerClosed = true;
        s.stop((int) Math.min(Integer.MAX_VALUE, (grace.toMillis() + 999) / 1000));
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            drainBody(ex);
            chaos.gate();
            String path = ex.getRequestURI().getRawPath();
            String method = ex.getRequestMethod();
            if (path.equals("/reports/export")) {
                if (!method.equals("GET") && !method.equals("POST")) {
                    send(ex, 405, "text/plain", "method not allowed\n", "Allow", "GET, POST");
                    return;
                }
                export(ex);
            } else if (path.startsWith("/orders/")) {
                if (!method.equals("GET") && !method.equals("HEAD")) {
                    send(ex, 405, "text/plain", "method not allowed\n", "Allow", "GET, HEAD");
                    return;
                }
                order(ex, path.substring("/orders/".length()));
            } else if (path.equals("/healthz") && options.wiring() == Wiring.NAIVE) {
                if (!method.equals("GET") && !method.equals("HEAD")) {
                    send(ex, 405, "text/plain", "method not allowed\n", "Allow", "GET, HEAD");
                    return;
                }
                naiveHealth(ex);
            } else if (path.startsWith("/chaos/") && options.chaos()) {
                if (!method.equals("POST")) {
                    send(ex, 405, "text/plain", "method not allowed\n", "Allow", "POST");
                    return;
                }
                chaos(ex, path.substring("/chaos/".length()));
            } else {
                send(ex, 404, "text/plain", "not found\n");
            }
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "request failed: " + ex.getRequestURI().getRawPath(), e);
            try {
                send(ex, 500, "text/plain", "internal error\n");
            } catch (IOException | RuntimeException again) {
                // the response had begun; the exchange is closed below
            }
        }
    }

    private void export(HttpExchange ex) throws IOException {
        String cc = queryParam(ex.getRequestURI().getRawQuery(), "costCenter");
        if (cc == null || !COST_CENTER.matcher(cc).matches()) {
            send(ex, 400, "text/plain", "costCenter is required: 1-64 letters, digits, '.', '_' or '-'\n");
            return;
        }
        long holdMs = nextHoldMs();
        long t0 = System.nanoTime();
        Database.CostCenter row;
        try {
            row = db.costCenter(cc);
        } catch (SQLException e) {
            LOG.log(System.Logger.Level.DEBUG, "export: database unavailable", e);
            send(ex, 503, "text/plain", "database unavailable\n");
            return;
        }
        // A little CPU (about 0.5 % of the hold), then waiting for the rest of it.
        long cpuChecksum = burnCpu(TimeUnit.MILLISECONDS.toNanos(holdMs / 200));
        long remaining = holdMs - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        if (remaining > 0) {
            try {
                Thread.sleep(remaining);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                send(ex, 503, "text/plain", "shutting down\n");
                return;
            }
        }
        long heldMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        String csv = "costCenter,name,known,budgetCents,heldMs,checksum\n"
                + row.code + ',' + row.name + ',' + row.known + ',' + row.budgetCents + ',' + heldMs + ','
                + Long.toHexString(cpuChecksum) + '\n';
        send(ex, 200, "text/csv; charset=utf-8", csv);
        exportsDone.incrementAndGet();
    }

    private long nextHoldMs() {
        long min = options.exportMin().toMillis();
        long span = options.exportMax().toMillis() - min;
        synchronized (holdRandom) {
            return span == 0 ? min : min + (long) (holdRandom.nextDouble() * (span + 1));
        }
    }

    private static long burnCpu(long nanos) {
        byte[] buf = new byte[4096];
        long checksum = 0;
        long end = System.nanoTime() + nanos;
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            do {
                byte[] d = md.digest(buf);
                System.arraycopy(d, 0, buf, 0, d.length);
                checksum = checksum * 31 + d[0];
            } while (System.nanoTime() < end);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JDK", e);
        }
        return checksum;
    }

    private void order(HttpExchange ex, String idText) throws IOException {
        long id;
        try {
            id = Long.parseLong(idText);
        } catch (NumberFormatException e) {
            id = -1;
        }
        if (id < 1) {
            send(ex, 400, "text/plain", "order id must be a positive integer\n");
            return;
        }
        Optional<Database.Order> o;
        try {
            o = db.order(id);
        } catch (SQLException e) {
            LOG.log(System.Logger.Level.DEBUG, "order: database unavailable", e);
            send(ex, 503, "text/plain", "database unavailable\n");
            return;
        }
        if (o.isEmpty()) {
            send(ex, 404, "text/plain", "no order " + id + "\n");
            return;
        }
        Database.Order r = o.get();
        send(ex, 200, "application/json", "{\"id\":" + r.id + ",\"customer\":\"" + r.customer + "\",\"amountCents\":"
                + r.amountCents + ",\"status\":\"" + r.status + "\"}\n");
    }

    /** The common mistake: one endpoint for every probe, on the worker pool, with the database in it. */
    private void naiveHealth(HttpExchange ex) throws IOException {
        try {
            db.ping();
        } catch (SQLException e) {
            LOG.log(System.Logger.Level.DEBUG, "healthz: database unavailable", e);
            send(ex, 503, "text/plain", "database: DOWN\n");
            return;
        }
        for (Map.Entry<String, HealthCheck> c : synthetic.entrySet()) {
            try {
                if (!c.getValue().check().status().isHealthy()) {
                    send(ex, 503, "text/plain", c.getKey() + ": DOWN\n");
                    return;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                send(ex, 503, "text/plain", "shutting down\n");
                return;
            } catch (Exception e) {
                send(ex, 503, "text/plain", c.getKey() + ": DOWN\n");
                return;
            }
        }
        send(ex, 200, "text/plain", "ok\n");
    }

    private void chaos(HttpExchange ex, String what) throws IOException {
        switch (what) {
            case "deadlock-workers":
                try {
                    chaos.deadlockWorkers(workers);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                LOG.log(System.Logger.Level.WARNING, "chaos: two workers deadlocked; every later request blocks");
                send(ex, 202, "text/plain", "workers deadlocked: every later application request blocks\n");
                return;
            case "close-listener":
                LOG.log(System.Logger.Level.WARNING, "chaos: closing the application listener");
                send(ex, 202, "text/plain", "closing the application listener\n");
                Thread t = new Thread(() -> stop(Duration.ZERO), "demo-chaos-close-listener");
                t.setDaemon(true);
                t.start();
                return;
            default:
                send(ex, 404, "text/plain", "not found\n");
        }
    }

    static String queryParam(String rawQuery, String name) {
        if (rawQuery == null) {
            return null;
        }
        try {
            for (String pair : rawQuery.split("&")) {
                int eq = pair.indexOf('=');
                String k = eq < 0 ? pair : pair.substring(0, eq);
                if (URLDecoder.decode(k, StandardCharsets.UTF_8).equals(name)) {
                    return eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
                }
            }
        } catch (IllegalArgumentException e) {
            return null; // malformed escape
        }
        return null;
    }

    private static void drainBody(HttpExchange ex) throws IOException {
        try (InputStream in = ex.getRequestBody()) {
            byte[] buf = new byte[8192];
            long total = 0;
            int n;
            while (total < 1 << 20 && (n = in.read(buf)) >= 0) {
                total += n;
            }
        }
    }

    private static void send(HttpExchange ex, int code, String contentType, String body, String... headers) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", contentType);
        for (int i = 0; i + 1 < headers.length; i += 2) {
            ex.getResponseHeaders().set(headers[i], headers[i + 1]);
        }
        boolean head = ex.getRequestMethod().equals("HEAD");
        ex.sendResponseHeaders(code, head ? -1 : bytes.length);
        if (!head) {
            try (OutputStream out = ex.getResponseBody()) {
                out.write(bytes);
            }
        }
    }
}
